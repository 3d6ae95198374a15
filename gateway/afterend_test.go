package gateway_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ste-utility/ste/topics"
)

// TestOutputsAfterEnd: after=end starts from now (gateway.md version 2,
// §3). Older outputs are never returned; the answer is that to after=E, E
// the partition's end when the request was handled: with nothing new,
// no output and next = a cursor at E (never "end"), from which a walk
// finds every output written since, each once; a long poll from end waits
// for the first output to arrive and gets it alone; limit applies as to a
// cursor; and a walk without after still starts from the oldest.
func TestOutputsAfterEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a broker")
	}
	urls, ps, cl, ns := serveGateways(t, 2)
	ctx := context.Background()
	// Two participants on different partitions: a's end is after its own
	// last output.
	n := int32(topics.DefaultPartitions)
	a, b := ps[0].BIC, ""
	for _, p := range ps[1:] {
		if topics.PartitionOf(p.BIC, n) != topics.PartitionOf(a, n) {
			b = p.BIC
			break
		}
	}
	if err := cl.ProduceSync(ctx, output(ns, a, a, "OLD1"), output(ns, a, a, "OLD2"), output(ns, b, b, "B-OLD")).FirstErr(); err != nil {
		t.Fatal(err)
	}
	// Nothing new: no output, next a cursor at the end.
	now := getOutputs(t, urls[0], a, "after=end")
	if len(now.Outputs) != 0 || now.Next == "" || now.Next == "end" {
		t.Fatalf("after=end with nothing new: %+v", now)
	}
	// The cursor is E itself: what a walk from after=OLD2 would give.
	if all := getOutputs(t, urls[0], a, ""); len(all.Outputs) != 2 || all.Next != now.Next {
		t.Fatalf("after=end's next %q is not the cursor after the last output (%+v)", now.Next, all)
	}
	// Written since: found from next, on either instance, each once.
	if err := cl.ProduceSync(ctx, output(ns, a, a, "NEW1"), output(ns, b, b, "B-NEW"), output(ns, a, a, "NEW2")).FirstErr(); err != nil {
		t.Fatal(err)
	}
	got := settled(t, "NEW1,NEW2", func() outputsAnswer { return getOutputs(t, urls[1], a, "after="+now.Next) })
	if ids := msgIDs(got); ids != "NEW1,NEW2" {
		t.Fatalf("from after=end's next: %s", ids)
	}
	if r := getOutputs(t, urls[1], a, "after="+got.Next); len(r.Outputs) != 0 || r.Next != got.Next {
		t.Fatalf("past the end: %+v", r)
	}
	// after=end again: those are old now.
	if r := getOutputs(t, urls[0], a, "after=end&limit=1"); len(r.Outputs) != 0 || r.Next != got.Next {
		t.Fatalf("after=end once NEW1 and NEW2 are written: %+v (want none, next %q)", r, got.Next)
	}
	// A long poll from end: the first output to arrive, alone.
	type polled struct {
		a   outputsAnswer
		err error
	}
	res := make(chan polled, 1)
	go func() {
		r, err := readOutputs(urls[1], a, "after=end&wait=20")
		res <- polled{r, err}
	}()
	time.Sleep(time.Second)
	if err := cl.ProduceSync(ctx, output(ns, b, b, "B-LATER"), output(ns, a, a, "LATER")).FirstErr(); err != nil {
		t.Fatal(err)
	}
	p := <-res
	if p.err != nil {
		t.Fatal(p.err)
	}
	if ids := msgIDs(p.a); ids != "LATER" || p.a.Next == "end" {
		t.Fatalf("long poll from end: %s, next %q", ids, p.a.Next)
	}
	// Without after: from the oldest, as ever.
	all := settled(t, "OLD1,OLD2,NEW1,NEW2,LATER", func() outputsAnswer { return getOutputs(t, urls[0], a, "") })
	if ids := msgIDs(all); ids != "OLD1,OLD2,NEW1,NEW2,LATER" {
		t.Fatalf("without after: %s", ids)
	}
	// "end" is the only word: another is a bad cursor.
	if _, err := readOutputs(urls[0], a, "after=END"); err == nil || !strings.Contains(err.Error(), "bad_cursor") {
		t.Fatalf("after=END: %v", err)
	}
}

// settled asks until the answer's MsgIds are want, for at most 10 s, and
// returns the last answer: each gateway instance follows the outbound topic
// on its own, so a record another instance has just returned may reach
// this one's tail a moment later (a walk never skips it: next stays before
// it). make verify-all's make test of 7 December read instance 0 right
// after instance 1's long poll had returned LATER, and got the outputs
// without it.
func settled(t *testing.T, want string, ask func() outputsAnswer) outputsAnswer {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		a := ask()
		if msgIDs(a) == want || time.Now().After(deadline) {
			return a
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func msgIDs(a outputsAnswer) string {
	var ids []string
	for _, o := range a.Outputs {
		ids = append(ids, o.MsgId)
	}
	return strings.Join(ids, ",")
}
