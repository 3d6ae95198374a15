package validation

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/refdata"
)

// FuzzInspect: every input ends valid or rejected with a code and a detail,
// never panics; a NACK goes out only where the contract allows one; an
// accepted message is one whose signature really verified and whose Created
// is within 24 h of the clock; and what a rejection sends back repeats at
// most 128 characters of any value (docs/spec/messages.md §6) as valid UTF-8 — the
// NACK a signed, well-formed output, the exception one JSON object.
func FuzzInspect(f *testing.F) {
	for _, d := range []*schemas.Draft{noe(), alc(), npr("BUY"), npr("SELL"), set()} {
		f.Add(signed(d))
	}
	f.Add(noe().AppendSigned(nil, nil))
	f.Add([]byte("<Msg><Header><Sender>BRKASGSGXXX</Sender></Header></Msg>"))
	f.Add(signed(with(noe(), func(d *schemas.Draft) { d.Created = "9999-12-31T23:59:59Z" })))
	f.Add(signed(with(noe(), func(d *schemas.Draft) { d.MsgId = "M\u00e9\u00e9\u00e9 long" })))
	f.Add([]byte{})
	// Version 3: delegated signing and the lifecycle types.
	f.Add(delegated(noe(), fix))
	f.Add(delegated(noe(), iso))
	f.Add(signed(aff(invMgr)))
	f.Add(signed(aff(broker, "Amends", digest2)))
	f.Add(signed(aff(invMgr, "Affirms", broker+":M1 "+invMgr+":M2 NOPESGSGXXX:S1")))
	f.Add(signed(autoAff(utility)))
	f.Add(signed(lifecycle("CXL", broker, "CancelReason", "ERROR")))
	f.Add(signed(lifecycle("CXA", invMgr)))
	f.Add(signed(self(lifecycle("CXJ", selfTrade, "CancelReason", "OTHER"))))
	ref := v3Ref()
	v := New(ref, WithClock(clock))
	signer := &schemas.Signer{BIC: "STEUTLSGXXX", Key: refdata.DemoPrivateKey("STEUTLSGXXX")}
	var dec schemas.Decoder
	f.Fuzz(func(t *testing.T, rec []byte) {
		vd := v.Inspect(&dec, rec)
		if vd.Rej == nil {
			p, ok := ref.Participant(vd.Msg.Sender)
			if vd.Msg.Signer != "" {
				// Only a listed ACTIVE SIGNER's keys verify a delegated message.
				s, known := ref.Participant(vd.Msg.Signer)
				if !ok || !known || !p.HasSigner(s.BIC) || s.Status != refdata.Active || !s.Roles.Has(refdata.RoleSigner) {
					t.Fatalf("accepted with Signer %s", vd.Msg.Signer)
				}
				p = s
			}
			if !ok || schemas.SignatureProblem(p.Keys, vd.Msg) != "" {
				t.Fatal("accepted without a verified signature")
			}
			if p.SignerOnly() && vd.Msg.Signer == "" {
				t.Fatal("accepted from a SIGNER")
			}
			if vd.Msg.CreatedOutOfRange || vd.Msg.Created > clock().Add(MaxAhead).UnixNano() {
				t.Fatalf("accepted with Created %d", vd.Msg.Created)
			}
			return
		}
		if vd.Rej.Reason.Rank() < schemas.TooLarge.Rank() || vd.Rej.Reason.Rank() > schemas.BadReference.Rank() || vd.Rej.Detail == "" {
			t.Fatalf("rejection %+v", vd.Rej)
		}
		exc, nack := vd.Rejected("line-1", rec, -1, -1, clock())
		if exc.Reason != vd.Rej.Reason.String() || len(exc.Marshal()) == 0 {
			t.Fatal("exception does not carry the reason")
		}
		if !json.Valid(exc.Marshal()) {
			t.Fatal("exception is not JSON")
		}
		for _, s := range []string{exc.MsgId, exc.Sender} {
			if utf8.RuneCountInString(s) > schemas.MaxEcho {
				t.Fatalf("exception echoes %d characters", utf8.RuneCountInString(s))
			}
		}
		if utf8.RuneCountInString(exc.Detail) > 1024 {
			t.Fatalf("detail of %d characters", utf8.RuneCountInString(exc.Detail))
		}
		if nack == nil {
			return
		}
		if !vd.SenderKnown || !vd.Rej.Reason.Nacked() {
			t.Fatalf("NACK for %v from an unknown sender", vd.Rej.Reason)
		}
		out := signer.Encode(nack)
		if len(out) > 4096 || !utf8.Valid(out) {
			t.Fatalf("NACK of %d bytes (valid UTF-8: %v)", len(out), utf8.Valid(out))
		}
		if _, err := schemas.ParseOutput(out); err != nil {
			t.Fatalf("NACK is not a well-formed output: %v\n%s", err, out)
		}
	})
}
