package produce

import (
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// refusedWithin polls w until Refused says what want says, or a minute.
func refusedWithin(t *testing.T, w *Watch, want string) string {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		got := w.Refused(0)
		if strings.Contains(got, want) {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("Refused says %q, want %q in it", got, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A partition's refusal that franz-go retries (below min ISR: NOT_ENOUGH_
// REPLICAS) it reports neither through a hook nor an error, only in the
// debug line of the produce answer: the watch reads the broker's reason
// there. This pins that line's format to the franz-go in go.mod — an
// upgrade that changes it fails here, not silently on /healthz.
func TestWatchReadsARefusalFromFranzGosLog(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(2, "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	w := NewWatch()
	p, err := Builder(Options{Watch: w})(c.ListenAddrs(), "watch-test", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := wait(p.Emit("out", "k", []byte("warm"))); err != nil {
		t.Fatal(err)
	}
	fault := c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Topic: "out", Err: kerr.NotEnoughReplicas, Count: -1})
	done := p.Emit("out", "k", []byte("refused"))
	got := refusedWithin(t, w, "NOT_ENOUGH_REPLICAS")
	if !strings.Contains(got, "produce to out refused by the broker") || !strings.Contains(got, "partition ") {
		t.Fatalf("Refused: %q", got)
	}
	fault.Remove()
	if err := wait(done); err != nil {
		t.Fatal(err)
	}
	if got := w.Refused(0); got != "" {
		t.Fatalf("acknowledged, yet Refused says %q", got)
	}
}

// A produce request that cannot reach its broker is every waiting topic's
// reason, taken from franz-go's hooks, not its log: the brokers gone, the
// watch says why the records wait.
func TestWatchTakesAFailedRequestFromTheHooks(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(2, "out"))
	if err != nil {
		t.Fatal(err)
	}
	w := NewWatch()
	p, err := Builder(Options{Watch: w})(c.ListenAddrs(), "watch-test", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := wait(p.Emit("out", "k", []byte("warm"))); err != nil {
		t.Fatal(err)
	}
	c.Close()
	p.Emit("out", "k", []byte("nowhere"))
	got := refusedWithin(t, w, "refused by the broker")
	t.Logf("Refused: %s", got)
	go p.Close() // records that can never be written: not waited for
}
