package e2e

import (
	"bufio"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Every daemon told to stop after its broker has gone exits within the
// shutdown bound, logging what it gave up on if it had to (issue: ste
// process once logged "processors stopped cleanly" and never exited, blocked
// in a produce whose retries nothing bounded). The broker is killed with
// SIGKILL mid-run, so requests are in flight; then each daemon gets SIGTERM.
func TestShutdownBoundedWithBrokerGone(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a broker and daemons")
	}
	broker := exec.Command(steBin, "broker", "--addr", "127.0.0.1:0", "--data", t.TempDir())
	stdout, _ := broker.StdoutPipe()
	broker.Stderr = io.Discard
	must(t, broker.Start())
	t.Cleanup(func() { broker.Process.Kill(); broker.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("ste broker printed no address: %v", err)
	}
	addr := strings.TrimSpace(line)
	f := prepareFixture(t, addr, 50)
	const bound = 5 * time.Second
	env := append(f.env, "STE_HOME="+t.TempDir(), fmt.Sprintf("STE_SHUTDOWN_BOUND=%v", bound))
	ste(t, env, "topics", "create")

	daemons := map[string]*lines{
		"process": startLines(t, env, "process", "--refdata", f.refdata, "--http", "127.0.0.1:0"),
		"console": startLines(t, env, "console", "--addr", "127.0.0.1:0"),
		"monitor": startLines(t, env, "monitor", "--interval", "200ms"),
	}
	daemons["process"].waitFor(t, regexp.MustCompile(`reference data loaded`), 60*time.Second)
	ste(t, env, "drive", "--in", f.set)
	time.Sleep(time.Second) // let the daemons have requests in flight

	must(t, broker.Process.Kill())
	broker.Wait()
	time.Sleep(500 * time.Millisecond)
	for name, d := range daemons {
		start := time.Now()
		d.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-d.done:
			t.Logf("ste %s exited %v after SIGTERM", name, time.Since(start).Round(10*time.Millisecond))
			if out := d.out(); strings.Contains(out, "shutdown: gave up") {
				t.Logf("ste %s gave up on: %s", name, regexp.MustCompile(`shutdown: gave up[^\n]*`).FindString(out))
			}
		case <-time.After(bound + 15*time.Second):
			t.Errorf("ste %s still runs %v after SIGTERM with its broker gone (bound %v):\n%s", name, time.Since(start), bound, d.out())
			d.cmd.Process.Kill()
		}
	}
}
