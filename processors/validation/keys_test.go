package validation

import (
	"crypto/ed25519"
	"testing"

	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/refdata"
)

// A participant rotating its key holds two: a message signed with either
// verifies, one signed with a third does not; a participant whose only key
// was ignored (refdata.KeyIgnoredError) holds none and every message of it
// fails SIGNATURE.
func TestTwoKeysEitherVerifies(t *testing.T) {
	ref := testRef()
	p, _ := ref.Participant(broker)
	next := refdata.DemoPrivateKey(broker + "-next")
	p.Keys = []ed25519.PublicKey{refdata.DemoPublicKey(broker), next.Public().(ed25519.PublicKey)}
	ref.PutParticipant(p)
	v := New(ref, WithClock(clock))
	var dec schemas.Decoder
	for name, key := range map[string]ed25519.PrivateKey{"old key": refdata.DemoPrivateKey(broker), "new key": next} {
		if vd := v.Inspect(&dec, noe().AppendSigned(nil, key)); vd.Rej != nil {
			t.Errorf("%s: %v", name, vd.Rej)
		}
	}
	if vd := v.Inspect(&dec, noe().AppendSigned(nil, refdata.DemoPrivateKey(invMgr))); vd.Rej == nil || vd.Rej.Reason != schemas.Signature {
		t.Errorf("a third key: %v, want SIGNATURE", vd.Rej)
	}

	p.Keys = nil
	ref = ref.Clone()
	ref.PutParticipant(p)
	v.SetRefdata(ref)
	if vd := v.Inspect(&dec, signed(noe())); vd.Rej == nil || vd.Rej.Reason != schemas.Signature {
		t.Errorf("no key: %v, want SIGNATURE", vd.Rej)
	}
}
