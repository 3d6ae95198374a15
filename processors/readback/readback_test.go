package readback

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ste-utility/ste/kafkaconn"
)

// A read-back that fails for a passing reason is tried again until it
// succeeds; a record that is not there is not waited for; a stopping
// instance stops trying.
func TestReadBackRetries(t *testing.T) {
	transient := errors.New("broker not available")
	calls := 0
	flaky := func(p int32, off int64) ([]byte, error) {
		calls++
		if calls < 3 {
			return nil, transient
		}
		return []byte("record"), nil
	}
	raw, err := retryRead(context.Background(), 0, 7, flaky)
	if err != nil || string(raw) != "record" || calls != 3 {
		t.Fatalf("got %q, %v after %d calls; want the record after 3", raw, err, calls)
	}

	calls = 0
	gone := func(int32, int64) ([]byte, error) { calls++; return nil, ErrGone }
	if _, err := retryRead(context.Background(), 0, 7, gone); !errors.Is(err, ErrGone) || calls != 1 {
		t.Fatalf("a missing record: %v after %d calls, want ErrGone after 1", err, calls)
	}

	ctx, cancel := context.WithCancel(context.Background())
	down := func(int32, int64) ([]byte, error) { return nil, transient }
	time.AfterFunc(100*time.Millisecond, cancel)
	if _, err := retryRead(ctx, 0, 7, down); !errors.Is(err, transient) {
		t.Fatalf("stopping: %v, want the last error", err)
	}
}

// A partition whose end cannot be listed for a moment (its leader moving,
// as when the cluster chaos suite removed two of three nodes) is not a
// record that is not there: the read-back waits for a leader, and the
// exception gets its payload.
func TestReadBackWaitsForALeader(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "in"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "in", Value: []byte("the message")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	fault := c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.ListOffsets}, Topic: "in", Err: kerr.LeaderNotAvailable, Count: 1})
	defer fault.Remove()
	read, closeRead := Reader(ctx, kafkaconn.Config{Brokers: c.ListenAddrs()}, "in")
	defer closeRead()
	raw, err := read(0, 0)
	if err != nil || string(raw) != "the message" {
		t.Fatalf("read back %q, %v; want the record", raw, err)
	}
	if fault.Hits() == 0 {
		t.Fatal("the fault never met the read-back: the test tested nothing")
	}
	if _, err := read(0, 1); !errors.Is(err, ErrGone) {
		t.Fatalf("an offset past the end: %v, want ErrGone", err)
	}
}
