package conformance

// The adversarial suite, trust half (issue 30): an attacker who can write
// the namespace's topics, a web page open in the operator's browser, and a
// careless tokens file — replayed against the binaries. Findings 1–3 (the
// analytics endpoint, the registry, the lookup listener) are their
// engineers' suites; finding 10 (Helm) is deploy/'s TestHelmGuards.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Findings 4, 6 and 7: forged exceptions and states are not believed by
// ste exceptions, a real rejected message's control characters reach the
// terminal escaped, and one forged origin record does not let ste replay
// --delete remove a live namespace (which needs its name typed again).
func TestAdversarial_ForgedControlRecords(t *testing.T) {
	if testing.Short() {
		t.Skip("starts ste broker and ste process")
	}
	brokers := steBroker(t)
	ns := fmt.Sprintf("advt%d", time.Now().UnixNano()%1e9)
	// Every ste of the namespace holds one utility secret.
	secret := filepath.Join(t.TempDir(), "utility.secret")
	if err := os.WriteFile(secret, []byte("0123456789abcdef0123456789abcdef"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("STE_UTILITY_SECRET", secret)
	ste := func(args ...string) execResult {
		t.Helper()
		return execSteEnv(t, nil, time.Minute, append(args, "--brokers", brokers, "--namespace", ns)...)
	}
	for _, args := range [][]string{{"topics", "create"}, {"refdata", "load", "--dir", refDir}} {
		if r := ste(args...); r.code != 0 {
			t.Fatalf("ste %v: exit %d\n%s", args, r.code, r.stderr)
		}
	}
	proc := startSteProcess(t, "--brokers", brokers, "--namespace", ns, "--http", "")
	proc.waitLog(t, "processors ready", time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()

	// A rejected message whose MsgId holds what a terminal would act on.
	// XML carries no ESC, but a carriage return, C1 controls and bidi
	// overrides it does (as character references here).
	hostile := "<Msg><Header><MsgType>NOE</MsgType><Sender>BRK&#x202e;GB</Sender><MsgId>A&#13;&#x9b;2J&#x85;B</MsgId></Header><Body/></Msg>"
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: ns + ".inbound", Value: []byte(hostile)}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	var list []struct {
		ID     string `json:"id"`
		Detail string `json:"detail"`
		State  struct {
			State string `json:"state"`
		} `json:"state"`
	}
	deadline := time.Now().Add(time.Minute)
	for len(list) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no exception within a minute:\n%s", proc.log)
		}
		time.Sleep(200 * time.Millisecond)
		r := ste("exceptions", "list", "--json")
		if r.code == 0 {
			json.Unmarshal([]byte(r.stdout), &list)
		}
	}
	id := list[0].ID
	for _, args := range [][]string{{"exceptions", "list"}, {"exceptions", "show", id}, {"exceptions", "list", "--json"}} {
		r := ste(args...)
		if r.code != 0 {
			t.Fatalf("ste %v: exit %d %s", args, r.code, r.stderr)
		}
		if strings.ContainsAny(r.stdout, "\x1b\r\x07\u009b\u0085\u202e") {
			t.Errorf("finding 7: ste %v wrote a control character to the terminal: %q", args, r.stdout)
		}
	}

	// Forged: the same id with the attacker's payload, a state resolving it.
	forged, _ := json.Marshal(map[string]any{"id": id, "reason": "SCHEMA", "detail": "forged", "payload": []byte("<Msg>evil</Msg>"),
		"source_partition": -1, "source_offset": -1})
	state, _ := json.Marshal(map[string]any{"id": id, "state": "resolved", "by": "mallory", "at": time.Now().Add(time.Hour)})
	for _, r := range []*kgo.Record{{Topic: ns + ".exceptions", Value: forged}, {Topic: ns + ".exception-states", Key: []byte(id), Value: state},
		{Topic: ns + ".exceptions", Value: forged, Headers: []kgo.RecordHeader{{Key: "ste-proof", Value: make([]byte, 32)}}}} {
		if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	r := ste("exceptions", "show", id, "--json")
	if r.code != 0 || strings.Contains(r.stdout, "forged") || strings.Contains(r.stdout, "mallory") || !strings.Contains(r.stdout, `"state": "open"`) {
		t.Errorf("finding 6: ste exceptions show after the forgeries: exit %d\n%s", r.code, r.stdout)
	}
	if !strings.Contains(r.stderr, "lack the utility's proof") {
		t.Errorf("finding 6: the skipped records are not counted: %q", r.stderr)
	}

	// Finding 4: a forged replay origin on the live namespace.
	origin, _ := json.Marshal(map[string]any{"kind": "replay", "from": "elsewhere", "state": "complete"})
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: ns + ".origin", Key: []byte("replay:elsewhere"), Value: origin}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	replay := func(args ...string) execResult {
		return execSteEnv(t, nil, time.Minute, append([]string{"replay", "--brokers", brokers}, args...)...)
	}
	if r := replay("--delete", ns); r.code != 2 || !strings.Contains(r.stderr, "--confirm") {
		t.Errorf("finding 4: --delete without --confirm: exit %d %s", r.code, r.stderr)
	}
	if r := replay("--delete", ns, "--confirm", ns); r.code == 0 || !strings.Contains(r.stderr, "without its proof") {
		t.Errorf("finding 4: a live namespace with a forged origin: exit %d %s%s", r.code, r.stdout, r.stderr)
	}
	if r := ste("exceptions", "list"); r.code != 0 {
		t.Errorf("finding 4: the namespace is gone: %s", r.stderr)
	}
}

// Findings 5, 8, 9 and the roles, against a running ste console.
func TestAdversarial_Console(t *testing.T) {
	if testing.Short() {
		t.Skip("starts ste broker and ste console")
	}
	brokers := steBroker(t)
	dir := t.TempDir()
	write := func(name, body string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, mode)
		return p
	}
	// Finding 9: refused at start.
	for _, c := range []struct{ body, want string }{
		{"alice:tok;en-0123456789abcdef\n", "cannot send back"},
		{"alice:tok\"en-0123456789abcdef\n", "cannot send back"},
		{"alice:tok\\en-0123456789abcdef\n", "cannot send back"},
	} {
		r := execSte(t, "console", "--brokers", brokers, "--addr", "127.0.0.1:0", "--auth-tokens", write("bad", c.body, 0o600))
		if r.code == 0 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("finding 9: tokens %q: exit %d %s", c.body, r.code, r.stderr)
		}
	}
	if r := execSte(t, "console", "--brokers", brokers, "--addr", "127.0.0.1:0", "--auth-tokens",
		write("open", "alice:alice-token-0123456789\n", 0o644)); r.code == 0 || !strings.Contains(r.stderr, "chmod 600") {
		t.Errorf("finding 9: a world-readable tokens file: exit %d %s", r.code, r.stderr)
	}

	start := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(steBin, append([]string{"console", "--brokers", brokers, "--addr", "127.0.0.1:0", "--no-analytics"}, args...)...)
		cmd.Env = append(os.Environ(), "STE_HOME="+t.TempDir())
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = &syncBuffer{}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		buf := make([]byte, 512)
		n, _ := out.Read(buf)
		i := strings.Index(string(buf[:n]), "http://")
		if i < 0 {
			t.Fatalf("ste console printed no address: %q %s", buf[:n], cmd.Stderr)
		}
		return strings.TrimSpace(string(buf[i:n]))
	}
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }, Timeout: 10 * time.Second}

	// Finding 5: a tokenless loopback console answers only its own names,
	// and never in a frame.
	base := start()
	req, _ := http.NewRequest(http.MethodGet, base, nil)
	req.Host = "rebound.evil.example"
	if resp, err := noRedirect.Do(req); err != nil || resp.StatusCode != http.StatusMisdirectedRequest {
		t.Errorf("finding 5: a rebound Host: %v %v", resp.StatusCode, err)
	}
	resp, err := noRedirect.Get(base)
	if err != nil || resp.StatusCode != http.StatusOK || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'") ||
		resp.Header.Get("X-Frame-Options") != "DENY" {
		t.Errorf("finding 5: framing headers %v %v", resp.Header, err)
	}
	req, _ = http.NewRequest(http.MethodPost, base+"exceptions/archive", strings.NewReader("id=0-0"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Authorization", "Bearer anything")
	if resp, err := noRedirect.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("finding 5: a Bearer header for a tokenless console's CSRF value: %v %v", resp.StatusCode, err)
	}

	// Finding 8 and the roles, with tokens.
	base = start("--auth-tokens", write("tokens", "alice:alice-token-0123456789\nrita:rita-token-0123456789:reader\n", 0o600))
	resp, err = noRedirect.PostForm(base+"login", url.Values{"token": {"alice-token-0123456789"}, "next": {"/\\evil.example/x"}})
	if err != nil || resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Errorf("finding 8: sign-in to /\\evil.example/x: %v %v", resp.Header.Get("Location"), err)
	}
	req, _ = http.NewRequest(http.MethodPost, base+"exceptions/archive", strings.NewReader("id=0-0"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Authorization", "Bearer rita-token-0123456789")
	if resp, err := noRedirect.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("roles: a reader's archive: %v %v", resp.StatusCode, err)
	}
	req, _ = http.NewRequest(http.MethodGet, base+"exceptions", nil)
	req.Header.Set("Authorization", "Bearer rita-token-0123456789")
	if resp, err := noRedirect.Do(req); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("roles: a reader's page: %v %v", resp.StatusCode, err)
	}
}
