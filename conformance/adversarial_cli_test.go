package conformance

// The adversarial suite, command-line half (issue 15): what a careless
// operator or an attacker can hand the binary — bad keys, special and huge
// files, bad namespaces, short retentions, brokers that are down or silent.
// Each must end in a one-line reason within a bounded time, never a hang, a
// stack trace or key material on the screen. The broker half is in
// adversarial_broker_test.go, hostile records in adversarial_records_test.go.

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// promptly bounds a command that must fail fast: a FIFO or /dev/zero must not
// make ste block or read until it runs out of memory.
const promptly = 20 * time.Second

// utilitySeed is the demo seed of the utility (docs/spec/messages.md §2).
func utilitySeed() []byte {
	s := sha256.Sum256([]byte("ste-demo-key:" + utilityBIC))
	return s[:]
}

func writeFile(t *testing.T, path string, b []byte) string {
	t.Helper()
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func fifo(t *testing.T, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	need(t, "a named pipe (mkfifo) in the test's directory", syscall.Mkfifo(p, 0o600))
	return p
}

// oneNOE writes a message-set file of one valid NOE.
func oneNOE(t *testing.T, dir string) string {
	t.Helper()
	return writeFile(t, filepath.Join(dir, "in.txt"), []byte(stdTrade("ADV-CLI").NOE().Line()+"\n"))
}

// The utility's key is accepted in its documented forms (the demo key of the
// utility here, so the usual signature invariants hold).
func TestAdversarial_UtilityKeyGoodForms(t *testing.T) {
	dir := t.TempDir()
	seed := utilitySeed()
	priv := ed25519.NewKeyFromSeed(seed)
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string][]byte{
		"seed.b64":  []byte(base64.StdEncoding.EncodeToString(seed) + "\n"),
		"key64.b64": []byte(base64.StdEncoding.EncodeToString(priv)),
		"key.pem":   pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}),
	} {
		t.Run(name, func(t *testing.T) {
			path := writeFile(t, filepath.Join(dir, name), content)
			r := runMatch(t, lines(stdTrade("KEY-1").All()...), func(o *runOpt) { o.extra = []string{"--utility-key", path} })
			if len(r.CLS) != 1 {
				t.Fatalf("with key file %s: %d CLS, want 1", name, len(r.CLS))
			}
		})
	}
}

// Issue 15, defects 2 and 5: a corrupt key, or a key path naming something
// that is not a key file, is refused with one line and promptly.
func TestAdversarial_UtilityKeyRefused(t *testing.T) {
	dir := t.TempDir()
	in := oneNOE(t, dir)
	random := make([]byte, 64)
	rand.Read(random)
	otherSeed := sha256.Sum256([]byte("other"))
	other := ed25519.NewKeyFromSeed(otherSeed[:])[32:]
	mixed := append(append([]byte(nil), utilitySeed()...), other...) // seed of one key, public half of another
	big := make([]byte, 1<<20)
	for i := range big {
		big[i] = 'A'
	}
	rsaLike := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte("not DER")})
	for _, c := range []struct{ name, path string }{
		{"64 random bytes", writeFile(t, filepath.Join(dir, "random.b64"), []byte(base64.StdEncoding.EncodeToString(random)))},
		{"public half of another key", writeFile(t, filepath.Join(dir, "mixed.b64"), []byte(base64.StdEncoding.EncodeToString(mixed)))},
		{"16 bytes", writeFile(t, filepath.Join(dir, "short.b64"), []byte(base64.StdEncoding.EncodeToString(random[:16])))},
		{"empty file", writeFile(t, filepath.Join(dir, "empty"), nil)},
		{"1 MiB file", writeFile(t, filepath.Join(dir, "big"), big)},
		{"bad PEM", writeFile(t, filepath.Join(dir, "bad.pem"), rsaLike)},
		{"missing file", filepath.Join(dir, "no-such-key")},
		{"a directory", dir},
		{"/dev/zero", "/dev/zero"},
		{"a FIFO nobody writes", fifo(t, dir, "key.fifo")},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, r := range []execResult{
				execSteEnv(t, nil, promptly, "match", "--in", in, "--out", filepath.Join(t.TempDir(), "o"), "--utility-key", c.path),
				execSteEnv(t, []string{"STE_UTILITY_KEY=" + c.path}, promptly, "match", "--in", in, "--out", filepath.Join(t.TempDir(), "o")),
			} {
				isUserError(t, "ste match --utility-key "+c.name, r)
				if !strings.Contains(r.stderr, "key") {
					t.Errorf("%s: the reason does not say it is about the key: %s", c.name, r.stderr)
				}
			}
		})
	}
}

// Key material given where a path belongs (STE_UTILITY_KEY=<the key>) is
// refused without being repeated on the screen or in logs.
func TestAdversarial_UtilityKeyContentNeverEchoed(t *testing.T) {
	dir := t.TempDir()
	in := oneNOE(t, dir)
	seed := utilitySeed()
	der, _ := x509.MarshalPKCS8PrivateKey(ed25519.NewKeyFromSeed(seed))
	pemText := string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	for name, secret := range map[string]string{
		"base64 seed":  base64.StdEncoding.EncodeToString(seed),
		"base64 key":   base64.StdEncoding.EncodeToString(ed25519.NewKeyFromSeed(seed)),
		"PEM document": pemText,
	} {
		t.Run(name, func(t *testing.T) {
			r := execSteEnv(t, []string{"STE_UTILITY_KEY=" + secret}, promptly, "match", "--in", in, "--out", filepath.Join(t.TempDir(), "o"))
			isUserError(t, "ste match with key material in STE_UTILITY_KEY", r)
			out := r.stdout + r.stderr
			for _, part := range strings.Split(secret, "\n") {
				if len(part) >= 16 && strings.Contains(out, part) {
					t.Fatalf("key material echoed: %q appears in %q", part, out)
				}
			}
			// ste process refuses it the same way, before dialling anything.
			r = execSteEnv(t, []string{"STE_UTILITY_KEY=" + secret}, promptly, "process", "--brokers", "127.0.0.1:1", "--http", "")
			if r.code == 0 || strings.Contains(r.stderr, base64.StdEncoding.EncodeToString(seed)[:16]) {
				t.Fatalf("ste process: exit %d, stderr %q", r.code, r.stderr)
			}
		})
	}
}

// Message-set and reference-data paths naming special files are refused
// promptly: /dev/zero would be read until memory runs out, a FIFO would block.
func TestAdversarial_SpecialInputFiles(t *testing.T) {
	dir := t.TempDir()
	in := oneNOE(t, dir)
	badRef := filepath.Join(dir, "ref-fifo")
	if err := os.CopyFS(badRef, os.DirFS(refDir)); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(badRef, "participants.csv"))
	fifo(t, badRef, "participants.csv")
	zeroRef := filepath.Join(dir, "ref-zero")
	if err := os.CopyFS(zeroRef, os.DirFS(refDir)); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(zeroRef, "securities.csv"))
	if err := os.Symlink("/dev/zero", filepath.Join(zeroRef, "securities.csv")); err != nil {
		t.Fatal(err)
	}
	out := func() string { return filepath.Join(t.TempDir(), "o") }
	for _, args := range [][]string{
		{"match", "--in", "/dev/zero", "--out", out()},
		{"match", "--in", fifo(t, dir, "in.fifo"), "--out", out()},
		{"match", "--in", dir, "--out", out()},
		{"match", "--in", in, "--out", out(), "--refdata", badRef},
		{"match", "--in", in, "--out", out(), "--refdata", zeroRef},
		{"gen", "--trades", "1", "--out", filepath.Join(dir, "g.txt"), "--refdata", zeroRef},
		{"refdata", "load", "--dir", zeroRef, "--brokers", "127.0.0.1:1"},
		{"drive", "--in", "/dev/zero", "--brokers", "127.0.0.1:1"},
	} {
		isUserError(t, "ste "+strings.Join(args, " "), execSteEnv(t, nil, promptly, args...))
	}
}

// A record far over the limit is TOO_LARGE like any other (the first 64 KiB
// kept), and the records after it are still processed.
func TestAdversarial_HugeRecordInFile(t *testing.T) {
	tr := oneAllocTrade("HUGE-1")
	huge := tr.NOE().Clone()
	huge.Tail = "<Pad>" + strings.Repeat("x", 8<<20) + "</Pad>"
	r := runMatch(t, append([]string{huge.Line()}, lines(tr.All()...)...))
	if r.Reason(1) != "TOO_LARGE" || len(r.CLS) != 1 {
		t.Fatalf("huge line: reason %q, %d CLS (want TOO_LARGE, then the trade matched)", r.Reason(1), len(r.CLS))
	}
	if d, _ := r.ExcAt(1)["detail"].(string); !strings.Contains(d, fmt.Sprint(len(huge.Line()))) {
		t.Errorf("TOO_LARGE detail %q does not give the record's size %d", d, len(huge.Line()))
	}
}

// Retention below an hour expires everything almost at once: refused unless
// asked for by name, by every command that takes --retention.
func TestAdversarial_ShortRetentionRefused(t *testing.T) {
	dir := t.TempDir()
	in := oneNOE(t, dir)
	for _, ret := range []string{"0s", "1ns", "59m59s", "0d"} {
		for _, args := range [][]string{
			{"match", "--in", in, "--out", filepath.Join(t.TempDir(), "o"), "--retention", ret},
			{"process", "--brokers", "127.0.0.1:1", "--http", "", "--retention", ret},
			{"topics", "create", "--brokers", "127.0.0.1:1", "--retention", ret},
			{"analytics", "--brokers", "127.0.0.1:1", "--retention", ret},
		} {
			r := execSteEnv(t, nil, promptly, args...)
			isUserError(t, "ste "+strings.Join(args, " "), r)
			if want := "--allow-short-retention"; !strings.HasPrefix(ret, "0") && !strings.Contains(r.stderr, want) {
				t.Errorf("ste %s: the reason does not name %s: %s", strings.Join(args, " "), want, r.stderr)
			}
			// Zero is never a retention: no flag makes it one.
			if strings.HasPrefix(ret, "0") {
				isUserError(t, "ste "+strings.Join(args, " ")+" --allow-short-retention",
					execSteEnv(t, nil, promptly, append(args, "--allow-short-retention")...))
			}
		}
	}
	// Asked for by name, a short retention runs: the first trade expires
	// once the second one's messages move the clock a minute on.
	a, b := oneAllocTrade("SHORT-1"), oneAllocTrade("SHORT-2")
	b.Base = a.Base.Add(time.Hour)
	r := runMatch(t, lines(a.NOE(), b.NOE()), func(o *runOpt) {
		o.retention = "1m"
		o.extra = []string{"--allow-short-retention"}
	})
	if len(r.StatusRounds(a.Key())) != 1 {
		t.Fatalf("with --retention 1m --allow-short-retention the first trade did not expire:\n%s", r.dump())
	}
}

// Namespaces become topic names: anything but letters, digits, - and _ is
// refused before a broker is dialled.
func TestAdversarial_BadNamespaces(t *testing.T) {
	dir := t.TempDir()
	in := oneNOE(t, dir)
	for _, ns := range []string{"", "a.b", "../etc", "a b", "ünï", "ste.inbound", strings.Repeat("n", 101)} {
		for _, args := range [][]string{
			{"topics", "create", "--namespace", ns},
			{"refdata", "load", "--dir", refDir, "--namespace", ns},
			{"drive", "--in", in, "--namespace", ns},
			{"process", "--http", "", "--namespace", ns},
		} {
			args = append(args, "--brokers", "127.0.0.1:1")
			r := execSteEnv(t, nil, promptly, args...)
			isUserError(t, "ste "+strings.Join(args[:2], " ")+" --namespace "+ns, r)
			if !strings.Contains(r.stderr, "namespace") {
				t.Errorf("namespace %q: the reason does not name it: %s", ns, r.stderr)
			}
		}
	}
}

// silentBroker accepts connections and never answers a byte: the worst
// broker there is, for bounded waits.
func silentBroker(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
	return ln.Addr().String()
}

// Unreachable and silent brokers: every broker-facing command gives up with a
// one-line reason in bounded time. (ste process logs its key message first;
// its reason is the last line.) The commands run side by side: against a
// silent broker each waits out its whole timeout.
func TestAdversarial_UnreachableAndSilentBrokers(t *testing.T) {
	dir := t.TempDir()
	in := oneNOE(t, dir)
	keyFile := writeFile(t, filepath.Join(dir, "key"), []byte(base64.StdEncoding.EncodeToString(utilitySeed())))
	silent := silentBroker(t)
	type run struct {
		args []string
		r    execResult
		took time.Duration
	}
	var runs []*run
	for _, addr := range []string{"127.0.0.1:1", silent} {
		for _, args := range [][]string{
			{"topics", "create"},
			{"refdata", "load", "--dir", refDir},
			{"drive", "--in", in},
			{"topics", "dump", "--topic", "ste.cls"},
			{"process", "--http", "", "--utility-key", keyFile},
		} {
			runs = append(runs, &run{args: append(append([]string(nil), args...), "--brokers", addr)})
		}
	}
	var wg sync.WaitGroup
	for _, r := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			r.r = execSteEnv(t, nil, time.Minute, r.args...)
			r.took = time.Since(start)
		}()
	}
	wg.Wait()
	for _, r := range runs {
		what := "ste " + strings.Join(r.args, " ")
		if r.r.code <= 0 || r.took > 45*time.Second {
			t.Errorf("%s: exit %d after %v, want a non-zero exit within 45 s\n%s", what, r.r.code, r.took, r.r.stderr)
			continue
		}
		noStackTrace(t, what, r.r.stderr)
		ls := nonEmptyLines(r.r.stderr)
		if r.args[0] != "process" && len(ls) != 1 {
			t.Errorf("%s: %d lines on stderr, want one:\n%s", what, len(ls), r.r.stderr)
		}
		if len(ls) == 0 || !strings.HasPrefix(ls[len(ls)-1], "ste "+r.args[0]) {
			t.Errorf("%s: no one-line reason at the end of stderr:\n%s", what, r.r.stderr)
		}
	}
}
