package validation

import (
	"crypto/ed25519"
	"crypto/sha256"
	"strings"
	"testing"

	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/schemas/signature"
)

// Version 3 (messages.md §2, §3a, §4): delegated signing, the lifecycle
// types' authorisation and BAD_REFERENCE.

const (
	fix       = refdata.FIXSignerBIC // an ACTIVE SIGNER, listed by broker and invMgr
	iso       = refdata.ISOSignerBIC // an ACTIVE SIGNER listed by nobody
	suspSgn   = "SGNSSGSGXXX"        // a SUSPENDED SIGNER, listed by broker
	ghost     = "GHSTSGSGXXX"        // listed by broker, in no reference data
	utility   = refdata.DefaultUtilityBIC
	autoIM    = "AUTOSGSGXXX" // an INVMGR whose mode is AUTO
	selfTrade = "SELFSGSGXXX" // BROKER and INVMGR
	suspCust  = "CUSSSGSGXXX" // a SUSPENDED CUSTODIAN
	rotated   = "ROTASGSGXXX" // a SIGNER holding two keys, listed by broker
	digest1   = "1111111111111111111111111111111111111111111111111111111111111111"
	digest2   = "2222222222222222222222222222222222222222222222222222222222222222"
)

// rotatedNext is the second key of rotated.
var rotatedNext = ed25519.NewKeyFromSeed(func() []byte { s := sha256.Sum256([]byte("rotated next")); return s[:] }())

func v3Ref() *refdata.Set {
	s := testRef()
	put := func(bic string, roles refdata.Role, st refdata.Status, signers ...string) {
		s.PutParticipant(refdata.Participant{BIC: bic, Name: bic, Roles: roles, Country: "SG", Status: st,
			Keys: []ed25519.PublicKey{refdata.DemoPublicKey(bic)}, Signers: signers})
	}
	put(broker, refdata.RoleBroker, refdata.Active, fix, suspSgn, both, ghost, rotated)
	put(invMgr, refdata.RoleInvMgr, refdata.Active, fix)
	put(fix, refdata.RoleSigner, refdata.Active)
	put(iso, refdata.RoleSigner, refdata.Active)
	put(suspSgn, refdata.RoleSigner, refdata.Suspended)
	put(utility, refdata.RoleUtility, refdata.Active)
	put(autoIM, refdata.RoleInvMgr, refdata.Active)
	put(selfTrade, refdata.RoleBroker|refdata.RoleInvMgr, refdata.Active)
	put(suspCust, refdata.RoleCustodian, refdata.Suspended)
	s.PutParticipant(refdata.Participant{BIC: rotated, Name: rotated, Roles: refdata.RoleSigner, Country: "SG", Status: refdata.Active,
		Keys: []ed25519.PublicKey{refdata.DemoPublicKey(rotated), rotatedNext.Public().(ed25519.PublicKey)}})
	s.PutAffirmation(refdata.Affirmation{InvMgr: autoIM, Mode: refdata.AffirmAuto})
	return s
}

func lifecycle(typ, sender string, extra ...string) *schemas.Draft {
	d := &schemas.Draft{MsgId: typ + "1", MsgType: typ, Function: "NEW", Sender: sender, Created: "2026-11-02T02:00:00Z",
		Body: keyBody("BUY")}
	if typ == "CXA" || typ == "CXJ" {
		d.RelatedMsgId = "X1"
	}
	for i := 0; i+1 < len(extra); i += 2 {
		d.Set(extra[i], extra[i+1])
	}
	return d
}

func aff(sender string, extra ...string) *schemas.Draft {
	return lifecycle("AFF", sender, append([]string{"Decision", "AFFIRM", "MatchDigest", digest1,
		"Affirms", broker + ":M1 " + invMgr + ":M2 " + broker + ":M3 " + cust + ":M4"}, extra...)...)
}

// delegated sets d's Signer and signs with the Signer's demo key.
func delegated(d *schemas.Draft, signer string) []byte {
	d.Signer = signer
	return d.AppendSigned(nil, refdata.DemoPrivateKey(signer))
}

func keys(d *schemas.Draft, f func(*schemas.Draft)) *schemas.Draft { f(d); return d }

func TestDelegatedSigning(t *testing.T) {
	tests := []struct {
		name   string
		rec    []byte
		want   schemas.Reason
		detail string
	}{
		{"signed by a listed ACTIVE SIGNER", delegated(noe(), fix), 0, ""},
		{"an ALC by the InvMgr's signer", delegated(alc(), fix), 0, ""},
		{"the signer's second key while it rotates", with(noe(), func(d *schemas.Draft) { d.Signer = rotated }).AppendSigned(nil, rotatedNext), 0, ""},
		{"the signer's first key while it rotates", delegated(noe(), rotated), 0, ""},
		{"with Signer, the Sender's own key is not tried", with(noe(), func(d *schemas.Draft) { d.Signer = fix }).AppendSigned(nil, refdata.DemoPrivateKey(broker)),
			schemas.Signature, "Signer " + fix},
		{"another signer's key", with(noe(), func(d *schemas.Draft) { d.Signer = fix }).AppendSigned(nil, refdata.DemoPrivateKey(iso)), schemas.Signature, "verify"},
		{"a signer not listed by the Sender", delegated(noe(), iso), schemas.Signature, "not among the signers of " + broker},
		{"a signer the custodian does not list", delegated(set(), fix), schemas.Signature, "not among the signers"},
		{"a SUSPENDED signer", delegated(noe(), suspSgn), schemas.Signature, "SUSPENDED"},
		{"a listed participant without the role SIGNER", delegated(noe(), both), schemas.Signature, "role SIGNER"},
		{"a listed signer in no reference data", delegated(noe(), ghost), schemas.Signature, "not a participant"},
		{"a delegated message without Sig", with(noe(), func(d *schemas.Draft) { d.Signer = fix }).AppendSigned(nil, nil), schemas.Signature, "missing"},
		{"the signer's rights do not make a NOE from the InvMgr authorised", delegated(with(noe(), func(d *schemas.Draft) { d.Sender = invMgr }), fix),
			schemas.NotAuthorised, "Broker"},
		{"a SIGNER sends as itself", signed(with(noe(), func(d *schemas.Draft) { d.Sender = fix; d.Set("Broker", fix) })), schemas.NotAuthorised, "only the role SIGNER"},
		{"a SIGNER sends an AFF as itself", signed(with(aff(fix), func(d *schemas.Draft) { d.Set("InvMgr", fix) })), schemas.NotAuthorised, "only the role SIGNER"},
		{"the signer's status does not matter to the Sender's", delegated(with(noe(), func(d *schemas.Draft) { d.Sender = dormant; d.Set("Broker", dormant) }), fix),
			schemas.UnknownSender, "INACTIVE"},
	}
	run(t, New(v3Ref(), WithClock(clock)), tests)
}

func TestLifecycleRules(t *testing.T) {
	tests := []struct {
		name   string
		rec    []byte
		want   schemas.Reason
		detail string
	}{
		{"AFF by the InvMgr", signed(aff(invMgr)), 0, ""},
		{"AFF REJECT by the InvMgr", signed(aff(invMgr, "Decision", "REJECT", "RejectReason", "PRICE")), 0, ""},
		{"AFF through the InvMgr's signer", delegated(aff(invMgr), fix), 0, ""},
		{"AFF amending, by the InvMgr", signed(aff(invMgr, "Amends", digest2)), 0, ""},
		{"AFF amending, by the Broker", signed(aff(broker, "Amends", digest2)), 0, ""},
		{"AFF amending, through the Broker's signer", delegated(aff(broker, "Amends", digest2), fix), 0, ""},
		{"a first affirmation by the Broker", signed(aff(broker)), schemas.NotAuthorised, "InvMgr named in it"},
		{"a first affirmation with an empty Amends by the Broker", signed(aff(broker, "Amends", "")), schemas.NotAuthorised, "first affirmation"},
		{"a first affirmation by a custodian", signed(aff(cust)), schemas.NotAuthorised, "InvMgr"},
		{"an amending AFF by a custodian", signed(aff(cust, "Amends", digest2)), schemas.NotAuthorised, "Broker (" + broker + ") or the InvMgr"},
		{"the utility's AFF for a MANUAL InvMgr", signed(aff(utility)), schemas.NotAuthorised, "MANUAL"},
		{"the utility's AFF for an AUTO InvMgr", signed(autoAff(utility)), 0, ""},
		{"the utility's amending AFF", signed(autoAff(utility, "Amends", digest2)), schemas.NotAuthorised, "Broker"},
		{"another utility's AFF for an AUTO InvMgr", signed(autoAff(both)), schemas.NotAuthorised, "InvMgr named in it"},
		{"an AUTO InvMgr's own AFF", signed(autoAff(autoIM)), 0, ""},
		{"CXL by the Broker", signed(lifecycle("CXL", broker, "CancelReason", "ERROR")), 0, ""},
		{"CXL by the InvMgr", signed(lifecycle("CXL", invMgr, "CancelReason", "CLIENT_REQUEST")), 0, ""},
		{"CXA by the InvMgr", signed(lifecycle("CXA", invMgr)), 0, ""},
		{"CXJ by the Broker", signed(lifecycle("CXJ", broker, "CancelReason", "OTHER")), 0, ""},
		{"CXA through a signer", delegated(lifecycle("CXA", broker), fix), 0, ""},
		{"CXL by a custodian", signed(lifecycle("CXL", cust, "CancelReason", "ERROR")), schemas.NotAuthorised, "CXL must be sent by the Broker"},
		{"CXA by a custodian", signed(lifecycle("CXA", cust)), schemas.NotAuthorised, "CXA"},
		{"CXJ by the utility", signed(lifecycle("CXJ", utility, "CancelReason", "ERROR")), schemas.NotAuthorised, "CXJ"},
		{"an AFF of a trade without counterparty", signed(self(aff(selfTrade), "Affirms", selfTrade+":N1 "+cust+":S1")), schemas.NotAuthorised, "counterparty"},
		{"an amending AFF of a trade without counterparty", signed(self(aff(selfTrade, "Amends", digest2), "Affirms", selfTrade+":N1")), schemas.NotAuthorised, "counterparty"},
		{"a CXL of a trade without counterparty", signed(self(lifecycle("CXL", selfTrade, "CancelReason", "ERROR"))), schemas.NotAuthorised, "counterparty"},
		{"a CXA of a trade without counterparty", signed(self(lifecycle("CXA", selfTrade))), schemas.NotAuthorised, "counterparty"},
		{"a CXJ of a trade without counterparty", signed(self(lifecycle("CXJ", selfTrade, "CancelReason", "OTHER"))), schemas.NotAuthorised, "counterparty"},
		{"the utility's AFF of an AUTO self-trade", signed(self(autoAff(utility), "InvMgr", selfTrade)), schemas.NotAuthorised, "counterparty"},
		// The rows before BAD_REFERENCE, on the fields the lifecycle types carry.
		{"an AFF of an unknown sender", signed(aff("NOBKSGSGXXX")), schemas.UnknownSender, ""},
		{"a CXL under the wrong key", with(lifecycle("CXL", broker, "CancelReason", "ERROR"), func(*schemas.Draft) {}).AppendSigned(nil, refdata.DemoPrivateKey(invMgr)), schemas.Signature, ""},
		{"an AFF of an INACTIVE broker", signed(aff(invMgr, "Broker", dormant, "Affirms", dormant+":N1 "+invMgr+":A1")), schemas.UnknownParty, "INACTIVE"},
		{"a CXL naming a broker without the role", signed(lifecycle("CXL", invMgr, "CancelReason", "ERROR", "Broker", cust)), schemas.UnknownParty, "BROKER"},
		{"an AFF of a suspended security", signed(aff(invMgr, "ISIN", "US0378331005")), schemas.UnknownSecurity, "SUSPENDED"},
		{"a CXA of a bad check digit", signed(lifecycle("CXA", invMgr, "ISIN", "SG1L01001702")), schemas.UnknownSecurity, "check digit"},
		{"a CXJ created 25 h ahead", signed(keys(lifecycle("CXJ", invMgr, "CancelReason", "ERROR"), func(d *schemas.Draft) { d.Created = "2026-11-30T13:00:01Z" })), schemas.BadDate, "24 h"},
		// BAD_REFERENCE.
		{"an AFF naming a custodian's SET", signed(aff(invMgr)), 0, ""},
		{"an AFF naming only the principals", signed(aff(invMgr, "Affirms", broker+":M1 "+invMgr+":M2")), 0, ""},
		{"an AFF naming a BROKER;CUSTODIAN", signed(aff(invMgr, "Affirms", broker+":M1 "+invMgr+":M2 "+both+":S9")), 0, ""},
		{"no Broker token", signed(aff(invMgr, "Affirms", invMgr+":M2 "+cust+":M4")), schemas.BadReference, "no message of the Broker"},
		{"no InvMgr token", signed(aff(invMgr, "Affirms", broker+":M1 "+cust+":M4")), schemas.BadReference, "no message of the InvMgr"},
		{"a token of a non-participant", signed(aff(invMgr, "Affirms", broker+":M1 "+invMgr+":M2 NOPESGSGXXX:S1")), schemas.BadReference, "NOPESGSGXXX:S1"},
		{"a token of a SUSPENDED custodian", signed(aff(invMgr, "Affirms", broker+":M1 "+invMgr+":M2 "+suspCust+":S1")), schemas.BadReference, suspCust},
		{"a token of an INACTIVE broker", signed(aff(invMgr, "Affirms", broker+":M1 "+invMgr+":M2 "+dormant+":S1")), schemas.BadReference, dormant},
		{"a token of a signer", signed(aff(invMgr, "Affirms", broker+":M1 "+invMgr+":M2 "+fix+":S1")), schemas.BadReference, fix},
		{"a token of another InvMgr", signed(aff(invMgr, "Affirms", broker+":M1 "+invMgr+":M2 "+autoIM+":A1")), schemas.BadReference, autoIM},
		{"Amends equals MatchDigest", signed(aff(broker, "Amends", digest1)), schemas.BadReference, "Amends equals MatchDigest"},
		{"a REJECT amending its own digest", signed(aff(invMgr, "Amends", digest1, "Decision", "REJECT", "RejectReason", "SSI")), schemas.BadReference, "Amends"},
		// Rule order.
		{"not authorised beats bad reference", signed(aff(broker, "Affirms", invMgr+":M2")), schemas.NotAuthorised, ""},
		{"unknown security beats bad reference", signed(aff(invMgr, "ISIN", "GB0002634946", "Affirms", invMgr+":M2")), schemas.UnknownSecurity, ""},
		{"bad date beats bad reference", signed(keys(aff(invMgr, "Affirms", invMgr+":M2"), func(d *schemas.Draft) { d.Created = "2026-12-01T00:00:00Z" })), schemas.BadDate, ""},
		{"schema beats everything", signed(aff(broker, "Affirms", invMgr+":M2 "+invMgr+":M2")), schemas.Schema, "twice"},
		{"signature beats not authorised", with(aff(broker), func(*schemas.Draft) {}).AppendSigned(nil, refdata.DemoPrivateKey(invMgr)), schemas.Signature, ""},
	}
	run(t, New(v3Ref(), WithClock(clock)), tests)
}

func autoAff(sender string, extra ...string) *schemas.Draft {
	d := aff(sender, extra...)
	d.Set("InvMgr", autoIM)
	d.Set("Affirms", broker+":M1 "+autoIM+":M2")
	return d
}

// self makes d a trade whose Broker and InvMgr are selfTrade, with extra
// fields after.
func self(d *schemas.Draft, extra ...string) *schemas.Draft {
	d.Set("Broker", selfTrade)
	d.Set("InvMgr", selfTrade)
	for i := 0; i+1 < len(extra); i += 2 {
		d.Set(extra[i], extra[i+1])
	}
	return d
}

func run(t *testing.T, v *Validator, tests []struct {
	name   string
	rec    []byte
	want   schemas.Reason
	detail string
}) {
	t.Helper()
	var dec schemas.Decoder
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, deferred := range []bool{false, true} {
				var vd Verdict
				if deferred {
					var p *Pending
					vd, p = v.InspectDeferred(&dec, tt.rec, clock())
					if p != nil {
						ok := make([]bool, 1)
						new(signature.Batcher).Verify([]signature.Item{p.Item}, ok)
						p.Resolve(&vd, ok[0])
					}
				} else {
					vd = v.Inspect(&dec, tt.rec)
				}
				var got schemas.Reason
				if vd.Rej != nil {
					got = vd.Rej.Reason
				}
				if got != tt.want {
					t.Fatalf("deferred %v: got %v (%v), want %v", deferred, got, vd.Rej, tt.want)
				}
				if vd.Rej != nil && !strings.Contains(vd.Rej.Detail, tt.detail) {
					t.Fatalf("deferred %v: detail %q lacks %q", deferred, vd.Rej.Detail, tt.detail)
				}
			}
		})
	}
}

// The utility's AFF is authorised by the mode the validator has read: a
// switch applies to the next message; the utility's BIC is configurable.
func TestUtilityAffFollowsTheMode(t *testing.T) {
	ref := v3Ref()
	v := New(ref, WithClock(clock))
	var dec schemas.Decoder
	rec := signed(autoAff(utility))
	if vd := v.Inspect(&dec, rec); vd.Rej != nil {
		t.Fatalf("AUTO: %v", vd.Rej)
	}
	manual := ref.Clone()
	manual.PutAffirmation(refdata.Affirmation{InvMgr: autoIM, Mode: refdata.AffirmManual})
	v.SetRefdata(manual)
	if vd := v.Inspect(&dec, rec); vd.Rej == nil || vd.Rej.Reason != schemas.NotAuthorised {
		t.Fatalf("switched to MANUAL: %v", vd.Rej)
	}
	// Another utility BIC: STEUTLSGXXX is then a participant like any other.
	other := New(ref, WithClock(clock), WithUtilityBIC("MATCHSG1"))
	if other.UtilityBIC() != "MATCHSG1" {
		t.Fatal(other.UtilityBIC())
	}
	if vd := other.Inspect(&dec, rec); vd.Rej == nil || vd.Rej.Reason != schemas.NotAuthorised {
		t.Fatalf("the default utility's AFF under another utility BIC: %v", vd.Rej)
	}
}

// Verification off (benchmarks) still checks who may sign.
func TestDelegationWithoutVerification(t *testing.T) {
	v := New(v3Ref(), WithClock(clock), WithoutSignatureVerification())
	var dec schemas.Decoder
	if vd := v.Inspect(&dec, delegated(noe(), iso)); vd.Rej == nil || vd.Rej.Reason != schemas.Signature {
		t.Fatalf("an unlisted signer: %v", vd.Rej)
	}
	if vd := v.Inspect(&dec, delegated(noe(), fix)); vd.Rej != nil {
		t.Fatal(vd.Rej)
	}
}
