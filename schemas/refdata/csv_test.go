package refdata

import (
	"encoding/base64"
	"encoding/csv"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"github.com/ste-utility/ste/schemas/date"
)

var keyA = base64.StdEncoding.EncodeToString(DemoPublicKey("BRKASGSGXXX"))

func validFiles() map[string]string {
	return map[string]string{
		"currencies.csv":   "code,minor_units\nSGD,2\nJPY,0\n",
		"countries.csv":    "code,name\nSG,Singapore\nJP,Japan\n",
		"securities.csv":   "isin,name,currency,country,status\nSG1L01001701,DBS Group Holdings Ltd,SGD,SG,ACTIVE\n",
		"participants.csv": "bic,name,roles,country,status,public_key\nBRKASGSGXXX,Broker A,BROKER,SG,ACTIVE," + keyA + "\n",
		"holidays.csv":     "country,date\nSG,2026-12-25\n",
	}
}

func mapFS(files map[string]string) fstest.MapFS {
	fsys := fstest.MapFS{}
	for name, data := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(data)}
	}
	return fsys
}

func TestFilesMatchTables(t *testing.T) {
	all := append(slices.Clone(Files), OptionalFiles...)
	for i, tb := range tables {
		if all[i] != tb.file || tb.optional != (i >= len(Files)) {
			t.Errorf("file %d = %s, table %s (optional %v)", i, all[i], tb.file, tb.optional)
		}
	}
}

func TestLoadValid(t *testing.T) {
	s, err := Load(mapFS(validFiles()))
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := s.Currency("JPY"); !ok || c.MinorUnits != 0 {
		t.Errorf("JPY = %+v %v", c, ok)
	}
	if c, ok := s.Country("SG"); !ok || c.Name != "Singapore" {
		t.Errorf("SG = %+v %v", c, ok)
	}
	if x, ok := s.Security("SG1L01001701"); !ok || x != (Security{"SG1L01001701", "DBS Group Holdings Ltd", "SGD", "SG", Active}) {
		t.Errorf("security = %+v %v", x, ok)
	}
	p, ok := s.Participant("BRKASGSGXXX")
	if !ok || p.Roles != RoleBroker || p.Status != Active || !p.HasKey(DemoPublicKey("BRKASGSGXXX")) || len(p.Keys) != 1 {
		t.Errorf("participant = %+v %v", p, ok)
	}
	if !s.IsHoliday("SG", date.MustParse("2026-12-25")) {
		t.Error("holiday missing")
	}
}

// Column order is free, extra columns are ignored, fields are trimmed, a BOM,
// CRLF line ends, quoting and blank lines are fine.
func TestLoadLenientLayout(t *testing.T) {
	f := validFiles()
	f["currencies.csv"] = "\uFEFFminor_units , code,comment\r\n 2 , SGD ,\"Singapore dollar, SGD\"\r\n\r\n0,JPY,yen\r\n"
	f["countries.csv"] = "name,code\n\"Korea, Republic of\",KR\n  \n"
	f["participants.csv"] = "public_key,status,country,roles,name,bic\n" + keyA + ",SUSPENDED,SG, CSD ; BROKER ,\"Broker \"\"A\"\"\",BRKASGSG\n"
	s, err := Load(mapFS(f))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Currencies(); !reflect.DeepEqual(got, []Currency{{"JPY", 0}, {"SGD", 2}}) {
		t.Errorf("currencies %+v", got)
	}
	if c, _ := s.Country("KR"); c.Name != "Korea, Republic of" {
		t.Errorf("KR = %+v", c)
	}
	p, ok := s.Participant("BRKASGSG")
	if !ok || p.Roles != RoleBroker|RoleCSD || p.Name != `Broker "A"` || p.Status != Suspended {
		t.Errorf("participant %+v", p)
	}
}

// A wrong check digit is loaded: validation rejects it later as
// UNKNOWN_SECURITY, which negative tests need.
func TestLoadKeepsBadCheckDigit(t *testing.T) {
	f := validFiles()
	f["securities.csv"] = "isin,name,currency,country,status\nSG1L01001702,Bad check digit,SGD,SG,ACTIVE\n"
	s, err := Load(mapFS(f))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Security("SG1L01001702"); !ok {
		t.Error("security with a wrong check digit was not loaded")
	}
}

func TestLoadErrors(t *testing.T) {
	sec := "isin,name,currency,country,status\n"
	par := "bic,name,roles,country,status,public_key\n"
	tests := []struct {
		name, file, data, want string
	}{
		{"missing file", "holidays.csv", "<delete>",
			"holidays.csv: missing file: a reference data directory holds currencies.csv, countries.csv, securities.csv, participants.csv, holidays.csv"},
		{"empty file", "currencies.csv", "",
			`currencies.csv: empty file: a header row "code,minor_units" is required`},
		{"missing column", "currencies.csv", "code\nSGD\n",
			`currencies.csv:1: column "minor_units": missing from the header (want code,minor_units)`},
		{"duplicate header", "currencies.csv", "code,minor_units,code\nSGD,2,SGD\n",
			`currencies.csv:1: column "code": duplicate header`},
		{"empty header name", "countries.csv", "code,,name\nSG,x,Singapore\n",
			`countries.csv:1: header field 2 is empty`},
		{"wrong field count", "currencies.csv", "code,minor_units\nSGD,2\nJPY\n",
			`currencies.csv:3: wrong field count: 1 fields, the header has 2`},
		{"bad minor_units word", "currencies.csv", "code,minor_units\nSGD,two\n",
			`currencies.csv:2: column "minor_units": bad minor_units "two" (want an integer from 0 to 9)`},
		{"bad minor_units negative", "currencies.csv", "code,minor_units\nSGD,-1\n",
			`currencies.csv:2: column "minor_units": bad minor_units "-1" (want an integer from 0 to 9)`},
		{"bad minor_units large", "currencies.csv", "code,minor_units\nSGD,10\n",
			`currencies.csv:2: column "minor_units": bad minor_units "10" (want an integer from 0 to 9)`},
		{"empty minor_units", "currencies.csv", "code,minor_units\nSGD, \n",
			`currencies.csv:2: column "minor_units": empty`},
		{"bad currency code, line after blank line", "currencies.csv", "code,minor_units\n\nSGD,2\nsgd,2\n",
			`currencies.csv:4: column "code": "sgd" is not 3 letters A-Z`},
		{"bad country code", "countries.csv", "code,name\nSGP,Singapore\n",
			`countries.csv:2: column "code": "SGP" is not 2 letters A-Z`},
		{"empty country name", "countries.csv", "code,name\nSG,\n",
			`countries.csv:2: column "name": empty`},
		{"csv syntax", "countries.csv", "code,name\nSG,Sing\"apore\n",
			`countries.csv:2: ` + csv.ErrBareQuote.Error()},
		{"bad isin", "securities.csv", sec + "SG1L0100170,DBS,SGD,SG,ACTIVE\n",
			`securities.csv:2: column "isin": "SG1L0100170" is not 12 of A-Z 0-9`},
		{"bad security currency", "securities.csv", sec + "SG1L01001701,DBS,SG$,SG,ACTIVE\n",
			`securities.csv:2: column "currency": "SG$" is not 3 letters A-Z`},
		{"bad security status", "securities.csv", sec + "SG1L01001701,DBS,SGD,SG,ACTIV\n",
			`securities.csv:2: column "status": bad status "ACTIV" (want ACTIVE, SUSPENDED or INACTIVE)`},
		{"duplicate security", "securities.csv", sec + "SG1L01001701,DBS,SGD,SG,ACTIVE\nSG1M31001969,UOB,SGD,SG,ACTIVE\nSG1L01001701,DBS again,SGD,SG,SUSPENDED\n",
			`securities.csv:4: column "isin": duplicate of line 2`},
		{"bad bic", "participants.csv", par + "BRKA-SGSGXX,Broker A,BROKER,SG,ACTIVE," + keyA + "\n",
			`participants.csv:2: column "bic": "BRKA-SGSGXX" is not 8 or 11 of A-Z 0-9`},
		{"bic of 9", "participants.csv", par + "BRKASGSGX,Broker A,BROKER,SG,ACTIVE," + keyA + "\n",
			`participants.csv:2: column "bic": "BRKASGSGX" is not 8 or 11 of A-Z 0-9`},
		{"unknown role", "participants.csv", par + "BRKASGSGXXX,Broker A,BROKER;TRADER,SG,ACTIVE," + keyA + "\n",
			`participants.csv:2: column "roles": unknown role "TRADER" (want BROKER, INVMGR, CUSTODIAN, CSD, UTILITY or SIGNER)`},
		{"lower-case role", "participants.csv", par + "BRKASGSGXXX,Broker A,broker,SG,ACTIVE," + keyA + "\n",
			`participants.csv:2: column "roles": unknown role "broker" (want BROKER, INVMGR, CUSTODIAN, CSD, UTILITY or SIGNER)`},
		{"empty role item", "participants.csv", par + "BRKASGSGXXX,Broker A,BROKER;,SG,ACTIVE," + keyA + "\n",
			`participants.csv:2: column "roles": empty role in "BROKER;"`},
		{"no roles", "participants.csv", par + "BRKASGSGXXX,Broker A,,SG,ACTIVE," + keyA + "\n",
			`participants.csv:2: column "roles": empty`},
		{"bad participant status", "participants.csv", par + "BRKASGSGXXX,Broker A,BROKER,SG,active," + keyA + "\n",
			`participants.csv:2: column "status": bad status "active" (want ACTIVE, SUSPENDED or INACTIVE)`},
		{"bad base64", "participants.csv", par + "BRKASGSGXXX,Broker A,BROKER,SG,ACTIVE,not*base64\n",
			`participants.csv:2: column "public_key": not standard padded base64: illegal base64 data at input byte 3`},
		{"unpadded base64", "participants.csv", par + "BRKASGSGXXX,Broker A,BROKER,SG,ACTIVE," + strings.TrimRight(keyA, "=") + "\n",
			`participants.csv:2: column "public_key": not standard padded base64: illegal base64 data at input byte 40`},
		{"short key", "participants.csv", par + "BRKASGSGXXX,Broker A,BROKER,SG,ACTIVE,AAAA\n",
			`participants.csv:2: column "public_key": 3 bytes, an Ed25519 public key has 32`},
		{"missing key", "participants.csv", par + "BRKASGSGXXX,Broker A,BROKER,SG,ACTIVE,\n",
			`participants.csv:2: column "public_key": empty`},
		{"bad date", "holidays.csv", "country,date\nSG,2026-02-30\n",
			`holidays.csv:2: column "date": bad date "2026-02-30" (want a real YYYY-MM-DD day)`},
		{"short date", "holidays.csv", "country,date\nSG,26-12-25\n",
			`holidays.csv:2: column "date": bad date "26-12-25" (want a real YYYY-MM-DD day)`},
		{"bad holiday country", "holidays.csv", "country,date\nsg,2026-12-25\n",
			`holidays.csv:2: column "country": "sg" is not 2 letters A-Z`},
		{"duplicate holiday", "holidays.csv", "country,date\nSG,2026-12-25\nSG, 2026-12-25\n",
			`holidays.csv:3: column "date": duplicate of line 2`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := validFiles()
			if tc.data == "<delete>" {
				delete(f, tc.file)
			} else {
				f[tc.file] = tc.data
			}
			s, err := Load(mapFS(f))
			if err == nil {
				t.Fatalf("loaded, want %q", tc.want)
			}
			if s != nil {
				t.Error("a failed load returned a Set")
			}
			if err.Error() != tc.want {
				t.Errorf("got  %s\nwant %s", err, tc.want)
			}
			var re *RowError
			if !errors.As(err, &re) {
				t.Errorf("error is not a *RowError: %T", err)
			}
		})
	}
}

func TestLoadReportsEveryError(t *testing.T) {
	f := validFiles()
	f["currencies.csv"] = "code,minor_units\nSGD,x\nJPY,0\nKR,0\n"
	f["holidays.csv"] = "country,date\nSG,2026-13-01\n"
	_, err := Load(mapFS(f))
	want := `currencies.csv:2: column "minor_units": bad minor_units "x" (want an integer from 0 to 9)` + "\n" +
		`currencies.csv:4: column "code": "KR" is not 3 letters A-Z` + "\n" +
		`holidays.csv:2: column "date": bad date "2026-13-01" (want a real YYYY-MM-DD day)`
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
	var b strings.Builder
	b.WriteString("code,minor_units\n")
	for range 50 {
		b.WriteString("bad,2\n")
	}
	f = validFiles()
	f["currencies.csv"] = b.String()
	_, err = Load(mapFS(f))
	if n := len(strings.Split(err.Error(), "\n")); n != maxLoadErrors+1 {
		t.Errorf("%d error lines, want %d", n, maxLoadErrors+1)
	}
}

func TestLoadDirNamesPath(t *testing.T) {
	dir := t.TempDir()
	for name, data := range validFiles() {
		if name != "securities.csv" {
			os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644)
		}
	}
	_, err := LoadDir(dir)
	if err == nil || !strings.HasPrefix(err.Error(), filepath.Join(dir, "securities.csv")+": missing file") {
		t.Errorf("got %v", err)
	}
}

func TestWriteDirRoundTrip(t *testing.T) {
	s := Generate(GenOptions{Seed: 7, Securities: 300, Participants: 60})
	dir := t.TempDir()
	if err := s.WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	back, err := LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	assertEqualSets(t, s, back)
	// Writing again gives identical bytes, and no temporary file is left.
	dir2 := t.TempDir()
	if err := back.WriteDir(dir2); err != nil {
		t.Fatal(err)
	}
	for _, f := range append(slices.Clone(Files), OptionalFiles...) {
		a, _ := os.ReadFile(filepath.Join(dir, f))
		b, _ := os.ReadFile(filepath.Join(dir2, f))
		if string(a) != string(b) {
			t.Errorf("%s differs after a round trip", f)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != len(tables) {
		t.Errorf("%d entries in the directory, want %d", len(entries), len(tables))
	}
}

func assertEqualSets(t *testing.T, a, b *Set) {
	t.Helper()
	if !reflect.DeepEqual(a.Currencies(), b.Currencies()) {
		t.Error("currencies differ")
	}
	if !reflect.DeepEqual(a.Countries(), b.Countries()) {
		t.Error("countries differ")
	}
	if !reflect.DeepEqual(a.Securities(), b.Securities()) {
		t.Error("securities differ")
	}
	if !reflect.DeepEqual(a.Participants(), b.Participants()) {
		t.Error("participants differ")
	}
	if !reflect.DeepEqual(a.Holidays(), b.Holidays()) {
		t.Error("holidays differ")
	}
	if !reflect.DeepEqual(a.Tolerances(), b.Tolerances()) {
		t.Error("tolerances differ")
	}
	if !reflect.DeepEqual(a.Cutoffs(), b.Cutoffs()) {
		t.Error("cutoffs differ")
	}
	if !reflect.DeepEqual(a.Affirmations(), b.Affirmations()) {
		t.Error("affirmation modes differ")
	}
}

func TestLoadDirThatIsNotOne(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "currencies.csv")
	if err := os.WriteFile(file, []byte("code,minor_units\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ dir, want string }{
		{filepath.Join(dir, "absent"), "does not exist"},
		{file, "is not a directory"},
	} {
		_, err := LoadDir(c.dir)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("LoadDir(%s) = %v, want one line with %q", c.dir, err, c.want)
		}
	}
}

// Issue 15: a CSV path that is a device or a FIFO is refused before it is
// read (/dev/zero would be read until memory runs out, a FIFO would block).
func TestLoadDirRefusesSpecialFiles(t *testing.T) {
	for _, special := range []string{"/dev/zero", "fifo"} {
		dir := t.TempDir()
		for name, data := range validFiles() {
			if name != "securities.csv" {
				os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644)
			}
		}
		target := filepath.Join(dir, "securities.csv")
		if special == "fifo" {
			if err := syscall.Mkfifo(target, 0o600); err != nil {
				t.Fatal(err)
			}
		} else if err := os.Symlink(special, target); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { _, err := LoadDir(dir); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "securities.csv: not a regular file") {
				t.Errorf("%s: %v", special, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: LoadDir did not return", special)
		}
	}
}
