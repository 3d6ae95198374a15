package validation

import (
	"crypto/ed25519"
	"regexp"
	"testing"

	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/schemas/signature"
	"github.com/ste-utility/ste/schemas/signature/sigtest"
	"github.com/ste-utility/ste/workload"
)

var senderRe = regexp.MustCompile(`<Sender>([A-Z0-9]+)</Sender>`)

// InspectDeferred, a batch verification of its Pendings and Resolve give
// every record the verdict InspectAt gives it: signatures valid and
// invalid in every crafted way, and records that fail before or after the
// SIGNATURE row.
func TestDeferredEqualsInspect(t *testing.T) {
	var recs [][]byte
	if _, err := workload.Generate(workload.Options{Trades: 12}, func(b []byte) error { recs = append(recs, b); return nil }, nil); err != nil {
		t.Fatal(err)
	}
	crafts := []func(ed25519.PrivateKey, []byte) []byte{
		func(k ed25519.PrivateKey, m []byte) []byte { return ed25519.Sign(k, m) },
		sigtest.MixedR,
		sigtest.NonCanonicalR,
		func(k ed25519.PrivateKey, m []byte) []byte { return sigtest.SPlusL(ed25519.Sign(k, m)) },
		func(_ ed25519.PrivateKey, m []byte) []byte { return ed25519.Sign(refdata.DemoPrivateKey("NOBODY"), m) },
	}
	for i, r := range recs {
		sender := string(senderRe.FindSubmatch(r)[1])
		recs[i] = sigtest.Resign(r, refdata.DemoPrivateKey(sender), crafts[i%len(crafts)])
	}
	// Records a rule before SIGNATURE rejects, and one without a signature.
	recs = append(recs, []byte("not xml"), signed(with(noe(), func(d *schemas.Draft) { d.Sender = "NOBKSGSGXXX" })),
		noe().AppendSigned(nil, nil),
		// A later rule fails too: SIGNATURE must still win when it fails.
		sigtest.Resign(signed(with(noe(), func(d *schemas.Draft) { d.Sender = invMgr })), refdata.DemoPrivateKey(invMgr), crafts[3]),
		signed(with(noe(), func(d *schemas.Draft) { d.Sender = invMgr })))

	v := New(testRef(), WithClock(clock))
	vr := New(refdata.Default(), WithClock(clock))
	for _, val := range []*Validator{v, vr} {
		var dec schemas.Decoder
		verdicts := make([]Verdict, len(recs))
		pend := make([]*Pending, len(recs))
		var items []signature.Item
		var idx []int
		for i, r := range recs {
			verdicts[i], pend[i] = val.InspectDeferred(&dec, r, clock())
			if pend[i] != nil {
				items = append(items, pend[i].Item)
				idx = append(idx, i)
			}
		}
		ok := make([]bool, len(items))
		new(signature.Batcher).Verify(items, ok)
		for j, i := range idx {
			pend[i].Resolve(&verdicts[i], ok[j])
		}
		nPending, nSig := len(items), 0
		for i, r := range recs {
			want := val.InspectAt(&dec, r, clock())
			got := verdicts[i]
			if (want.Rej == nil) != (got.Rej == nil) || (want.Rej != nil && *want.Rej != *got.Rej) {
				t.Errorf("record %d: deferred %+v, InspectAt %+v", i, got.Rej, want.Rej)
			}
			if want.Rej != nil && want.Rej.Reason == schemas.Signature {
				nSig++
			}
		}
		if val == vr && (nPending < len(recs)/2 || nSig < len(recs)/3) {
			t.Fatalf("%d pending, %d SIGNATURE of %d: the case does not exercise the batch", nPending, nSig, len(recs))
		}
	}
}
