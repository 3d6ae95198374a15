package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"
)

// Exit: the status of each kind of error, and the error said as one line
// a terminal does not act on.
func TestExit(t *testing.T) {
	for _, c := range []struct {
		err  error
		code int
		said string
	}{
		{nil, 0, ""},
		{flag.ErrHelp, 0, ""},
		{ExitCode{Code: 1}, 1, ""},
		{UsageError{"--in is required"}, 2, "ste match: --in is required\n"},
		{ExitCode{Err: errors.New("no brokers"), Code: 2}, 2, "ste match: no brokers\n"},
		{errors.New("first\nsecond \x1b[31m"), 1, "ste match: first; second \\u001b[31m\n"},
	} {
		var stderr bytes.Buffer
		if got := Exit("match", c.err, &stderr); got != c.code || stderr.String() != c.said {
			t.Errorf("Exit(%v) = %d, said %q; want %d, %q", c.err, got, stderr.String(), c.code, c.said)
		}
	}
}

func TestMainDispatch(t *testing.T) {
	var ran []string
	cmd := func(name string) Command {
		return Command{Name: name, Run: func(context.Context, []string) error { return nil }}
	}
	cmds := []Command{cmd("topics create"), cmd("diff"), cmd("topics dump")}
	exec := func(c *Command, args []string) int { ran = append(ran, c.Name+" "+strings.Join(args, ",")); return 0 }
	usage := func(w io.Writer, cs []Command) { w.Write([]byte("usage\n")) }
	call := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := Main(cmds, args, &out, &errOut, usage, exec)
		return code, out.String(), errOut.String()
	}
	if code, out, _ := call(); code != 0 || out != "usage\n" {
		t.Errorf("no arguments: %d %q", code, out)
	}
	call("topics", "create", "--partitions", "4")
	call("diff", "a", "b")
	if !slices.Equal(ran, []string{"topics create --partitions,4", "diff a,b"}) {
		t.Errorf("ran %q", ran)
	}
	if code, out, _ := call("topics"); code != 0 || out != "usage: ste topics {create|dump} [flags]\n" {
		t.Errorf("topics: %d %q", code, out)
	}
	if code, _, errOut := call("topics", "drop"); code != 2 || errOut != "ste topics: unknown subcommand \"drop\" (want create, dump)\n" {
		t.Errorf("topics drop: %d %q", code, errOut)
	}
	if code, _, errOut := call("nope"); code != 2 || errOut != "ste: unknown command \"nope\" (run ste --help)\n" {
		t.Errorf("nope: %d %q", code, errOut)
	}
}

// Flags may come before, between and after the arguments; a stray
// argument where none is taken is a usage error.
func TestReadArgsAndInterleaved(t *testing.T) {
	fs := Flags("exceptions show", "ID")
	asJSON := fs.Bool("json", false, "")
	ids, err := fs.ReadArgs([]string{"e1", "--json", "e2"})
	if err != nil || !*asJSON || !slices.Equal(ids, []string{"e1", "e2"}) {
		t.Fatalf("ReadArgs: %v %v %v", ids, *asJSON, err)
	}
	fs = Flags("diff", "A B")
	lines := fs.Int("lines", 20, "")
	names, err := fs.Interleaved([]string{"a", "--lines", "3", "b"})
	if err != nil || *lines != 3 || !slices.Equal(names, []string{"a", "b"}) {
		t.Fatalf("Interleaved: %v %v %v", names, *lines, err)
	}
	fs = Flags("stop", "")
	var ue UsageError
	if err := fs.Read([]string{"extra"}); !errors.As(err, &ue) || ue.Msg != `unexpected argument "extra"` {
		t.Fatalf("a stray argument: %v", err)
	}
	fs = Flags("stop", "")
	fs.LogFlags()
	if err := fs.Read([]string{"--log-level", "loud"}); !errors.As(err, &ue) {
		t.Fatalf("a bad log level: %v", err)
	}
}

// --retention: a duration as package when reads it, under an hour only
// with --allow-short-retention, never zero or negative; empty is 0.
func TestRetention(t *testing.T) {
	get := func(args ...string) (time.Duration, error) {
		fs := Flags("match", "")
		r := AddRetention(fs, "", "")
		if err := fs.Read(args); err != nil {
			return 0, err
		}
		return r.Get()
	}
	if d, err := get("--retention", "3d"); err != nil || d != 72*time.Hour {
		t.Errorf("3d: %v %v", d, err)
	}
	if d, err := get(); err != nil || d != 0 {
		t.Errorf("none: %v %v", d, err)
	}
	if _, err := get("--retention", "30m"); err == nil || !strings.Contains(err.Error(), "--allow-short-retention") {
		t.Errorf("30m: %v", err)
	}
	if d, err := get("--retention", "30m", "--allow-short-retention"); err != nil || d != 30*time.Minute {
		t.Errorf("30m allowed: %v %v", d, err)
	}
	if _, err := get("--retention", "0s"); err == nil {
		t.Error("0s taken")
	}
}

func TestBars(t *testing.T) {
	if got := FractionBar(5, 10); got != "[==========>          ]" {
		t.Errorf("FractionBar(5, 10) = %q", got)
	}
	if got := FractionBar(0, 0); got != "[====================>]" {
		t.Errorf("FractionBar(0, 0) = %q", got)
	}
	if got := Bar(3000); got != "[===>                 ]" {
		t.Errorf("Bar(3000) = %q", got)
	}
}

// Issue 45, finding 10: STE_PPROF's listener does not answer a DNS-rebound
// name (a page in a browser reading /debug/pprof/cmdline) nor another site.
func TestPprofRefusesReboundHost(t *testing.T) {
	srv := httptest.NewServer(PprofHandler())
	defer srv.Close()
	get := func(mod func(*http.Request)) int {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/debug/pprof/cmdline", nil)
		mod(req)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := get(func(r *http.Request) { r.Host = "attacker.example" }); got != http.StatusForbidden {
		t.Errorf("rebound Host: %d, want 403", got)
	}
	if got := get(func(r *http.Request) { r.Header.Set("Sec-Fetch-Site", "cross-site") }); got != http.StatusForbidden {
		t.Errorf("cross-site: %d, want 403", got)
	}
	if got := get(func(r *http.Request) {}); got != http.StatusOK {
		t.Errorf("from the command line: %d, want 200", got)
	}
}

// TestProgressBar: the bar of ste gen and ste bench — a fraction of a known
// total, the count, a detail and the time — and sizes as people read them.
func TestProgressBar(t *testing.T) {
	var b strings.Builder
	bar := NewProgressBar(&b, 10000, "trades")
	bar.Set(4500, "31.2 MB written")
	if got, want := bar.Line(12*time.Second), "[=========>           ] 4500/10000 trades, 31.2 MB written, 12s"; got != want {
		t.Errorf("line %q, want %q", got, want)
	}
	bar.Set(10000, "69.4 MB written")
	bar.Done()
	if out := b.String(); !strings.HasPrefix(out, "\r") || !strings.Contains(out, "10000/10000 trades, 69.4 MB written") || !strings.HasSuffix(out, "\n") {
		t.Errorf("drawn: %q", out)
	}
	for n, want := range map[int64]string{999: "999 B", 12500: "12.5 kB", 728_400_000: "728.4 MB", 2_500_000_000: "2.50 GB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}
