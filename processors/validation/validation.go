// Package validation is section 4 of the contract: every rule that needs
// reference data, checked in the contract's order so that the first failing
// rule gives the code. It is a pure function of the message, the reference
// data and the wall clock (for Created too far ahead), which is why the
// pipeline can run it in parallel before the stateful stages; the one
// stateful rule, CONFLICTING_DUPLICATE, is decided where identities are kept.
package validation

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/ste-utility/ste/processors/matching"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/decimal"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/schemas/signature"
)

// MaxAhead is how far a message's Created may be ahead of the wall clock.
const MaxAhead = 24 * time.Hour

// Validator checks messages against the current reference data. It is safe
// for concurrent use; SetRefdata swaps the data atomically, so a change applies
// to the next message without a restart.
type Validator struct {
	ref        atomic.Pointer[refdata.Set]
	now        func() time.Time
	skipVerify bool
	utility    string // the utility's BIC: its AFFs for AUTO InvMgrs are authorised
}

// Option configures a Validator.
type Option func(*Validator)

// WithClock sets the wall clock used for the Created rule. Default time.Now.
func WithClock(now func() time.Time) Option { return func(v *Validator) { v.now = now } }

// WithoutSignatureVerification skips the Ed25519 check (but not the presence
// and form of <Sig>). Only for benchmarks that measure everything else;
// results say so. Default: verification on.
func WithoutSignatureVerification() Option { return func(v *Validator) { v.skipVerify = true } }

// WithUtilityBIC names the utility's own BIC (messages.md §6, configurable):
// an AFF it sends on behalf of an investment manager whose affirmation mode
// is AUTO is authorised (§3a, §4 NOT_AUTHORISED). Default
// refdata.DefaultUtilityBIC.
func WithUtilityBIC(bic string) Option { return func(v *Validator) { v.utility = bic } }

// New returns a validator over ref.
func New(ref *refdata.Set, opts ...Option) *Validator {
	v := &Validator{now: time.Now, utility: refdata.DefaultUtilityBIC}
	v.ref.Store(ref)
	for _, o := range opts {
		o(v)
	}
	return v
}

// SetRefdata replaces the reference data.
func (v *Validator) SetRefdata(ref *refdata.Set) { v.ref.Store(ref) }

// Refdata returns the current reference data.
func (v *Validator) Refdata() *refdata.Set { return v.ref.Load() }

// Now is the validator's wall clock, for InspectDeferred.
func (v *Validator) Now() time.Time { return v.now() }

// UtilityBIC is the BIC whose AFFs for AUTO investment managers are
// authorised (WithUtilityBIC).
func (v *Validator) UtilityBIC() string { return v.utility }

// Verdict is the stateless part of handling one record.
type Verdict struct {
	Msg         *schemas.Message   // nil when the record could not be read as a message
	Rej         *schemas.Rejection // nil when valid
	Digest      matching.Digest    // first 16 bytes of SHA-256 of the record
	Hash16      string             // first 16 hex digits of that SHA-256 (NACK MsgIds)
	SenderKnown bool               // the Sender is a participant of any status: rejections get a NACK
	NetUnits    int                // minor units of SettleCcy, when known
}

// Identity returns the message identity when the record has a readable one.
func (vd *Verdict) Identity() (schemas.Identity, bool) {
	if vd.Msg == nil || !schemas.IsBIC(vd.Msg.Sender) || !schemas.IsMsgId(vd.Msg.MsgId) {
		return schemas.Identity{}, false
	}
	return vd.Msg.ID(), true
}

// Inbound is the accepted message as the matching engine takes it.
func (vd *Verdict) Inbound() *matching.Inbound {
	return &matching.Inbound{Msg: vd.Msg, Digest: vd.Digest, NetUnits: vd.NetUnits}
}

// Inspect decodes and validates one record: everything of section 4 but
// CONFLICTING_DUPLICATE. dec must not be shared between goroutines.
func (v *Validator) Inspect(dec *schemas.Decoder, rec []byte) Verdict {
	return v.InspectAt(dec, rec, v.now())
}

// InspectAt is Inspect with the utility's clock at now for the Created
// rule: a replay judges a message at the time the live utility received it
// (its inbound record's time), so that it decides what the live run decided
// whenever it runs.
func (v *Validator) InspectAt(dec *schemas.Decoder, rec []byte, now time.Time) Verdict {
	vd, _ := v.inspect(dec, rec, now, false)
	return vd
}

// Pending is a signature InspectDeferred left for its caller to verify, in
// a batch with others (signature.Batcher).
type Pending struct {
	Item signature.Item
	rej  *schemas.Rejection // the SIGNATURE rejection, if it does not verify
}

// Resolve completes vd, the verdict InspectDeferred returned with p, once
// the caller knows whether p.Item verifies. A signature that does not
// verify gives SIGNATURE, whatever later rule vd failed: its row comes
// first.
func (p *Pending) Resolve(vd *Verdict, valid bool) {
	if !valid {
		vd.Rej = p.rej
	}
}

// InspectDeferred is InspectAt with the verification of the signature left
// to the caller: when it returns a Pending, the verdict is the one the
// message gets if its signature verifies, and Pending.Resolve makes it the
// verdict InspectAt would have given. Without a Pending (no signature to
// verify: an earlier row failed, the signature is malformed, or
// verification is off) the verdict is final.
func (v *Validator) InspectDeferred(dec *schemas.Decoder, rec []byte, now time.Time) (Verdict, *Pending) {
	return v.inspect(dec, rec, now, true)
}

// inspect is InspectAt, with the verification left out when deferSig.
func (v *Validator) inspect(dec *schemas.Decoder, rec []byte, now time.Time, deferSig bool) (Verdict, *Pending) {
	sum := sha256.Sum256(rec)
	vd := Verdict{Hash16: hex.EncodeToString(sum[:8])}
	copy(vd.Digest[:], sum[:16])
	m, rej := dec.Decode(rec)
	vd.Msg = m
	ref := v.ref.Load()
	if m != nil && m.Sender != "" {
		_, vd.SenderKnown = ref.Participant(m.Sender)
	}
	var p *Pending
	if deferSig {
		p = new(Pending)
	}
	if rej == nil {
		rej = v.check(ref, m, &vd, now, p)
	}
	if p != nil && p.Item.Keys == nil {
		p = nil
	}
	vd.Rej = rej
	return vd, p
}

func reject(r schemas.Reason, detail string) *schemas.Rejection {
	return &schemas.Rejection{Reason: r, Detail: detail}
}

// check runs the rules from UNKNOWN_SENDER to BAD_REFERENCE in contract order.
// With p, a signature of the right form is not verified but left in p, and
// the rules after SIGNATURE are checked as if it verified.
func (v *Validator) check(ref *refdata.Set, m *schemas.Message, vd *Verdict, now time.Time, p *Pending) *schemas.Rejection {
	// UNKNOWN_SENDER
	sender, ok := ref.Participant(m.Sender)
	if !ok {
		return reject(schemas.UnknownSender, "Sender "+m.Sender+" is not a participant in the reference data")
	}
	if sender.Status != refdata.Active {
		return reject(schemas.UnknownSender, "Sender "+m.Sender+" is "+string(sender.Status)+", not ACTIVE")
	}
	// SIGNATURE: the Sender's keys, or a delegated Signer's (version 3).
	keys, owner := sender.Keys, m.Sender
	if m.Signer != "" {
		signer, problem := delegate(ref, &sender, m)
		if problem != "" {
			return reject(schemas.Signature, problem)
		}
		// Only the Signer's keys: a delegated message the Sender signed
		// itself does not verify (it names another signer).
		keys, owner = signer.Keys, m.Sender+"/"+m.Signer
	}
	if p != nil && !v.skipVerify {
		sig, problem := schemas.SignatureForm(keys, m)
		if problem != "" {
			return reject(schemas.Signature, problem)
		}
		p.Item = signature.Item{Sender: owner, Keys: keys, Msg: m.Signed(), Sig: sig}
		p.rej = reject(schemas.Signature, schemas.SignatureMismatchOf(m, len(keys)))
	} else if problem := v.signatureProblem(keys, m); problem != "" {
		return reject(schemas.Signature, problem)
	}
	// NOT_AUTHORISED: the "sent by" columns of sections 3 and 3a, for every
	// Function; and nothing from a participant that only signs for others.
	if rej := v.notAuthorised(ref, &sender, m); rej != nil {
		return rej
	}
	// UNKNOWN_PARTY
	for _, p := range []struct {
		field, bic string
		role       refdata.Role
		roleName   string
	}{
		{"Broker", m.Key.Broker, refdata.RoleBroker, "BROKER"},
		{"InvMgr", m.Key.InvMgr, refdata.RoleInvMgr, "INVMGR"},
		{"Custodian", m.Custodian, refdata.RoleCustodian, "CUSTODIAN"},
		{"PSET", m.PSET, refdata.RoleCSD, "CSD"},
	} {
		if p.bic == "" {
			continue // absent on this type or this CANCEL
		}
		part, ok := ref.Participant(p.bic)
		switch {
		case !ok:
			return reject(schemas.UnknownParty, p.field+" "+p.bic+" is not a participant in the reference data")
		case part.Status != refdata.Active:
			return reject(schemas.UnknownParty, p.field+" "+p.bic+" is "+string(part.Status)+", not ACTIVE")
		case !part.Roles.Has(p.role):
			return reject(schemas.UnknownParty, p.field+" "+p.bic+" does not have the role "+p.roleName)
		}
	}
	// UNKNOWN_SECURITY
	if !refdata.ISINCheckDigitValid(m.Key.ISIN) {
		return reject(schemas.UnknownSecurity, "ISIN "+m.Key.ISIN+" has a wrong check digit")
	}
	sec, ok := ref.Security(m.Key.ISIN)
	if !ok {
		return reject(schemas.UnknownSecurity, "ISIN "+m.Key.ISIN+" is not in the securities reference data")
	}
	if sec.Status != refdata.Active {
		return reject(schemas.UnknownSecurity, "ISIN "+m.Key.ISIN+" is "+string(sec.Status)+", not ACTIVE")
	}
	// UNKNOWN_CURRENCY
	var tradeCcy, settleCcy refdata.Currency
	for _, c := range []struct {
		field, code string
		dst         *refdata.Currency
	}{{"TradeCcy", m.TradeCcy, &tradeCcy}, {"SettleCcy", m.SettleCcy, &settleCcy}} {
		if c.code == "" {
			continue
		}
		cur, ok := ref.Currency(c.code)
		if !ok {
			return reject(schemas.UnknownCurrency, c.field+" "+c.code+" is not in the currency reference data")
		}
		*c.dst = cur
	}
	vd.NetUnits = settleCcy.MinorUnits
	// BAD_DATE
	if m.Has.Has(schemas.FSettleDate) {
		if m.SettleDate < m.TradeDate {
			return reject(schemas.BadDate, "SettleDate "+m.SettleDate.String()+" is before TradeDate "+m.TradeDate.String())
		}
		if m.SettleDate.IsWeekend() {
			return reject(schemas.BadDate, "SettleDate "+m.SettleDate.String()+" is a "+m.SettleDate.Weekday().String()+", not a business day")
		}
		if ref.IsHoliday(sec.Country, m.SettleDate) {
			return reject(schemas.BadDate, "SettleDate "+m.SettleDate.String()+" is a holiday in "+sec.Country+", the country of "+m.Key.ISIN)
		}
	}
	if m.CreatedOutOfRange {
		if m.Created < 0 {
			return reject(schemas.BadDate, "Created is before "+schemas.MinTime.Format(time.RFC3339)+", the earliest time STE holds")
		}
		return reject(schemas.BadDate, "Created is after "+schemas.MaxTime.Format(time.RFC3339)+
			", the latest time STE holds, and so more than 24 h ahead of the utility's clock")
	}
	if m.Created > now.Add(MaxAhead).UnixNano() {
		return reject(schemas.BadDate, "Created "+schemas.FormatTimestamp(m.Created)+" is more than 24 h ahead of the utility's clock")
	}
	// BAD_AMOUNT
	if rej := badAmount(m, tradeCcy, settleCcy); rej != nil {
		return rej
	}
	// BAD_REFERENCE (version 3, AFF only)
	if m.Type == schemas.AFF {
		return badReference(ref, m)
	}
	return nil
}

// delegate returns the participant m's Signer names when it may sign for
// sender (messages.md §2): ACTIVE, with role SIGNER, listed in the sender's
// signers; otherwise why not, a SIGNATURE problem.
func delegate(ref *refdata.Set, sender *refdata.Participant, m *schemas.Message) (refdata.Participant, string) {
	signer, ok := ref.Participant(m.Signer)
	switch {
	case !ok:
		return signer, "Signer " + m.Signer + " is not a participant in the reference data"
	case signer.Status != refdata.Active:
		return signer, "Signer " + m.Signer + " is " + string(signer.Status) + ", not ACTIVE"
	case !signer.Roles.Has(refdata.RoleSigner):
		return signer, "Signer " + m.Signer + " does not have the role SIGNER"
	case !sender.HasSigner(m.Signer):
		return signer, "Signer " + m.Signer + " is not among the signers of " + m.Sender + " in the reference data (participants.csv, signers)"
	}
	return signer, ""
}

// notAuthorised is the NOT_AUTHORISED row: who may send m (sections 3, 3a)
// and no message from a Sender whose only role is SIGNER.
func (v *Validator) notAuthorised(ref *refdata.Set, sender *refdata.Participant, m *schemas.Message) *schemas.Rejection {
	if sender.SignerOnly() {
		return reject(schemas.NotAuthorised, "Sender "+m.Sender+" has only the role SIGNER: a delegated signer signs for participants and sends no message as itself")
	}
	if !m.Type.IsLifecycle() {
		if who, party := sentBy(m); m.Sender != party {
			return reject(schemas.NotAuthorised, m.Type.String()+" must be sent by the "+who+" named in it ("+party+"), not by "+m.Sender)
		}
		return nil
	}
	k := &m.Key
	if k.Broker == k.InvMgr {
		return reject(schemas.NotAuthorised, "Broker and InvMgr are both "+k.Broker+": a trade without a counterparty has no "+
			m.Type.String()+", whoever sends it")
	}
	if m.Type == schemas.AFF && m.Amends == "" {
		switch {
		case m.Sender == k.InvMgr:
			return nil
		case m.Sender == v.utility && ref.AffirmationMode(k.InvMgr) == refdata.AffirmAuto:
			return nil
		case m.Sender == v.utility:
			return reject(schemas.NotAuthorised, "the utility affirms only for an InvMgr whose affirmation mode is AUTO; "+k.InvMgr+"'s is "+
				ref.AffirmationMode(k.InvMgr).String())
		}
		return reject(schemas.NotAuthorised, "an AFF without Amends (a first affirmation) must be sent by the InvMgr named in it ("+k.InvMgr+"), not by "+m.Sender)
	}
	if m.Sender != k.Broker && m.Sender != k.InvMgr {
		what := m.Type.String()
		if m.Type == schemas.AFF {
			what = "an AFF with Amends"
		}
		return reject(schemas.NotAuthorised, what+" must be sent by the Broker ("+k.Broker+") or the InvMgr ("+k.InvMgr+") named in it, not by "+m.Sender)
	}
	return nil
}

// badReference is the BAD_REFERENCE row of an AFF: its tokens' Senders
// (their form only; whether they name messages is the trade's question)
// and its Amends.
func badReference(ref *refdata.Set, m *schemas.Message) *schemas.Rejection {
	k := &m.Key
	var fromBroker, fromInvMgr bool
	stranger := ""
	for _, tok := range m.Affirms {
		id, _ := schemas.ParseToken(tok) // the form was checked in decoding
		switch id.Sender {
		case k.Broker:
			fromBroker = true
		case k.InvMgr:
			fromInvMgr = true
		default:
			if p, ok := ref.Participant(id.Sender); stranger == "" && (!ok || p.Status != refdata.Active || !p.Roles.Has(refdata.RoleCustodian)) {
				stranger = tok
			}
		}
	}
	switch {
	case !fromBroker:
		return reject(schemas.BadReference, "Affirms names no message of the Broker "+k.Broker+": an affirmed set holds its NOE and NPRs")
	case !fromInvMgr:
		return reject(schemas.BadReference, "Affirms names no message of the InvMgr "+k.InvMgr+": an affirmed set holds its ALCs")
	case stranger != "":
		return reject(schemas.BadReference, "Affirms token "+schemas.Echo(stranger)+" names a message of a Sender that is neither the Broker, the InvMgr nor an ACTIVE CUSTODIAN")
	case m.Amends != "" && m.Amends == m.MatchDigest:
		return reject(schemas.BadReference, "Amends equals MatchDigest: an amendment names an agreement other than the one it amends")
	}
	return nil
}

func (v *Validator) signatureProblem(keys []ed25519.PublicKey, m *schemas.Message) string {
	if v.skipVerify {
		if !m.HasSig || m.Sig == "" {
			return "<Sig> is missing or empty"
		}
		return ""
	}
	return schemas.SignatureProblem(keys, m)
}

// sentBy names the party that may send m and its BIC in m.
func sentBy(m *schemas.Message) (who, bic string) {
	switch m.Type {
	case schemas.ALC:
		return "InvMgr", m.Key.InvMgr
	case schemas.SET:
		return "Custodian", m.Custodian
	}
	return "Broker", m.Key.Broker
}

func badAmount(m *schemas.Message, tradeCcy, settleCcy refdata.Currency) *schemas.Rejection {
	for f := schemas.Field(0); f < schemas.FCashAccount; f++ {
		if m.OutOfRange.Has(f) {
			return reject(schemas.BadAmount, f.String()+" has more than 18 significant digits, beyond what STE holds exactly")
		}
	}
	if m.Has.Has(schemas.FQuantity) && m.Quantity <= 0 {
		return reject(schemas.BadAmount, "Quantity "+strconv.FormatInt(m.Quantity, 10)+" is not positive")
	}
	if m.Has.Has(schemas.FPrice) && m.Price.Sign() <= 0 {
		return reject(schemas.BadAmount, "Price "+m.Price.String()+" is not positive")
	}
	// Amounts are in TradeCcy (NPR gross, commission, fees) or SettleCcy (net).
	for _, a := range []struct {
		f   schemas.Field
		val decimal.Dec
		ccy refdata.Currency
	}{
		{schemas.FGrossAmount, m.GrossAmount, tradeCcy},
		{schemas.FCommission, m.Commission, tradeCcy},
		{schemas.FFees, m.Fees, tradeCcy},
		{schemas.FNetAmount, m.NetAmount, settleCcy},
	} {
		if m.Has.Has(a.f) && a.ccy.Code != "" && !a.val.FitsUnits(a.ccy.MinorUnits) {
			return reject(schemas.BadAmount, a.f.String()+" "+a.val.String()+" is not a whole number of "+a.ccy.Code+
				" minor units ("+strconv.Itoa(a.ccy.MinorUnits)+" decimals)")
		}
	}
	if m.Type != schemas.NPR {
		return nil
	}
	has := func(fs ...schemas.Field) bool {
		for _, f := range fs {
			if !m.Has.Has(f) {
				return false
			}
		}
		return true
	}
	if has(schemas.FSettleCcy, schemas.FTradeCcy) && m.SettleCcy != m.TradeCcy {
		return reject(schemas.BadAmount, "SettleCcy "+m.SettleCcy+" differs from TradeCcy "+m.TradeCcy+" (no FX settlement in version 1)")
	}
	if has(schemas.FGrossAmount, schemas.FQuantity, schemas.FPrice, schemas.FTradeCcy) {
		want, ok := decimal.MulRound(m.Quantity, m.Price, tradeCcy.MinorUnits)
		if !ok || want != m.GrossAmount {
			return reject(schemas.BadAmount, "GrossAmount "+m.GrossAmount.Fixed(tradeCcy.MinorUnits)+" is not Quantity × Price = "+
				want.Fixed(tradeCcy.MinorUnits)+" "+tradeCcy.Code)
		}
	}
	if has(schemas.FGrossAmount, schemas.FCommission, schemas.FFees, schemas.FNetAmount) {
		var want decimal.Dec
		ok1, ok2 := true, true
		sign := "+"
		if m.Side == schemas.BUY {
			want, ok1 = decimal.Add(m.GrossAmount, m.Commission)
			want, ok2 = decimal.Add(want, m.Fees)
		} else {
			sign = "−"
			want, ok1 = decimal.Sub(m.GrossAmount, m.Commission)
			want, ok2 = decimal.Sub(want, m.Fees)
		}
		if !ok1 || !ok2 || want != m.NetAmount {
			return reject(schemas.BadAmount, "NetAmount "+m.NetAmount.String()+" is not GrossAmount "+sign+" Commission "+sign+
				" Fees = "+want.String()+" for a "+m.Side.String())
		}
	}
	return nil
}
