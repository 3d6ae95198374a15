package e2e

import (
	"fmt"
	"net"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestDemoConsolePortBusy (issue 51): ste demo --console finds its console's
// address taken before it runs anything — at once, in one line naming
// --console-addr — rather than after the whole demo.
func TestDemoConsolePortBusy(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	defer ln.Close()
	cmd := exec.Command(steBin, "demo", "--console", "--console-addr", ln.Addr().String())
	cmd.Env = append(cmd.Environ(), "STE_HOME="+t.TempDir())
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("ste demo ran with its console's port taken:\n%s", out)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the busy port was said after %v", d)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], "--console-addr "+ln.Addr().String()) || !strings.Contains(lines[0], "in use") {
		t.Errorf("want one line naming --console-addr and the address in use, got:\n%s", out)
	}
}

// TestTwoGatewaysOneHost (issue 51): two ste gateway instances on one host,
// each on its own --addr, both start: their /metrics, by default beside
// their own port (--addr + 1022), no longer collide on 127.0.0.1:9465.
func TestTwoGatewaysOneHost(t *testing.T) {
	free := func() int {
		for {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			must(t, err)
			p := l.Addr().(*net.TCPAddr).Port
			l.Close()
			if p+1022 > 65535 {
				continue
			}
			if m, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p+1022)); err == nil {
				m.Close()
				return p
			}
		}
	}
	env := []string{"STE_HOME=" + t.TempDir(), "STE_LOG_FORMAT=text"}
	var gws []*lines
	for range 2 {
		p := free()
		gw := startLines(t, env, "gateway", "--brokers", "127.0.0.1:1", "--addr", fmt.Sprintf("127.0.0.1:%d", p))
		gw.waitFor(t, regexp.MustCompile(fmt.Sprintf(`metrics=127.0.0.1:%d`, p+1022)), 30*time.Second)
		gws = append(gws, gw)
	}
	for _, gw := range gws {
		select {
		case err := <-gw.done:
			t.Fatalf("a gateway stopped (%v):\n%s", err, gw.out())
		default:
		}
	}
}
