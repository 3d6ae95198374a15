package gateway

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/internal/testing/brokertest"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topology"
)

// Two instances shown one nonce at the same moment accept it once, and an
// instance shown it again refuses it — whether or not an instance waited
// to read its own record back (most answers here do not: the follower has
// read every earlier record by the time the produce is acknowledged).
func TestANonceIsAcceptedOnceByAnyInstance(t *testing.T) {
	ctx, e := brokertest.Namespace(t, "gwn", 0, 2*time.Minute)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	var inst [2]*nonces
	for i := range inst {
		cl, err := topics.Client(e.Conn, kgo.ProducerLinger(0))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(cl.Close)
		inst[i] = newNonces(topology.Names{NS: e.NS}.Nonces(), cl, log)
		go inst[i].follow(ctx, e.Conn)
	}
	// Both followers reading before the rounds: on a loaded machine (make
	// test's three lanes) the first read-back once took over the 10 s a
	// request waits, and round 0 got ErrUnavailable from both — the
	// gateway's answer to brokers too slow, not what is tested here.
	for i := range inst {
		for {
			_, err := inst[i].use(ctx, "BRKASGSGXXX", fmt.Sprint("warm-up-", i))
			if err == nil {
				break
			}
			if !errors.Is(err, ErrUnavailable) || ctx.Err() != nil {
				t.Fatalf("instance %d never read its nonce back: %v", i, err)
			}
		}
	}
	const rounds = 60
	for r := range rounds {
		nonce := fmt.Sprintf("n%03d", r)
		var wg sync.WaitGroup
		var won [2]bool
		for i := range inst {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ok, err := inst[i].use(ctx, "BRKASGSGXXX", nonce)
				if err != nil {
					t.Error(err)
				}
				won[i] = ok
			}()
		}
		wg.Wait()
		if won[0] == won[1] {
			t.Fatalf("round %d: instances accepted %v: exactly one must", r, won)
		}
		// Shown again, at once, to either instance: refused.
		for i := range inst {
			if ok, err := inst[i].use(ctx, "BRKASGSGXXX", nonce); err != nil || ok {
				t.Fatalf("round %d: instance %d accepted a spent nonce (err %v)", r, i, err)
			}
		}
		// Another participant's nonce of the same text is its own.
		if ok, err := inst[r%2].use(ctx, "INVBSGSGXXX", nonce); err != nil || !ok {
			t.Fatalf("round %d: another participant's nonce refused (err %v)", r, err)
		}
	}
	unread := inst[0].unread.Load() + inst[1].unread.Load()
	t.Logf("answered without reading their own record back: %d of %d", unread, rounds*5)
	if unread == 0 {
		t.Fatal("every answer waited for its own record: the path this test is for was not taken")
	}
}

// A follower that has not read up to a record stays behind it: the answer
// waits for the read-back rather than guess.
func TestANonceBehindAnUnreadRecordWaits(t *testing.T) {
	ctx, e := brokertest.Namespace(t, "gwm", 0, 2*time.Minute)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	topic := topology.Names{NS: e.NS}.Nonces()
	// Another instance's record of the nonce, which this one has not read:
	// its follower starts only after the record below is written.
	if err := e.Client.ProduceSync(ctx, &kgo.Record{Topic: topic, Partition: 0, Key: []byte("BRKASGSGXXX"), Value: []byte("seen")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	cl, err := topics.Client(e.Conn, kgo.ProducerLinger(0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	n := newNonces(topic, cl, log)
	done := make(chan bool, 1)
	go func() {
		ok, err := n.use(ctx, "BRKASGSGXXX", "seen")
		if err != nil {
			t.Error(err)
		}
		done <- ok
	}()
	time.Sleep(300 * time.Millisecond)
	select {
	case ok := <-done:
		t.Fatalf("answered %v before the follower read anything", ok)
	default:
	}
	go n.follow(ctx, e.Conn)
	if <-done {
		t.Fatal("accepted a nonce another instance's record holds")
	}
}
