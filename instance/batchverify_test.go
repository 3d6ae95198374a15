package instance_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lovoo/goka"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/instance"
	"github.com/ste-utility/ste/processors/offline"
	"github.com/ste-utility/ste/processors/validation"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/msgset"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/schemas/signature/sigtest"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topics/broker"
	"github.com/ste-utility/ste/topology"
)

var senderRe = regexp.MustCompile(`<Sender>([A-Z0-9]+)</Sender>`)

func parseException(t *testing.T, b []byte) schemas.Exception {
	var x schemas.Exception
	if err := json.Unmarshal(b, &x); err != nil {
		t.Fatal(err)
	}
	return x
}

// The validate stage verifies signatures in batches (pipeline's
// verifyqueue.go): on a set where a tenth of the messages, from a few
// senders, carry bad signatures of every crafted kind, and others carry
// signatures only the cofactored rule accepts, the Kafka path reaches ste
// match's verdict on every message; a record that makes the validate
// callback panic still becomes its one INTERNAL exception, in its place.
func TestBatchedValidateGivesSteMatchVerdicts(t *testing.T) {
	e := newEnv(t, "batch", 2*time.Minute, broker.Options{})
	recs, _ := set(t, 60, 11)
	bad := []func(ed25519.PrivateKey, []byte) []byte{
		sigtest.NonCanonicalR,
		func(k ed25519.PrivateKey, m []byte) []byte { return sigtest.SPlusL(ed25519.Sign(k, m)) },
		func(k ed25519.PrivateKey, m []byte) []byte { return ed25519.Sign(refdata.DemoPrivateKey("NOBODY"), m) },
	}
	// The flooders: the two senders with the most messages send every
	// other one with a bad signature; anyone sends one in ten.
	count := map[string]int{}
	for _, r := range recs {
		count[string(senderRe.FindSubmatch(r)[1])]++
	}
	var flooders []string
	for s := range count {
		flooders = append(flooders, s)
	}
	slices.SortFunc(flooders, func(a, b string) int { return count[b] - count[a] })
	flooders = flooders[:2]
	for i, r := range recs {
		sender := string(senderRe.FindSubmatch(r)[1])
		key := refdata.DemoPrivateKey(sender)
		switch {
		case i == 7: // the panicking one
		case slices.Contains(flooders, sender) && i%2 == 0, i%10 == 3:
			recs[i] = sigtest.Resign(r, key, bad[i%len(bad)])
		case i%4 == 0:
			recs[i] = sigtest.Resign(r, key, sigtest.MixedR)
		}
	}
	// Records whose order decides: a conflicting duplicate (same identity,
	// other bytes outside the signed range) right after its original, and
	// an exact duplicate later. ste match accepts the first and rejects
	// the second; so must the batched stage, which writes in queue order.
	orig := recs[20]
	conflict := append(bytes.Clone(orig[:len(orig)-len("</Msg>")]), "<X/></Msg>"...)
	recs = slices.Insert(recs, 21, conflict)
	recs = append(recs, bytes.Clone(orig))
	victim := msgIDRe.FindSubmatch(recs[7])[1]
	hook := func(st topology.Stage, ctx goka.Context, msg []byte) {
		if st == topology.StageValidate && bytes.Contains(msg, []byte("<MsgId>"+string(victim)+"<")) {
			fields := strings.Fields(string(victim))
			_ = fields[len(fields)] // an index out of range: the kind of bug a record could trigger
		}
	}
	r := e.start("b", instance.Options{Hook: hook})
	e.drive(recs)
	e.waitZero()

	// ste match on the same set, the panicking record left out.
	var offExc [][]byte
	offCLS := map[string]bool{}
	src, _ := msgset.NewReader(bytes.NewReader(append(bytes.Join(slices.Delete(slices.Clone(recs), 7, 8), []byte("\n")), '\n')), "set")
	if _, _, err := offline.Run(context.Background(), src, offline.Sinks{
		CLS:        func(b []byte) error { offCLS[string(msgIDRe.FindSubmatch(b)[1])] = true; return nil },
		Outbound:   func([]byte) error { return nil },
		Exceptions: func(b []byte) error { offExc = append(offExc, bytes.Clone(b)); return nil },
	}, offline.Options{Validator: validation.New(refdata.Default()),
		Signer: &schemas.Signer{BIC: "STEUTLSGXXX", Key: refdata.DemoPrivateKey("STEUTLSGXXX")}}); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, b := range offExc {
		x := parseException(t, b)
		want[x.Sender+" "+x.MsgId] = x.Reason + " " + string(x.Payload)
	}
	got := map[string]string{}
	internal := 0
	for _, x := range e.exceptions() {
		if x.Reason == "INTERNAL" {
			internal++
			if !bytes.Equal(x.Payload, recs[7]) || !strings.Contains(x.Detail, "validate stage failed") {
				t.Errorf("INTERNAL exception %+v", x)
			}
			continue
		}
		got[x.Sender+" "+x.MsgId] = x.Reason + " " + string(x.Payload)
	}
	if internal != 1 {
		t.Errorf("%d INTERNAL exceptions, want 1", internal)
	}
	nSig := 0
	for k, v := range want {
		if strings.HasPrefix(v, "SIGNATURE ") {
			nSig++
		}
		if got[k] != v {
			t.Errorf("%s: Kafka path %.120q, ste match %.120q", k, got[k], v)
		}
	}
	for k, v := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: Kafka path %.120q, ste match accepted it", k, v)
		}
	}
	if !strings.HasPrefix(want[string(senderRe.FindSubmatch(orig)[1])+" "+string(msgIDRe.FindSubmatch(orig)[1])], "CONFLICTING_DUPLICATE ") {
		t.Fatal("ste match did not reject the conflicting duplicate: the set does not test order")
	}
	if nSig < len(recs)/10 {
		t.Fatalf("only %d SIGNATURE rejections of %d messages: the set does not exercise bisection", nSig, len(recs))
	}
	// Distinct CLS: a duplicate re-emits its trade's CLS only if the trade
	// matched before it came, which on the Kafka path depends on timing.
	cls := map[string]bool{}
	topics.Dump(e.ctx, e.brokers, topology.Names{NS: e.ns}.CLS(), func(r *kgo.Record) error {
		cls[string(msgIDRe.FindSubmatch(r.Value)[1])] = true
		return nil
	})
	if !maps.Equal(cls, offCLS) {
		t.Errorf("%d CLS on the Kafka path, %d from ste match, not the same", len(cls), len(offCLS))
	}
	if got := e.metric(r, `ste_internal_errors_total{stage="validate"}`); got != 1 {
		t.Errorf("ste_internal_errors_total{validate} = %v, want 1", got)
	}
	if n := e.metric(r, "ste_verify_batch_size_count"); n <= 0 {
		t.Errorf("ste_verify_batch_size_count = %v: the validate stage did not verify in batches", n)
	}
	t.Logf("batches: %v for %v signatures", e.metric(r, "ste_verify_batch_size_count"), e.metric(r, "ste_verify_batch_size_sum"))
	// The outputs compared above were signed by the producers, in batches
	// (processors/produce, seal.go): outputs the stages signed themselves would not count here.
	if n := e.metric(r, "ste_seal_batch_size_sum"); n <= 0 {
		t.Errorf("ste_seal_batch_size_sum = %v: the producers signed no outputs", n)
	}
	t.Logf("seal batches: %v for %v outputs", e.metric(r, "ste_seal_batch_size_count"), e.metric(r, "ste_seal_batch_size_sum"))
	t.Logf("%d messages, %d SIGNATURE rejections, flooders %s", len(recs), nSig, fmt.Sprint(flooders))
}
