package refdata

import (
	"encoding/base64"
	"reflect"
	"strings"
	"testing"
)

// Version 3, messages.md §8: the role SIGNER, the optional signers column and
// affirmation.csv.

var keySigner = base64.StdEncoding.EncodeToString(DemoPublicKey(FIXSignerBIC))

func (s *Set) mustParticipant(bic string) Participant {
	p, ok := s.participants[bic]
	if !ok {
		panic("no participant " + bic)
	}
	return p
}

func withParticipants(rows string) map[string]string {
	f := validFiles()
	f["participants.csv"] = rows
	return f
}

func TestSignersColumn(t *testing.T) {
	files := withParticipants("bic,name,roles,country,status,public_key,signers\n" +
		"BRKASGSGXXX,Broker A,BROKER,SG,ACTIVE," + keyA + ", STEUTLSGFIX ; STEUTLSGISO;STEUTLSGFIX\n" +
		"BRKBSGSGXXX,Broker B,BROKER,SG,ACTIVE," + keyA + ",\n" +
		"BRKCSGSGXXX,Broker C,BROKER,SG,ACTIVE," + keyA + ",NOSUCHSG\n" + // unknown: loaded, never verifies
		"STEUTLSGFIX,FIX,SIGNER,SG,ACTIVE," + keySigner + ",\n")
	s, err := Load(mapFS(files))
	if err != nil {
		t.Fatal(err)
	}
	a := s.mustParticipant("BRKASGSGXXX")
	if !reflect.DeepEqual(a.Signers, []string{FIXSignerBIC, ISOSignerBIC}) || a.KeepSigners || !a.HasSigner(ISOSignerBIC) || a.HasSigner("BRKBSGSGXXX") {
		t.Errorf("A: %+v", a)
	}
	if b := s.mustParticipant("BRKBSGSGXXX"); b.Signers != nil || b.KeepSigners {
		t.Errorf("B: %+v", b)
	}
	if c := s.mustParticipant("BRKCSGSGXXX"); !reflect.DeepEqual(c.Signers, []string{"NOSUCHSG"}) {
		t.Errorf("C: %+v", c)
	}
	if f := s.mustParticipant(FIXSignerBIC); f.Roles != RoleSigner || !f.SignerOnly() || a.SignerOnly() {
		t.Errorf("signer row %+v", f)
	}

	// Refused, naming the row and the column.
	for _, cell := range []string{"steutlsgfix", "STEUTLSGFIX;", "STEUTLSGFIX;;STEUTLSGISO", "STEUTLSGFI", "STEUTLSG FIX"} {
		files := withParticipants("bic,name,roles,country,status,public_key,signers\n" +
			"BRKBSGSGXXX,Broker B,BROKER,SG,ACTIVE," + keyA + ",\n" +
			"BRKASGSGXXX,Broker A,BROKER,SG,ACTIVE," + keyA + "," + cell + "\n")
		_, err := Load(mapFS(files))
		if err == nil || !strings.Contains(err.Error(), `participants.csv:3: column "signers": entry`) || !strings.Contains(err.Error(), "not a BIC") {
			t.Errorf("%q: %v", cell, err)
		}
	}
}

// A file without the column leaves each participant's stored signers as they
// are; with it, an empty cell clears them. Through the topic's records as
// through KeepStoredSigners (what ste refdata load publishes).
func TestSignersColumnAbsentKeepsStored(t *testing.T) {
	with, err := Load(mapFS(withParticipants("bic,name,roles,country,status,public_key,signers\n" +
		"BRKASGSGXXX,Broker A,BROKER,SG,ACTIVE," + keyA + ",STEUTLSGFIX\n" +
		"BRKBSGSGXXX,Broker B,BROKER,SG,ACTIVE," + keyA + ",STEUTLSGISO\n")))
	if err != nil {
		t.Fatal(err)
	}
	without, err := Load(mapFS(withParticipants("bic,name,roles,country,status,public_key\n" +
		"BRKASGSGXXX,Broker A renamed,BROKER,SG,SUSPENDED," + keyA + "\n" +
		"BRKNSGSGXXX,Broker New,BROKER,SG,ACTIVE," + keyA + "\n")))
	if err != nil {
		t.Fatal(err)
	}
	if p := without.mustParticipant("BRKASGSGXXX"); !p.KeepSigners || p.Signers != nil {
		t.Fatalf("read without the column: %+v", p)
	}
	for _, r := range without.Records() {
		if strings.Contains(string(r.Value), "signers") {
			t.Fatalf("a record of a row without the column says signers: %s", r.Value)
		}
	}
	topic := NewSet()
	apply := func(s *Set) {
		for _, r := range s.Records() {
			if err := topic.Apply(r.Key, r.Value); err != nil {
				t.Fatal(err)
			}
		}
	}
	apply(with)
	apply(without)
	a := topic.mustParticipant("BRKASGSGXXX")
	if a.Name != "Broker A renamed" || a.Status != Suspended || !reflect.DeepEqual(a.Signers, []string{FIXSignerBIC}) || a.KeepSigners {
		t.Errorf("the stored signers did not stay: %+v", a)
	}
	if n := topic.mustParticipant("BRKNSGSGXXX"); n.Signers != nil || !n.KeepSigners {
		t.Errorf("a participant new to the data has none: %+v", n)
	}
	if b := topic.mustParticipant("BRKBSGSGXXX"); !reflect.DeepEqual(b.Signers, []string{ISOSignerBIC}) {
		t.Errorf("B: %+v", b)
	}

	// What ste refdata load publishes says them, so compaction keeps them.
	pub := without.Clone()
	if done := pub.KeepStoredSigners(topic); !reflect.DeepEqual(done, []string{"BRKASGSGXXX"}) {
		t.Fatalf("completed %v", done)
	}
	if without.mustParticipant("BRKASGSGXXX").Signers != nil {
		t.Fatal("KeepStoredSigners wrote to the clone's original")
	}
	compacted := NewSet()
	for _, r := range pub.Records() {
		if err := compacted.Apply(r.Key, r.Value); err != nil {
			t.Fatal(err)
		}
	}
	if a := compacted.mustParticipant("BRKASGSGXXX"); !reflect.DeepEqual(a.Signers, []string{FIXSignerBIC}) {
		t.Errorf("after compaction: %+v", a)
	}

	// With the column, an empty cell clears.
	clear, err := Load(mapFS(withParticipants("bic,name,roles,country,status,public_key,signers\n" +
		"BRKASGSGXXX,Broker A,BROKER,SG,ACTIVE," + keyA + ",\n")))
	if err != nil {
		t.Fatal(err)
	}
	clear.KeepStoredSigners(topic) // nothing to keep: the row says
	apply(clear)
	if a := topic.mustParticipant("BRKASGSGXXX"); a.Signers != nil || a.KeepSigners {
		t.Errorf("an empty cell did not clear: %+v", a)
	}
}

// A directory without the column writes none; with one participant saying
// signers, the column is written and the others' cells are empty.
func TestSignersWriteDirRoundTrip(t *testing.T) {
	for _, rows := range []string{
		"bic,name,roles,country,status,public_key\nBRKASGSGXXX,Broker A,BROKER,SG,ACTIVE," + keyA + "\n",
		"bic,name,roles,country,status,public_key,signers\nBRKASGSGXXX,Broker A,BROKER,SG,ACTIVE," + keyA + ",STEUTLSGFIX;X1234567\n" +
			"BRKBSGSGXXX,Broker B,BROKER,SG,ACTIVE," + keyA + ",\n",
	} {
		s, err := Load(mapFS(withParticipants(rows)))
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		if err := s.WriteDir(dir); err != nil {
			t.Fatal(err)
		}
		back, err := LoadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		assertEqualSets(t, s, back)
		if got := string(s.csvBytes(tableByKind("participant"))); got != rows {
			t.Errorf("written\n%s\nwant\n%s", got, rows)
		}
	}
}

func TestAffirmationFile(t *testing.T) {
	files := withParticipants("bic,name,roles,country,status,public_key\n" +
		"INVMSGSGXXX,IM,INVMGR,SG,ACTIVE," + keyA + "\n" +
		"INVNSGSGXXX,IM 2,BROKER;INVMGR,SG,SUSPENDED," + keyA + "\n" +
		"BRKASGSGXXX,Broker A,BROKER,SG,ACTIVE," + keyA + "\n")
	s, err := Load(mapFS(files))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Affirmations()) != 0 || s.AffirmationMode("INVMSGSGXXX") != AffirmManual {
		t.Fatal("without affirmation.csv every InvMgr is MANUAL")
	}
	files[AffirmationFile] = "mode, invmgr\nAUTO,INVMSGSGXXX\nMANUAL,INVNSGSGXXX\nMANUAL,INVMSGSGXXX\nAUTO,INVMSGSGXXX\n"
	if s, err = Load(mapFS(files)); err != nil {
		t.Fatal(err)
	}
	if s.AffirmationMode("INVMSGSGXXX") != AffirmAuto || s.AffirmationMode("INVNSGSGXXX") != AffirmManual ||
		s.AffirmationMode("NOROWSGSXXX") != AffirmManual {
		t.Fatalf("modes %v", s.Affirmations())
	}
	var c Current
	if c.AffirmationMode("INVMSGSGXXX") != AffirmManual {
		t.Fatal("an empty Current: MANUAL")
	}
	c.Store(s)
	if c.AffirmationMode("INVMSGSGXXX") != AffirmAuto {
		t.Fatal("Current does not read the published set")
	}
	recs := map[string]string{}
	for _, r := range s.Records() {
		recs[string(r.Key)] = string(r.Value)
	}
	if recs["affirmation:INVMSGSGXXX"] != `{"invmgr":"INVMSGSGXXX","mode":"AUTO"}` || recs["affirmation:INVNSGSGXXX"] != `{"invmgr":"INVNSGSGXXX","mode":"MANUAL"}` {
		t.Fatalf("records %v", recs)
	}
	// A later record replaces an earlier one; nothing deletes a row.
	if err := s.Apply([]byte("affirmation:INVMSGSGXXX"), []byte(`{"invmgr":"INVMSGSGXXX","mode":"MANUAL"}`)); err != nil || s.AffirmationMode("INVMSGSGXXX") != AffirmManual {
		t.Fatalf("apply: %v", err)
	}
	if err := s.Apply([]byte("affirmation:INVMSGSGXXX"), nil); err == nil || len(s.Affirmations()) != 2 {
		t.Fatal("a tombstone deleted a mode")
	}
	// The topic does not check the InvMgr (kinds arrive in any order).
	if err := s.Apply([]byte("affirmation:UNKNSGSGXXX"), []byte(`{"invmgr":"UNKNSGSGXXX","mode":"AUTO"}`)); err != nil {
		t.Fatal(err)
	}
	for _, e := range []struct{ rows, want string }{
		{"invmgr,mode\nINVMSGSGXXX,auto\n", `affirmation.csv:2: column "mode": bad mode "auto" (want AUTO or MANUAL)`},
		{"invmgr,mode\nINVMSGSGXXX,\n", `affirmation.csv:2: column "mode": empty`},
		{"invmgr,mode\nINVMSGSGXXX,AUTO\nBRKASGSGXXX,AUTO\n", `affirmation.csv:3: column "invmgr": BRKASGSGXXX does not have the role INVMGR`},
		{"invmgr,mode\nNOPESGSGXXX,MANUAL\n", `affirmation.csv:2: column "invmgr": NOPESGSGXXX is not a participant`},
		{"invmgr,mode\ninvmsgsgxxx,AUTO\n", `affirmation.csv:2: column "invmgr": "invmsgsgxxx" is not a BIC`},
		{"invmgr\nINVMSGSGXXX\n", `affirmation.csv:1: column "mode": missing from the header`},
	} {
		files[AffirmationFile] = e.rows
		if _, err := Load(mapFS(files)); err == nil || !strings.Contains(err.Error(), e.want) {
			t.Errorf("%q: %v, want %q", e.rows, err, e.want)
		}
	}
}

// The generated set holds affirmation.csv with its header and no row.
func TestAffirmationWrittenEmpty(t *testing.T) {
	dir := t.TempDir()
	s := Generate(GenOptions{Seed: 2, Securities: 1, Participants: 1})
	if err := s.WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	back, err := LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := defaultFS.ReadFile("default/" + AffirmationFile); string(b) != "invmgr,mode\n" || len(back.Affirmations()) != 0 {
		t.Fatalf("committed %q", b)
	}
	s.PutAffirmation(Affirmation{"X1234567", AffirmAuto})
	if got := string(s.csvBytes(affirmationTable)); got != "invmgr,mode\nX1234567,AUTO\n" {
		t.Fatal(got)
	}
}

func TestCheckDelegateSigner(t *testing.T) {
	s := Default()
	if err := CheckDelegateSigner(s, FIXSignerBIC, DemoPublicKey(FIXSignerBIC)); err != nil {
		t.Fatalf("the default set's FIX signer: %v", err)
	}
	for _, c := range []struct{ bic, key, want string }{
		{FIXSignerBIC, ISOSignerBIC, "not among the row's keys"},
		{DefaultUtilityBIC, DefaultUtilityBIC, "SIGNER role"},
		{"NOSUCHSGXXX", FIXSignerBIC, "no row"},
	} {
		if err := CheckDelegateSigner(s, c.bic, DemoPublicKey(c.key)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s with %s's key: %v", c.bic, c.key, err)
		}
	}
	susp := s.Clone()
	p := susp.mustParticipant(ISOSignerBIC)
	p.Status = Suspended
	susp.PutParticipant(p)
	if err := CheckDelegateSigner(susp, ISOSignerBIC, DemoPublicKey(ISOSignerBIC)); err == nil || !strings.Contains(err.Error(), "SUSPENDED") {
		t.Errorf("a SUSPENDED signer: %v", err)
	}
}
