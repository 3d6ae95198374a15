package e2e

import (
	"encoding/json"
	"os/exec"
	"slices"
	"syscall"
	"testing"
	"time"
)

type listed struct {
	ID     string   `json:"id"`
	HTTP   string   `json:"http"`
	Groups []string `json:"groups"`
	Ready  bool     `json:"ready"`
	Stale  bool     `json:"stale"`
}

// TestInstancesFromOneHome: two `ste process` from one $STE_HOME get two
// ids and `ste instances` lists both with their HTTP addresses; a
// restarted instance (after kill -9) gets its old id back.
func TestInstancesFromOneHome(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a broker and processes")
	}
	f := newFixture(t, backends[0], 20)
	env := append(f.env, "STE_HOME="+t.TempDir(), "STE_HTTP=127.0.0.1:0")
	start := func() *proc {
		cmd := exec.Command(steBin, "process")
		return startCmd(t, cmd, env)
	}
	list := func(want int) []listed {
		t.Helper()
		deadline := time.Now().Add(time.Minute)
		for {
			var got []listed
			if err := json.Unmarshal([]byte(ste(t, env, "instances", "--json")), &got); err != nil {
				t.Fatal(err)
			}
			live := slices.DeleteFunc(got, func(l listed) bool { return l.Stale || !l.Ready })
			if len(live) == want {
				return live
			}
			if time.Now().After(deadline) {
				t.Fatalf("ste instances lists %+v, want %d live and ready", got, want)
			}
			time.Sleep(300 * time.Millisecond)
		}
	}
	p1 := start()
	first := list(1)
	start()
	both := list(2)
	if both[0].ID == both[1].ID || both[0].HTTP == "" || both[1].HTTP == "" || both[0].HTTP == both[1].HTTP {
		t.Fatalf("two instances from one home: %+v", both)
	}
	p1.stop(t, syscall.SIGKILL)
	start()
	deadline := time.Now().Add(time.Minute)
	for {
		var got []listed
		json.Unmarshal([]byte(ste(t, env, "instances", "--json")), &got)
		ids := []string{}
		for _, l := range got {
			if l.Ready && !l.Stale {
				ids = append(ids, l.ID)
			}
		}
		// The restarted instance re-announces under its old id.
		if slices.Contains(ids, first[0].ID) && len(got) == 2 {
			for _, l := range got {
				if l.ID == first[0].ID && l.HTTP != "" && l.HTTP != first[0].HTTP {
					return // its new address, under its old id
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("restarted instance did not come back as %s: %+v", first[0].ID, got)
		}
		time.Sleep(300 * time.Millisecond)
	}
}
