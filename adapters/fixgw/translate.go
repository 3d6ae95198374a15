package fixgw

import (
	"errors"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"github.com/quickfixgo/quickfix"

	"github.com/ste-utility/ste/adapters"
	"github.com/ste-utility/ste/adapters/journal"
	"github.com/ste-utility/ste/adapters/msgid"
	"github.com/ste-utility/ste/adapters/stexml"
)

// Inbound translates FIX application messages into STE records
// (docs/spec/adapters.md §4.5), deterministically: the same message, with
// the same journal, always gives the same bytes (§3.1), so a resend is an
// exact duplicate. It reads no header field but SenderCompID (§4.8); the
// session's BIC is the Sender.
type Inbound struct {
	Signer *adapters.Signer
	// J is the journal, read to its end before Translate (§1).
	J *journal.Index
	// Now is the clock of the adapter's own answers (TransactTime of a
	// rejection).
	Now func() string
}

// Outcome is what one inbound message became: exactly one of a submission
// to publish (and, for a J, the P 87=3 to queue once it is acknowledged), an
// adapter-level answer (nothing published, §4.6), a business reject for the
// engine to send (j), or nothing at all (an AU with AffirmStatus 1).
type Outcome struct {
	Sub    *adapters.Submission
	Ack    *quickfix.Message
	Answer *quickfix.Message
	Reject quickfix.MessageRejectError
	Ignore bool
	// What names the outcome for the log and the metrics.
	What string
}

// rejection is an adapter-level rejection (§4.6): its codes per answer
// and its Text.
type rejection struct {
	p87, p88 string // P: AllocStatus (default 1), AllocRejCode
	ar751    string // AR: TradeReportRejectReason
	text     string
}

func (r *rejection) Error() string { return r.text }

func rej(p88, ar751, text string) *rejection { return &rejection{p88: p88, ar751: ar751, text: text} }

func required(tag int) *rejection { return rej("7", "99", tagName(tag)+" required") }

func invalid(tag int) *rejection { return rej("7", "99", "invalid character in "+tagName(tag)) }

func unsupported(tag int, v string) *rejection {
	return rej("7", "99", "unsupported "+tagName(tag)+"="+v)
}

var (
	rejNoISIN   = rej("7", "2", "no ISIN: SecurityIDSource(22)=4 required")
	rejOrders   = rej("5", "99", "exactly one OrderID(37) required")
	rejSide     = rej("7", "99", "Side must be 1 or 2")
	rejTooLarge = rej("7", "99", "TOO_LARGE")
)

func rejParty(role string) *rejection {
	return rej("7", "1", "Parties: exactly one role "+role+" with PartyIDSource B required")
}

// isinOf is the ISIN of §4.5: SecurityID(48) when SecurityIDSource(22) is
// 4, else the first NoSecurityAltID entry with source 4.
func isinOf(n *Node) (string, bool) {
	if n.Get(tagSecurityIDSource) == "4" && n.Get(tagSecurityID) != "" {
		return n.Get(tagSecurityID), true
	}
	for _, e := range n.Group(tagNoSecurityAltID) {
		if e.Get(tagSecurityAltIDSource) == "4" && e.Get(tagSecurityAltID) != "" {
			return e.Get(tagSecurityAltID), true
		}
	}
	return "", false
}

// partyOf is "Party R" of §4.5: exactly one entry of the group with role R,
// and that one with source B.
func partyOf(n *Node, group, idTag, srcTag, roleTag int, role string) (string, bool) {
	var found []*Node
	for _, e := range n.Group(group) {
		if e.Get(roleTag) == role {
			found = append(found, e)
		}
	}
	if len(found) != 1 || found[0].Get(srcTag) != "B" || found[0].Get(idTag) == "" {
		return "", false
	}
	return found[0].Get(idTag), true
}

func parties(n *Node) (broker, invmgr string, r *rejection) {
	b, ok := partyOf(n, tagNoPartyIDs, tagPartyID, tagPartyIDSource, tagPartyRole, "1")
	if !ok {
		return "", "", rejParty("1")
	}
	i, ok := partyOf(n, tagNoPartyIDs, tagPartyID, tagPartyIDSource, tagPartyRole, "13")
	if !ok {
		return "", "", rejParty("13")
	}
	return b, i, nil
}

func sideOf(v string) (string, bool) {
	switch v {
	case "1":
		return "BUY", true
	case "2":
		return "SELL", true
	}
	return "", false
}

// fixSide is the FIX Side of an STE side.
func fixSide(s string) string {
	if s == "SELL" {
		return "2"
	}
	return "1"
}

// orderIDOf is the OrderID of the only NoOrders entry (J, AK), which must
// begin with ClOrdID (§4.2, the engine's dictionary counts entries by it).
func orderIDOf(n *Node) (string, bool) {
	es := n.Group(tagNoOrders)
	if len(es) != 1 || !es[0].Has(tagClOrdID) || es[0].Get(tagOrderID) == "" {
		return "", false
	}
	return es[0].Get(tagOrderID), true
}

// convField is tag's value in n converted by conv: required when absent or
// empty, invalid when conv refuses it.
func convField(n *Node, tag int, conv func(string) (string, bool)) (string, *rejection) {
	v, ok := n.F[tag]
	if !ok || v == "" {
		return "", required(tag)
	}
	d, ok := conv(v)
	if !ok {
		return "", invalid(tag)
	}
	return d, nil
}

// noErr turns a converter that returns an error into convField's form.
func noErr(conv func(string) (string, error)) func(string) (string, bool) {
	return func(s string) (string, bool) {
		d, err := conv(s)
		return d, err == nil
	}
}

func date(n *Node, tag int) (string, *rejection) { return convField(n, tag, noErr(stexml.FIXDate)) }

func timestamp(n *Node, tag int) (string, *rejection) {
	return convField(n, tag, noErr(stexml.FIXTimestamp))
}

func decimal(n *Node, tag int) (string, *rejection) { return convField(n, tag, stexml.Decimal) }

// makeID is MsgId(P, parts) naming the tag of a part that holds a control
// character.
func makeID(prefix string, tags []int, parts ...string) (string, *rejection) {
	id, err := msgid.Make(prefix, parts...)
	var ce *msgid.ControlError
	if errors.As(err, &ce) {
		return "", invalid(tags[ce.Part])
	}
	return id, nil
}

// keyBody is the six key fields of a Body (a CANCEL's whole Body).
func keyBody(k journal.KeyFields) []stexml.Field {
	return []stexml.Field{stexml.F("TradeRef", k.TradeRef), stexml.F("TradeDate", k.TradeDate), stexml.F("ISIN", k.ISIN),
		stexml.F("Side", k.Side), stexml.F("Broker", k.Broker), stexml.F("InvMgr", k.InvMgr)}
}

// built is one translated record and its journal translation.
type built struct {
	rec *stexml.Record
	t   *journal.Translation
}

// build writes and signs a record; a value it cannot represent names the
// FIX tag it came from (fieldTags: STE field → FIX tag).
func (in *Inbound) build(h stexml.Header, body []stexml.Field, fieldTags map[string]int, sender string, ids []string, origin adapters.Origin) (built, *rejection) {
	rec, err := in.Signer.Build(h, body)
	var bad *stexml.BadValueError
	switch {
	case errors.Is(err, stexml.ErrTooLarge):
		return built{}, rejTooLarge
	case errors.As(err, &bad):
		if tag, ok := fieldTags[bad.Field]; ok {
			return built{}, invalid(tag)
		}
		return built{}, rej("7", "99", "invalid character in "+bad.Field)
	case err != nil:
		return built{}, rej("7", "99", err.Error())
	}
	h.Signer = in.Signer.BIC
	t := adapters.Translation(journal.FIX44, sender, rec, h, body, ids, origin)
	return built{rec, t}, nil
}

func submission(sender string, origin adapters.Origin, bs []built) *adapters.Submission {
	s := &adapters.Submission{Adapter: journal.FIX44, Participant: sender, Origin: origin}
	for i, b := range bs {
		b.t.Index = i
		s.Journal = append(s.Journal, journal.Entry{Translation: b.t})
		s.Records = append(s.Records, b.rec)
	}
	return s
}

// Translate translates one application message of the session of sender.
func (in *Inbound) Translate(m *Message, sender string, origin adapters.Origin) Outcome {
	switch m.Type {
	case "AE":
		return in.tradeCaptureReport(m, sender, origin)
	case "J":
		return in.allocation(m, sender, origin)
	case "AK":
		return in.confirmation(m, sender, origin)
	case "AU":
		return in.confirmationAck(m, sender, origin)
	}
	return Outcome{Reject: quickfix.NewBusinessMessageRejectErrorWithRefID("unsupported message type", 3, mainID(m), nil),
		What: "unsupported"}
}

// mainIDs are the tags of the main ID of the message types FIX 4.4 defines
// that the adapter does not support (BusinessRejectRefID of its j, §4.3).
var mainIDs = map[string]int{"D": 11, "F": 11, "G": 11, "H": 11, "Q": 11, "8": 17, "AS": 755, "AT": 755, "AV": 791,
	"T": 777, "AE": 571, "J": 70, "AK": 664, "AU": 664, "P": 70, "AR": 571, "E": 66, "s": 548, "t": 548, "AB": 11,
	"AC": 11, "R": 131, "S": 117, "i": 117, "b": 117, "Z": 298, "c": 320, "e": 322, "V": 262, "W": 262, "X": 262, "x": 320,
	"y": 322, "AD": 568, "AF": 584, "AG": 644, "AH": 644, "AI": 693, "AJ": 694, "AL": 710, "AM": 721, "AN": 710, "AO": 721,
	"AP": 721, "AQ": 721, "AW": 833, "AX": 909, "AY": 904, "AZ": 909, "BA": 909, "BB": 909, "BC": 923, "BD": 923, "BE": 923,
	"BF": 923, "BG": 923, "BH": 923, "BI": 923}

func mainID(m *Message) string {
	if tag, ok := mainIDs[m.Type]; ok {
		return m.Body.Get(tag)
	}
	return ""
}

// ---- AE → NOE (§4.5.1) ----

func (in *Inbound) tradeCaptureReport(m *Message, sender string, origin adapters.Origin) Outcome {
	b := m.Body
	id := b.Get(tagTradeReportID)
	reject := func(r *rejection) Outcome {
		return Outcome{Answer: rejectAE(b, r, in.Now()), What: "AE rejected: " + r.text}
	}
	fn := ""
	switch v := b.Get(tagTradeReportTransType); v {
	case "", "0":
		fn = "NEW"
	case "2":
		fn = "REPLACE"
	case "1":
		fn = "CANCEL"
	default:
		return reject(unsupported(tagTradeReportTransType, v))
	}
	created, r := timestamp(b, tagTransactTime)
	if r != nil {
		return reject(r)
	}
	var related string
	if fn != "NEW" {
		if b.Get(tagTradeReportRefID) == "" {
			return reject(required(tagTradeReportRefID))
		}
		if related, r = makeID(msgid.FIXTradeReport, []int{tagTradeReportRefID}, b.Get(tagTradeReportRefID)); r != nil {
			return reject(r)
		}
	}
	sides := b.Group(tagNoSides)
	if fn != "CANCEL" {
		for _, tag := range []int{tagSettlDate, tagLastMkt} {
			if b.Get(tag) == "" {
				return reject(required(tag))
			}
		}
		if len(sides) == 1 && sides[0].Get(tagCurrency) == "" {
			return reject(required(tagCurrency))
		}
	}
	isin, ok := isinOf(b)
	if !ok {
		return reject(rejNoISIN)
	}
	if len(sides) != 1 || sides[0].Get(tagOrderID) == "" {
		return reject(rejOrders)
	}
	s := sides[0]
	broker, invmgr, r := parties(s)
	if r != nil {
		return reject(r)
	}
	side, ok := sideOf(s.Get(tagSide))
	if !ok {
		return reject(rejSide)
	}
	msgID, r := makeID(msgid.FIXTradeReport, []int{tagTradeReportID}, id)
	if r != nil {
		return reject(r)
	}
	if related != "" {
		if by := in.supersededBy(sender, []string{related}, sameMsgID(msgID)); by != "" {
			return reject(rej("7", "99", tagName(tagTradeReportRefID)+" already replaced or cancelled by "+by))
		}
	}
	tradeDate, r := date(b, tagTradeDate)
	if r != nil {
		return reject(r)
	}
	k := journal.KeyFields{TradeRef: s.Get(tagOrderID), TradeDate: tradeDate, ISIN: isin, Side: side, Broker: broker, InvMgr: invmgr}
	body := keyBody(k)
	if fn != "CANCEL" {
		qty, r := decimal(b, tagLastQty)
		if r != nil {
			return reject(r)
		}
		px, r := decimal(b, tagLastPx)
		if r != nil {
			return reject(r)
		}
		settle, r := date(b, tagSettlDate)
		if r != nil {
			return reject(r)
		}
		body = append(body, stexml.F("Quantity", qty), stexml.F("Price", px), stexml.F("TradeCcy", s.Get(tagCurrency)),
			stexml.F("SettleDate", settle), stexml.F("Market", b.Get(tagLastMkt)), stexml.F("ExecTime", created))
	}
	h := stexml.Header{MsgId: msgID, MsgType: "NOE", Function: fn, Sender: sender, Created: created, RelatedMsgId: related}
	bt, r := in.build(h, body, aeTags, sender, []string{id}, origin)
	if r != nil {
		return reject(r)
	}
	bt.t.Fields = map[string]string{fieldTransType: b.Get(tagTradeReportTransType)}
	return Outcome{Sub: submission(sender, origin, []built{bt}), What: "AE → NOE " + fn}
}

// fieldTransType keeps an AE's TradeReportTransType(487) as sent (absent
// stays absent), which every AR echoes (§4.7.1).
const fieldTransType = "fix.487"

var aeTags = map[string]int{"TradeRef": tagOrderID, "TradeDate": tagTradeDate, "ISIN": tagSecurityID, "Broker": tagPartyID,
	"InvMgr": tagPartyID, "Quantity": tagLastQty, "Price": tagLastPx, "TradeCcy": tagCurrency, "SettleDate": tagSettlDate,
	"Market": tagLastMkt, "ExecTime": tagTransactTime}

// supersededBy is the original ID of a message of sender, not wholly
// NACKed, that already replaced or cancelled one of refs (§4.8); "" when
// none. self tells the message being translated (a resend of it does not
// supersede its own reference).
func (in *Inbound) supersededBy(sender string, refs []string, self func(*journal.Translation) bool) string {
	type group struct {
		id     string
		nacked bool
	}
	var gs []*group
	byKey := map[string]*group{}
	for _, ref := range refs {
		for _, t := range in.J.Related(sender, ref) {
			if t.Adapter != journal.FIX44 || len(t.OriginalIDs) == 0 || self(t) {
				continue
			}
			k := t.OriginalIDs[0] + "|" + t.OriginSHA256
			g := byKey[k]
			if g == nil {
				g = &group{id: t.OriginalIDs[0], nacked: true}
				byKey[k] = g
				gs = append(gs, g)
			}
			if !in.J.NACKed(t) {
				g.nacked = false
			}
		}
	}
	for _, g := range gs {
		if !g.nacked {
			return g.id
		}
	}
	return ""
}

func sameMsgID(id string) func(*journal.Translation) bool {
	return func(t *journal.Translation) bool { return t.MsgId == id }
}

func sameAllocID(allocID string) func(*journal.Translation) bool {
	return func(t *journal.Translation) bool { return t.MsgType == "ALC" && t.OriginalIDs[0] == allocID }
}

// ---- J → ALC per account (§4.5.2) ----

var jTags = map[string]int{"TradeRef": tagOrderID, "TradeDate": tagTradeDate, "ISIN": tagSecurityID, "Broker": tagPartyID,
	"InvMgr": tagPartyID, "Account": tagAllocAccount, "Quantity": tagAllocQty, "Price": tagAllocPrice, "TradeCcy": tagCurrency,
	"Custodian": tagNestedPartyID, "PSET": tagNestedPartyID}

// maxAllocs is the largest J (messages.md §3a "Size").
const maxAllocs = 250

// oldJ is the J a replace or cancel names, from the journal: its key
// fields and accounts in their order.
type oldJ struct {
	key      journal.KeyFields
	accounts []string
}

// currentJ is the J of (sender, allocID) a replace or cancel acts on: the
// latest translation of it not wholly NACKed (an AllocID whose J was wholly
// NACKed may be reused), else the latest.
func (in *Inbound) currentJ(sender, allocID string) (*oldJ, bool) {
	ts := in.J.ByOriginalID(journal.FIX44, sender, allocID)
	type group struct {
		ts     []*journal.Translation
		nacked bool
	}
	var order []string
	gs := map[string]*group{}
	for _, t := range ts {
		if t.MsgType != "ALC" {
			continue
		}
		g := gs[t.OriginSHA256]
		if g == nil {
			g = &group{nacked: true}
			gs[t.OriginSHA256] = g
			order = append(order, t.OriginSHA256)
		}
		g.ts = append(g.ts, t)
		if !in.J.NACKed(t) {
			g.nacked = false
		}
	}
	if len(order) == 0 {
		return nil, false
	}
	pick := gs[order[len(order)-1]]
	for i := len(order) - 1; i >= 0; i-- {
		if !gs[order[i]].nacked {
			pick = gs[order[i]]
			break
		}
	}
	sort.SliceStable(pick.ts, func(i, j int) bool { return pick.ts[i].Index < pick.ts[j].Index })
	o := &oldJ{key: pick.ts[0].Key}
	for _, t := range pick.ts {
		if (t.Function == "NEW" || t.Function == "REPLACE") && len(t.Accounts) > 0 {
			o.accounts = append(o.accounts, t.Accounts[0])
		}
	}
	return o, true
}

// reused says whether the journal holds another J under (sender, allocID)
// — with other records than bs — not wholly NACKed (§4.5.2).
func (in *Inbound) reused(sender, allocID string, bs []built) bool {
	mine := map[string]string{}
	for _, b := range bs {
		mine[b.t.MsgId] = b.t.SignedSHA256
	}
	type group struct {
		same, nacked bool
		n            int
	}
	gs := map[string]*group{}
	var order []string
	for _, t := range in.J.ByOriginalID(journal.FIX44, sender, allocID) {
		if t.MsgType != "ALC" {
			continue
		}
		g := gs[t.OriginSHA256]
		if g == nil {
			g = &group{same: true, nacked: true}
			gs[t.OriginSHA256] = g
			order = append(order, t.OriginSHA256)
		}
		g.n++
		if mine[t.MsgId] != t.SignedSHA256 {
			g.same = false
		}
		if !in.J.NACKed(t) {
			g.nacked = false
		}
	}
	for _, k := range order {
		g := gs[k]
		if (!g.same || g.n != len(bs)) && !g.nacked {
			return true
		}
	}
	return false
}

func (in *Inbound) allocation(m *Message, sender string, origin adapters.Origin) Outcome {
	b := m.Body
	allocID := b.Get(tagAllocID)
	reject := func(r *rejection) Outcome {
		return Outcome{Answer: rejectJ(allocID, r, in.Now()), What: "J rejected: " + r.text}
	}
	fn := ""
	switch v := b.Get(tagAllocTransType); v {
	case "0":
		fn = "NEW"
	case "1":
		fn = "REPLACE"
	case "2":
		fn = "CANCEL"
	default:
		return reject(unsupported(tagAllocTransType, v))
	}
	switch v := b.Get(tagAllocType); v {
	case "1", "2", "5":
	default:
		return reject(unsupported(tagAllocType, v))
	}
	created, r := timestamp(b, tagTransactTime)
	if r != nil {
		return reject(r)
	}
	ref := b.Get(tagRefAllocID)
	if fn != "NEW" && ref == "" {
		return reject(required(tagRefAllocID))
	}
	allocs := b.Group(tagNoAllocs)
	if fn != "CANCEL" {
		if b.Get(tagCurrency) == "" {
			return reject(required(tagCurrency))
		}
		for _, e := range allocs {
			if e.Get(tagAllocQty) == "" {
				return reject(required(tagAllocQty))
			}
		}
	}
	// Fragmentation, for every J.
	if v, ok := b.F[tagTotNoAllocs]; ok && v != strconv.Itoa(len(allocs)) || b.Get(tagLastFragment) == "N" {
		return reject(rej("7", "99", "fragmented allocations are not supported: TotNoAllocs(892) must equal NoAllocs(78) and LastFragment(893) must not be N"))
	}
	if fn == "CANCEL" {
		return in.allocationCancel(b, sender, allocID, ref, created, origin, reject)
	}
	isin, ok := isinOf(b)
	if !ok {
		return reject(rejNoISIN)
	}
	broker, invmgr, r := parties(b)
	if r != nil {
		return reject(r)
	}
	tradeRef, ok := orderIDOf(b)
	if !ok || b.Get(tagAllocNoOrdersType) != "1" {
		return reject(rejOrders)
	}
	side, ok := sideOf(b.Get(tagSide))
	if !ok {
		return reject(rejSide)
	}
	if len(allocs) == 0 || len(allocs) > maxAllocs {
		return reject(rej("7", "99", "NoAllocs(78) must be 1 to 250"))
	}
	seen := map[string]bool{}
	for _, e := range allocs {
		a := e.Get(tagAllocAccount)
		if seen[a] {
			return reject(rej("7", "99", "duplicate AllocAccount(79) "+a))
		}
		seen[a] = true
	}
	type alloc struct{ account, qty, price, custodian, pset string }
	var as []alloc
	for _, e := range allocs {
		acct := e.Get(tagAllocAccount)
		cust, ok1 := partyOf(e, tagNoNestedPartyIDs, tagNestedPartyID, tagNestedPartyIDSource, tagNestedPartyRole, "28")
		pset, ok2 := partyOf(e, tagNoNestedPartyIDs, tagNestedPartyID, tagNestedPartyIDSource, tagNestedPartyRole, "10")
		if !ok1 || !ok2 {
			return reject(rej("0", "99", "allocation "+acct+": NestedParties role 28 and 10 required"))
		}
		as = append(as, alloc{account: acct, custodian: cust, pset: pset})
	}
	sum := new(big.Rat)
	for i, e := range allocs {
		qty, ok := stexml.Decimal(e.Get(tagAllocQty))
		if !ok {
			return reject(invalid(tagAllocQty))
		}
		q, _ := new(big.Rat).SetString(qty)
		sum.Add(sum, q)
		as[i].qty = qty
		px := e.Get(tagAllocPrice)
		pxTag := tagAllocPrice
		if px == "" {
			px, pxTag = b.Get(tagAvgPx), tagAvgPx
		}
		if px == "" {
			return reject(required(tagAvgPx))
		}
		if as[i].price, ok = stexml.Decimal(px); !ok {
			return reject(invalid(pxTag))
		}
	}
	total, ok := stexml.Decimal(b.Get(tagQuantity))
	if !ok {
		return reject(invalid(tagQuantity))
	}
	if t, _ := new(big.Rat).SetString(total); t.Cmp(sum) != 0 {
		return reject(rej("1", "99", "sum of AllocQty differs from Quantity"))
	}
	tradeDate, r := date(b, tagTradeDate)
	if r != nil {
		return reject(r)
	}
	k := journal.KeyFields{TradeRef: tradeRef, TradeDate: tradeDate, ISIN: isin, Side: side, Broker: broker, InvMgr: invmgr}
	var old *oldJ
	if fn == "REPLACE" {
		var ok bool
		if old, ok = in.currentJ(sender, ref); !ok {
			return reject(&rejection{p87: "1", p88: "7", text: "unknown RefAllocID"})
		}
		if by := in.supersededBy(sender, in.refsOf(ref, old), sameAllocID(allocID)); by != "" {
			return reject(rej("7", "99", tagName(tagRefAllocID)+" already replaced or cancelled by "+by))
		}
		if old.key != k {
			return reject(rej("11", "99", "key fields differ from RefAllocID: cancel it and send a new J"))
		}
	}
	var bs []built
	count := strconv.Itoa(len(as))
	for _, a := range as {
		id, r := makeID(msgid.FIXAllocation, []int{tagAllocID, tagAllocAccount}, allocID, a.account)
		if r != nil {
			return reject(r)
		}
		h := stexml.Header{MsgId: id, MsgType: "ALC", Function: fn, Sender: sender, Created: created}
		if fn == "REPLACE" {
			if h.RelatedMsgId, r = makeID(msgid.FIXAllocation, []int{tagRefAllocID, tagAllocAccount}, ref, a.account); r != nil {
				return reject(r)
			}
		}
		body := append(keyBody(k), stexml.F("AllocCount", count), stexml.F("Account", a.account), stexml.F("Quantity", a.qty),
			stexml.F("Price", a.price), stexml.F("TradeCcy", b.Get(tagCurrency)), stexml.F("Custodian", a.custodian),
			stexml.F("PSET", a.pset))
		bt, r := in.build(h, body, jTags, sender, []string{allocID, a.account}, origin)
		if r != nil {
			return reject(r)
		}
		bs = append(bs, bt)
	}
	if old != nil {
		for _, acct := range old.accounts {
			if seen[acct] {
				continue
			}
			bt, r := in.allocCancel(sender, allocID, ref, acct, created, old.key, origin)
			if r != nil {
				return reject(r)
			}
			bs = append(bs, bt)
		}
	}
	if in.reused(sender, allocID, bs) {
		return reject(rej("7", "99", "CONFLICTING_DUPLICATE: AllocID already used"))
	}
	return Outcome{Sub: submission(sender, origin, bs), Ack: receivedJ(allocID, b.Get(tagTransactTime), b.Get(tagTradeDate)),
		What: "J → " + count + " ALC " + fn}
}

// refsOf are the MsgIds of the ALCs of the J (ref) a replace or cancel acts
// on, whose supersession §4.8 looks for.
func (in *Inbound) refsOf(ref string, old *oldJ) []string {
	var out []string
	for _, a := range old.accounts {
		if id, err := msgid.Make(msgid.FIXAllocation, ref, a); err == nil {
			out = append(out, id)
		}
	}
	return out
}

func (in *Inbound) allocCancel(sender, allocID, ref, acct, created string, k journal.KeyFields, origin adapters.Origin) (built, *rejection) {
	id, r := makeID(msgid.FIXAllocation, []int{tagAllocID, tagAllocAccount}, allocID, acct)
	if r != nil {
		return built{}, r
	}
	related, r := makeID(msgid.FIXAllocation, []int{tagRefAllocID, tagAllocAccount}, ref, acct)
	if r != nil {
		return built{}, r
	}
	h := stexml.Header{MsgId: id, MsgType: "ALC", Function: "CANCEL", Sender: sender, Created: created, RelatedMsgId: related}
	bt, r := in.build(h, keyBody(k), jTags, sender, []string{allocID, acct}, origin)
	if r != nil {
		return built{}, r
	}
	bt.t.Accounts = []string{acct}
	return bt, nil
}

func (in *Inbound) allocationCancel(b *Node, sender, allocID, ref, created string, origin adapters.Origin, reject func(*rejection) Outcome) Outcome {
	old, ok := in.currentJ(sender, ref)
	if !ok {
		return reject(&rejection{p87: "1", p88: "7", text: "unknown RefAllocID"})
	}
	if by := in.supersededBy(sender, in.refsOf(ref, old), sameAllocID(allocID)); by != "" {
		return reject(rej("7", "99", tagName(tagRefAllocID)+" already replaced or cancelled by "+by))
	}
	var bs []built
	for _, acct := range old.accounts {
		bt, r := in.allocCancel(sender, allocID, ref, acct, created, old.key, origin)
		if r != nil {
			return reject(r)
		}
		bs = append(bs, bt)
	}
	if len(bs) == 0 {
		return reject(&rejection{p87: "1", p88: "7", text: "unknown RefAllocID"})
	}
	if in.reused(sender, allocID, bs) {
		return reject(rej("7", "99", "CONFLICTING_DUPLICATE: AllocID already used"))
	}
	return Outcome{Sub: submission(sender, origin, bs), Ack: receivedJ(allocID, b.Get(tagTransactTime), b.Get(tagTradeDate)),
		What: "J → " + strconv.Itoa(len(bs)) + " ALC CANCEL"}
}

// ---- AK → NPR (§4.5.3) ----

var akTags = map[string]int{"TradeRef": tagOrderID, "TradeDate": tagTradeDate, "ISIN": tagSecurityID, "Broker": tagPartyID,
	"InvMgr": tagPartyID, "Account": tagAllocAccount, "Quantity": tagAllocQty, "Price": tagAvgPx, "TradeCcy": tagCurrency,
	"GrossAmount": tagGrossTradeAmt, "Commission": tagCommission, "Fees": tagMiscFeeAmt, "NetAmount": tagNetMoney,
	"SettleCcy": tagSettlCurrency, "SettleDate": tagSettlDate}

func (in *Inbound) confirmation(m *Message, sender string, origin adapters.Origin) Outcome {
	b := m.Body
	cid := b.Get(tagConfirmID)
	reject := func(r *rejection) Outcome {
		return Outcome{Answer: rejectAK(cid, b.Get(tagTradeDate), r.text, in.Now()), What: "AK rejected: " + r.text}
	}
	if v := b.Get(tagConfirmType); v != "2" {
		return reject(unsupported(tagConfirmType, v))
	}
	fn := ""
	switch v := b.Get(tagConfirmTransType); v {
	case "0":
		fn = "NEW"
	case "1":
		fn = "REPLACE"
	case "2":
		fn = "CANCEL"
	default:
		return reject(unsupported(tagConfirmTransType, v))
	}
	created, r := timestamp(b, tagTransactTime)
	if r != nil {
		return reject(r)
	}
	var related string
	if fn != "NEW" {
		if b.Get(tagConfirmRefID) == "" {
			return reject(required(tagConfirmRefID))
		}
		if related, r = makeID(msgid.FIXConfirmation, []int{tagConfirmRefID}, b.Get(tagConfirmRefID)); r != nil {
			return reject(r)
		}
	}
	if fn != "CANCEL" {
		for _, tag := range []int{tagCurrency, tagSettlDate} {
			if b.Get(tag) == "" {
				return reject(required(tag))
			}
		}
	}
	isin, ok := isinOf(b)
	if !ok {
		return reject(rejNoISIN)
	}
	broker, invmgr, r := parties(b)
	if r != nil {
		return reject(r)
	}
	tradeRef, ok := orderIDOf(b)
	if !ok {
		return reject(rejOrders)
	}
	side, ok := sideOf(b.Get(tagSide))
	if !ok {
		return reject(rejSide)
	}
	settleCcy := b.Get(tagSettlCurrency)
	if settleCcy == "" {
		settleCcy = b.Get(tagCurrency)
	}
	if fn != "CANCEL" {
		if v, ok := b.F[tagCommType]; ok && v != "3" {
			return reject(rej("7", "99", "CommType(13) must be 3 (absolute)"))
		}
		for _, e := range b.Group(tagNoMiscFees) {
			if v, ok := e.F[tagMiscFeeCurr]; ok && v != settleCcy {
				return reject(rej("7", "99", "MiscFeeCurr(138) must equal the settlement currency "+settleCcy))
			}
		}
	}
	msgID, r := makeID(msgid.FIXConfirmation, []int{tagConfirmID}, cid)
	if r != nil {
		return reject(r)
	}
	if related != "" {
		if by := in.supersededBy(sender, []string{related}, sameMsgID(msgID)); by != "" {
			return reject(rej("7", "99", tagName(tagConfirmRefID)+" already replaced or cancelled by "+by))
		}
	}
	tradeDate, r := date(b, tagTradeDate)
	if r != nil {
		return reject(r)
	}
	k := journal.KeyFields{TradeRef: tradeRef, TradeDate: tradeDate, ISIN: isin, Side: side, Broker: broker, InvMgr: invmgr}
	body := keyBody(k)
	if fn != "CANCEL" {
		var vals [6]string
		for i, tag := range []int{tagAllocQty, tagAvgPx, tagGrossTradeAmt, tagNetMoney} {
			if vals[i], r = decimal(b, tag); r != nil {
				return reject(r)
			}
		}
		commission := "0"
		if b.Has(tagCommission) {
			if commission, r = decimal(b, tagCommission); r != nil {
				return reject(r)
			}
		}
		var fees []string
		for _, e := range b.Group(tagNoMiscFees) {
			if v, ok := e.F[tagMiscFeeAmt]; ok {
				fees = append(fees, v)
			}
		}
		total := "0"
		if len(fees) > 0 {
			if total, ok = stexml.Sum(fees...); !ok {
				return reject(invalid(tagMiscFeeAmt))
			}
		}
		settle, r := date(b, tagSettlDate)
		if r != nil {
			return reject(r)
		}
		body = append(body, stexml.F("Account", b.Get(tagAllocAccount)), stexml.F("Quantity", vals[0]), stexml.F("Price", vals[1]),
			stexml.F("TradeCcy", b.Get(tagCurrency)), stexml.F("GrossAmount", vals[2]), stexml.F("Commission", commission),
			stexml.F("Fees", total), stexml.F("NetAmount", vals[3]), stexml.F("SettleCcy", settleCcy), stexml.F("SettleDate", settle))
	}
	h := stexml.Header{MsgId: msgID, MsgType: "NPR", Function: fn, Sender: sender, Created: created, RelatedMsgId: related}
	bt, r := in.build(h, body, akTags, sender, []string{cid}, origin)
	if r != nil {
		return reject(r)
	}
	return Outcome{Sub: submission(sender, origin, []built{bt}), What: "AK → NPR " + fn}
}

// ---- AU → AFF (§4.5.4) ----

func (in *Inbound) confirmationAck(m *Message, sender string, origin adapters.Origin) Outcome {
	b := m.Body
	cid := b.Get(tagConfirmID)
	bmr := func(reason int, t string) Outcome {
		return Outcome{Reject: quickfix.NewBusinessMessageRejectErrorWithRefID(t, reason, cid, nil), What: "AU rejected: " + t}
	}
	as := b.Get(tagAffirmStatus)
	decision := ""
	switch as {
	case "1":
		return Outcome{Ignore: true, What: "AU received (940=1): not translated"}
	case "3":
		decision = "AFFIRM"
	case "2":
		decision = "REJECT"
	default:
		return bmr(0, "unsupported "+tagName(tagAffirmStatus)+"="+as)
	}
	cnf, leg, ok := in.sentAK(sender, cid)
	if !ok || cnf.Function != "NEW" || leg < 1 || leg > len(cnf.Legs) {
		return bmr(1, "unknown ID: "+tagName(tagConfirmID)+" names no Confirmation (AK) sent to this session")
	}
	created, r := timestamp(b, tagTransactTime)
	if r != nil {
		return bmr(0, r.text)
	}
	msgID, r := makeID(msgid.FIXConfirmAck, []int{tagConfirmID, tagAffirmStatus}, cid, as)
	if r != nil {
		return bmr(0, r.text)
	}
	body := append(keyBody(cnf.Key), stexml.F("Decision", decision), stexml.F("MatchDigest", cnf.MatchDigest),
		stexml.F("Affirms", cnf.Messages))
	if decision == "REJECT" {
		reason := "OTHER"
		switch b.Get(tagConfirmRejReason) {
		case "1":
			reason = "ACCOUNT"
		case "2":
			reason = "SSI"
		}
		body = append(body, stexml.F("RejectReason", reason))
	}
	h := stexml.Header{MsgId: msgID, MsgType: "AFF", Function: "NEW", Sender: sender, Created: created}
	bt, r := in.build(h, body, nil, sender, []string{cid, as}, origin)
	if r != nil {
		return bmr(0, r.text)
	}
	return Outcome{Sub: submission(sender, origin, []built{bt}), What: "AU → AFF " + decision}
}

// sentAK finds the CNF whose AK confirmID names (its ConfirmID is
// `<CNF MsgId>:<i>`, §4.7.3) among those sent to sender's session.
func (in *Inbound) sentAK(sender, confirmID string) (*cnfNote, int, bool) {
	i := strings.LastIndexByte(confirmID, ':')
	if i < 0 {
		return nil, 0, false
	}
	leg, err := strconv.Atoi(confirmID[i+1:])
	if err != nil || strconv.Itoa(leg) != confirmID[i+1:] {
		return nil, 0, false
	}
	n, ok := loadCNF(in.J, sender, confirmID[:i])
	if !ok {
		return nil, 0, false
	}
	return n, leg, true
}
