package conformance

import (
	"bytes"
	"compress/gzip"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/csv"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

func nonEmptyLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

func noStackTrace(t *testing.T, what, stderr string) {
	t.Helper()
	for _, bad := range []string{"goroutine ", "panic:", "runtime/debug", ".go:"} {
		if strings.Contains(stderr, bad) {
			t.Errorf("%s: stderr looks like a Go stack trace (%q):\n%s", what, bad, stderr)
		}
	}
}

// failsWithOneLine runs ste with args and checks docs/spec/cli.md's rule for a user
// error: a non-zero exit, a one-line reason on stderr, no stack trace.
func failsWithOneLine(t *testing.T, args ...string) {
	t.Helper()
	isUserError(t, "ste "+strings.Join(args, " "), execSte(t, args...))
}

// isUserError checks a finished run against docs/spec/cli.md's rule for a user error.
func isUserError(t *testing.T, what string, r execResult) {
	t.Helper()
	if r.code == 0 {
		t.Errorf("%s: exit 0, want non-zero", what)
	}
	if r.code < 0 {
		t.Errorf("%s: killed at its time limit, want a prompt one-line error", what)
	}
	if n := len(nonEmptyLines(r.stderr)); n != 1 {
		t.Errorf("%s: %d lines on stderr, want a one-line reason:\n%s", what, n, r.stderr)
	}
	noStackTrace(t, what, r.stderr)
}

// docs/spec/cli.md: every subcommand answers --help (exit 0).
func TestCLI_HelpExitsZero(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"match", "--help"}, {"gen", "--help"}, {"refdata", "gen", "--help"}, {"iso20022", "--help"},
		{"fixgw", "--help"}, {"fixgw", "passwd", "--help"}, {"fixgw", "reset-seq", "--help"}} {
		r := execSte(t, args...)
		if r.code != 0 {
			t.Errorf("ste %s: exit %d, want 0", strings.Join(args, " "), r.code)
		}
		if strings.TrimSpace(r.stdout+r.stderr) == "" {
			t.Errorf("ste %s: no help text", strings.Join(args, " "))
		}
		noStackTrace(t, strings.Join(args, " "), r.stderr)
	}
}

// docs/spec/cli.md: a bad flag or a missing required flag exits non-zero with a
// one-line reason and never a Go stack trace.
func TestCLI_BadFlagsOneLineReason(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.txt")
	os.WriteFile(in, []byte(stdTrade("CLI-1").NOE().Line()+"\n"), 0o644)
	readable := filepath.Join(dir, "creds-readable.csv")
	os.WriteFile(readable, []byte("bic,password_hash\n"), 0o644)
	cases := [][]string{
		{"match", "--bogus"},
		{"match"},
		{"match", "--in", in},
		{"match", "--out", dir},
		{"match", "--in", in, "--out", filepath.Join(dir, "o"), "--retention", "notaduration"},
		{"gen", "--bogus"},
		{"gen", "--out", filepath.Join(dir, "g.txt")},
		{"gen", "--trades", "2"},
		{"gen", "--trades", "notanumber", "--out", filepath.Join(dir, "g.txt")},
		{"refdata", "gen"},
		{"refdata", "gen", "--bogus"},
		// Out-of-range values are refused before any broker is dialled.
		{"topics", "create", "--partitions", "0"},
		{"topics", "create", "--retention", "notaduration"},
		{"broker", "--partitions", "0"},
		{"drive", "--in", in, "--rate", "-1"},
		{"bench", "--trades", "5", "--rate", "-3"},
		{"monitor", "--interval", "0s"},
		{"report", "throughput", "--window", "-5s"},
		// The exceptions workflow and the console check their flags first.
		{"exceptions", "retry"},
		{"exceptions", "archive", "--brokers", "127.0.0.1:1"},
		{"exceptions", "list", "--state", "bogus"},
		{"exceptions", "list", "--since", "yesterday-ish"},
		{"exceptions", "show"},
		{"exceptions", "show", "1-2", "3-4"},
		{"console", "--auth-tokens", filepath.Join(dir, "no-tokens-file")},
		{"console", "--namespace", "bad namespace"},
		// ste iso20022 needs a signing key, one way, and a positive timeout.
		{"iso20022"},
		{"iso20022", "--demo-key", "--signer-key", filepath.Join(dir, "no-key")},
		{"iso20022", "--demo-key", "--produce-timeout", "0s"},
		{"iso20022", "--demo-key", "--addr", "192.0.2.1:8444"},
		// ste fixgw needs a signing key and logon passwords, each one way;
		// beyond loopback, TLS; a credentials file only its owner reads.
		{"fixgw"},
		{"fixgw", "--demo-key"},
		{"fixgw", "--demo-key", "--demo-credentials", "--credentials", filepath.Join(dir, "creds")},
		{"fixgw", "--demo-key", "--demo-credentials", "--addr", "192.0.2.1:9880", "--store", dir},
		{"fixgw", "--demo-key", "--demo-credentials", "--max-message-size", "big", "--store", dir},
		{"fixgw", "--demo-key", "--credentials", readable, "--store", dir},
		{"fixgw", "passwd", "--bic", "AQGOSGSG"},
		{"fixgw", "reset-seq", "--store", dir},
		{"fixgw", "reset-seq", "--store", dir, "--bic", "AQGOSGSG"},
	}
	for _, args := range cases {
		failsWithOneLine(t, args...)
	}
}

// docs/spec/cli.md: a user error at run time (missing input file, missing refdata
// directory) exits non-zero with a one-line reason, no stack trace.
func TestCLI_MissingFilesOneLineReason(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.txt")
	os.WriteFile(in, []byte(stdTrade("CLI-2").NOE().Line()+"\n"), 0o644)
	cases := [][]string{
		{"match", "--in", filepath.Join(dir, "does-not-exist.txt"), "--out", filepath.Join(dir, "o1")},
		{"match", "--in", in, "--out", filepath.Join(dir, "o2"), "--refdata", filepath.Join(dir, "no-refdata")},
		{"refdata", "load", "--dir", filepath.Join(dir, "no-refdata")},
		{"gen", "--trades", "1", "--out", filepath.Join(dir, "g.txt"), "--refdata", in},
	}
	for _, args := range cases {
		failsWithOneLine(t, args...)
	}
}

// docs/spec/cli.md: `ste refdata gen --out DIR` writes the five CSV files of
// docs/spec/messages.md §8 with their header rows; the same seed gives the same files;
// participants carry their demo public keys; a UTILITY row for STEUTLSGXXX.
// Version 3 (§8): the signers column, the adapters' signer rows STEUTLSGFIX
// and STEUTLSGISO (role SIGNER, ACTIVE, demo keys) listed by every BROKER,
// INVMGR and CUSTODIAN, and an affirmation.csv with its header and no row.
func TestCLI_RefdataGen(t *testing.T) {
	a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	for _, d := range []string{a, b} {
		r := execSte(t, "refdata", "gen", "--out", d, "--seed", "5")
		if r.code != 0 {
			t.Fatalf("refdata gen: exit %d: %s", r.code, r.stderr)
		}
	}
	headers := map[string]string{
		"currencies.csv":   "code,minor_units",
		"countries.csv":    "code,name",
		"securities.csv":   "isin,name,currency,country,status",
		"participants.csv": "bic,name,roles,country,status,public_key,signers",
		"holidays.csv":     "country,date",
		"affirmation.csv":  "invmgr,mode",
	}
	for f, h := range headers {
		x, err := os.ReadFile(filepath.Join(a, f))
		if err != nil {
			t.Errorf("missing %s", f)
			continue
		}
		y, _ := os.ReadFile(filepath.Join(b, f))
		if string(x) != string(y) {
			t.Errorf("%s differs between two runs with the same seed", f)
		}
		if first := strings.SplitN(string(x), "\n", 2)[0]; strings.TrimSpace(first) != h {
			t.Errorf("%s header %q, want %q", f, first, h)
		}
	}
	pf, _ := os.Open(filepath.Join(a, "participants.csv"))
	recs, err := csv.NewReader(pf).ReadAll()
	pf.Close()
	if err != nil {
		t.Fatal(err)
	}
	util := false
	signerRows := 0
	for i, rec := range recs {
		if i == 0 || len(rec) < 7 {
			continue
		}
		pk, _ := base64.StdEncoding.DecodeString(rec[5])
		if len(pk) != ed25519.PublicKeySize || string(pk) != string(demoPub(rec[0])) {
			t.Errorf("participant %s: public key is not its demo key", rec[0])
		}
		if rec[0] == utilityBIC && strings.Contains(rec[2], "UTILITY") {
			util = true
		}
		if rec[0] == "STEUTLSGFIX" || rec[0] == "STEUTLSGISO" {
			if rec[2] != "SIGNER" || rec[4] != "ACTIVE" {
				t.Errorf("signer row %v", rec)
			}
			signerRows++
		}
		principal := false
		for _, role := range strings.Split(rec[2], ";") {
			principal = principal || role == "BROKER" || role == "INVMGR" || role == "CUSTODIAN"
		}
		listed := map[string]bool{}
		for _, s := range strings.Split(rec[6], ";") {
			listed[strings.TrimSpace(s)] = true
		}
		if principal != (listed["STEUTLSGFIX"] && listed["STEUTLSGISO"]) {
			t.Errorf("participant %s (%s): signers %q", rec[0], rec[2], rec[6])
		}
	}
	if !util {
		t.Errorf("no UTILITY row for %s", utilityBIC)
	}
	if signerRows != 2 {
		t.Errorf("%d of the adapters' signer rows", signerRows)
	}
	if af, _ := os.ReadFile(filepath.Join(a, "affirmation.csv")); len(splitLines(string(af))) != 1 {
		t.Errorf("affirmation.csv holds rows: %q", af)
	}
	// securities carry valid ISIN check digits
	sf, _ := os.Open(filepath.Join(a, "securities.csv"))
	srecs, _ := csv.NewReader(sf).ReadAll()
	sf.Close()
	bad := 0
	for i, rec := range srecs {
		if i > 0 && len(rec[0]) == 12 && mkISIN(rec[0][:11]) != rec[0] {
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%d generated ISINs with a wrong check digit", bad)
	}
}

// docs/spec/cli.md: `ste gen` writes a signed message set that `ste match` matches
// against the same reference data; the realistic mix also runs.
func TestCLI_GenThenMatch(t *testing.T) {
	dir := t.TempDir()
	rd := filepath.Join(dir, "rd")
	if r := execSte(t, "refdata", "gen", "--out", rd, "--seed", "9"); r.code != 0 {
		t.Fatalf("refdata gen: %s", r.stderr)
	}
	f := filepath.Join(dir, "std.txt")
	if r := execSte(t, "gen", "--trades", "4", "--out", f, "--refdata", rd, "--seed", "3"); r.code != 0 {
		t.Fatalf("gen: %s", r.stderr)
	}
	raw, _ := os.ReadFile(f)
	in := splitLines(string(raw))
	r := runMatch(t, in, withRefdata(rd))
	if r.num("cls") != 4 || r.num("exceptions") != 0 || r.num("messages") != 28 {
		t.Errorf("standard set: summary %s, want messages 28 cls 4 exceptions 0", r.Stdout)
	}
	f2 := filepath.Join(dir, "real.txt")
	if r := execSte(t, "gen", "--trades", "150", "--out", f2, "--refdata", rd, "--mix", "realistic", "--seed", "3"); r.code != 0 {
		t.Fatalf("gen realistic: %s", r.stderr)
	}
	raw, _ = os.ReadFile(f2)
	r2 := runMatch(t, strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n"), withRefdata(rd))
	if r2.num("messages") <= 0 {
		t.Errorf("realistic: summary %s", r2.Stdout)
	}
}

// docs/spec/cli.md: "A .gz or .zst suffix means compressed" — ste match reads both.
func TestCLI_MatchCompressedInput(t *testing.T) {
	tr := stdTrade("GZ-1")
	var plain strings.Builder
	for _, l := range lines(tr.All()...) {
		plain.WriteString(l + "\n")
	}
	dir := t.TempDir()
	gzPath := filepath.Join(dir, "set.txt.gz")
	var gzBuf bytes.Buffer
	zw := gzip.NewWriter(&gzBuf)
	zw.Write([]byte(plain.String()))
	zw.Close()
	os.WriteFile(gzPath, gzBuf.Bytes(), 0o644)
	zstPath := filepath.Join(dir, "set.txt.zst")
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(zstPath, enc.EncodeAll([]byte(plain.String()), nil), 0o644)
	enc.Close()
	for _, p := range []string{gzPath, zstPath} {
		out := filepath.Join(dir, "out-"+filepath.Ext(p)[1:])
		r := execSte(t, "match", "--in", p, "--out", out, "--refdata", refDir)
		if r.code != 0 {
			t.Errorf("%s: exit %d %s", p, r.code, r.stderr)
			continue
		}
		if !strings.Contains(r.stdout, `"cls":1`) || !strings.Contains(r.stdout, `"messages":7`) {
			t.Errorf("%s: summary %s, want messages 7 cls 1", p, r.stdout)
		}
	}
	// ste gen writes compressed sets readable by a standard decoder
	g := filepath.Join(dir, "gen.txt.gz")
	if r := execSte(t, "gen", "--trades", "1", "--out", g); r.code != 0 {
		t.Fatalf("gen .gz: %s", r.stderr)
	}
	f, _ := os.Open(g)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("ste gen .gz output is not gzip: %v", err)
	}
	b, _ := io.ReadAll(zr)
	if n := len(splitLines(string(b))); n != 7 {
		t.Errorf("ste gen .gz: %d lines, want 7", n)
	}
}

// docs/spec/cli.md: the last line of a message set may lack its newline.
func TestCLI_MatchLastLineWithoutNewline(t *testing.T) {
	tr := stdTrade("NONL-1")
	dir := t.TempDir()
	p := filepath.Join(dir, "in.txt")
	os.WriteFile(p, []byte(strings.Join(lines(tr.All()...), "\n")), 0o644)
	r := execSte(t, "match", "--in", p, "--out", filepath.Join(dir, "o"), "--refdata", refDir)
	if r.code != 0 || !strings.Contains(r.stdout, `"cls":1`) || !strings.Contains(r.stdout, `"messages":7`) {
		t.Errorf("exit %d, summary %s", r.code, r.stdout)
	}
}

// docs/spec/cli.md: "These subcommands and flags are a contract ... these must exist";
// "Every subcommand answers --help". (Subcommands beyond match/gen/refdata
// gen need a broker to *run*, but --help must work without one.)
func TestCLI_AllContractSubcommandsAnswerHelp(t *testing.T) {
	for _, sub := range [][]string{
		{"refdata", "gen"}, {"gen"}, {"match"}, {"broker"}, {"topics", "create"}, {"refdata", "load"},
		{"process"}, {"drive"}, {"bench"}, {"analytics"}, {"report"}, {"demo"},
	} {
		args := append(append([]string{}, sub...), "--help")
		r := execSte(t, args...)
		if r.code != 0 {
			t.Errorf("ste %s: exit %d, want 0 (%s)", strings.Join(args, " "), r.code, strings.TrimSpace(r.stderr))
		}
		noStackTrace(t, strings.Join(args, " "), r.stderr)
	}
}

// docs/spec/cli.md generic rules for the broker-facing subcommands present in the
// binary: a bad flag, and an unreachable broker, give a non-zero exit with a
// one-line reason and no stack trace. Subcommands not (yet) present are
// reported by TestCLI_AllContractSubcommandsAnswerHelp and skipped here.
func TestCLI_BrokerSubcommands_BadFlagAndUnreachable(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.txt")
	os.WriteFile(in, []byte(stdTrade("CLI-3").NOE().Line()+"\n"), 0o644)
	dead := "127.0.0.1:1"
	cases := []struct {
		sub  []string
		args []string
	}{
		{[]string{"topics", "create"}, []string{"--brokers", dead}},
		{[]string{"refdata", "load"}, []string{"--dir", refDir, "--brokers", dead}},
		{[]string{"drive"}, []string{"--in", in, "--brokers", dead}},
	}
	for _, c := range cases {
		h := execSte(t, append(append([]string{}, c.sub...), "--help")...)
		if h.code != 0 {
			t.Logf("ste %s not present; skipped", strings.Join(c.sub, " "))
			continue
		}
		for _, args := range [][]string{
			append(append([]string{}, c.sub...), "--no-such-flag"),
			append(append([]string{}, c.sub...), c.args...),
		} {
			failsWithOneLine(t, args...)
		}
	}
}
