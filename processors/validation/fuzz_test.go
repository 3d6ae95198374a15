package validation

import (
	"testing"

	"github.com/ste-utility/ste/schemas"
)

// FuzzInspect: every input ends valid or rejected with a code and a detail,
// never panics; a NACK goes out only where the contract allows one; and an
// accepted message is one whose signature really verified.
func FuzzInspect(f *testing.F) {
	for _, d := range []*schemas.Draft{noe(), alc(), npr("BUY"), npr("SELL"), set()} {
		f.Add(signed(d))
	}
	f.Add(noe().AppendSigned(nil, nil))
	f.Add([]byte("<Msg><Header><Sender>BRKASGSGXXX</Sender></Header></Msg>"))
	ref := testRef()
	v := New(ref, WithClock(clock))
	var dec schemas.Decoder
	f.Fuzz(func(t *testing.T, rec []byte) {
		vd := v.Inspect(&dec, rec)
		if vd.Rej == nil {
			p, ok := ref.Participant(vd.Msg.Sender)
			if !ok || schemas.SignatureProblem(p.PublicKey, vd.Msg) != "" {
				t.Fatal("accepted without a verified signature")
			}
			return
		}
		if vd.Rej.Reason < schemas.TooLarge || vd.Rej.Reason > schemas.BadAmount || vd.Rej.Detail == "" {
			t.Fatalf("rejection %+v", vd.Rej)
		}
		exc, nack := vd.Rejected("line-1", rec, -1, -1, clock())
		if exc.Reason != vd.Rej.Reason.String() || len(exc.Marshal()) == 0 {
			t.Fatal("exception does not carry the reason")
		}
		if nack != nil && (!vd.SenderKnown || !vd.Rej.Reason.Nacked()) {
			t.Fatalf("NACK for %v from an unknown sender", vd.Rej.Reason)
		}
	})
}
