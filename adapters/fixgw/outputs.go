package fixgw

import (
	"encoding/json"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"github.com/quickfixgo/quickfix"

	"github.com/ste-utility/ste/adapters"
	"github.com/ste-utility/ste/adapters/journal"
)

// Outputs translates STE outputs to a participant with a FIX session into
// FIX messages (docs/spec/adapters.md §4.7), using the journal: only
// records about FIX-origin messages are translated, everything else is
// skipped.
type Outputs struct {
	// J is the journal, read to its end before a batch (§1).
	J   *journal.Index
	Now func() string
}

// Delivery is what one STE output became: the FIX messages for the
// session, in order, and the journal entries to write once they are in the
// session store (answers seen, Confirmations sent). The entries are already
// applied to J, so the next record sees them.
type Delivery struct {
	Msgs    []*quickfix.Message
	Journal []journal.Entry
}

func (o *Outputs) add(d *Delivery, e journal.Entry) {
	o.J.Apply(e)
	d.Journal = append(d.Journal, e)
}

// Translate translates one record of <ns>.outbound keyed by receiver.
func (o *Outputs) Translate(receiver string, raw []byte) Delivery {
	out, ok := adapters.ReadOutput(raw)
	if !ok || out.Receiver != receiver {
		return Delivery{}
	}
	switch out.MsgType {
	case "ACK", "NACK":
		return o.answer(out)
	case "STATUS", "BLK":
		return o.status(out)
	case "CNF":
		return o.confirmation(out)
	}
	return Delivery{}
}

func (o *Outputs) fix(participant, id string) []*journal.Translation {
	var out []*journal.Translation
	for _, t := range o.J.Translations(participant, id) {
		if t.Adapter == journal.FIX44 {
			out = append(out, t)
		}
	}
	return out
}

// nackOf is the latest NACK naming t's record.
func (o *Outputs) nackOf(t *journal.Translation) (journal.Answer, bool) {
	as := o.J.Answers(t.Participant, t.MsgId)
	for i := len(as) - 1; i >= 0; i-- {
		a := as[i]
		if a.Verdict == "NACK" && (a.RecordHash == "" || strings.HasPrefix(t.RecordSHA256, a.RecordHash)) {
			return a, true
		}
	}
	return journal.Answer{}, false
}

func (o *Outputs) answer(out *adapters.Output) Delivery {
	var d Delivery
	ts := o.fix(out.Receiver, out.RelatedMsgId)
	if len(ts) == 0 {
		return d
	}
	a := journal.Answer{Participant: out.Receiver, MsgId: out.RelatedMsgId, Verdict: out.MsgType, OutputMsgId: out.MsgId}
	verdict := out.MsgType
	tr := ts[0]
	if out.MsgType == "NACK" {
		a.Code, a.Detail = out.Reason, out.Detail
		if i := strings.LastIndexByte(out.MsgId, ':'); i >= 0 {
			a.RecordHash = out.MsgId[i+1:]
		}
		matched := false
		for _, x := range ts {
			if a.RecordHash != "" && strings.HasPrefix(x.RecordSHA256, a.RecordHash) {
				tr, matched = x, true
				break
			}
		}
		// A record this adapter made whose signed range is an accepted
		// one's, re-signed after a key rotation (§2): STE refuses it
		// CONFLICTING_DUPLICATE; it is answered as the accepted one was.
		if !matched && out.Reason == "CONFLICTING_DUPLICATE" {
			verdict = "ACK"
		}
	} else {
		for _, x := range ts {
			if !o.J.NACKed(x) {
				tr = x
				break
			}
		}
	}
	o.add(&d, journal.Entry{Answer: &a})
	created := fixTimeOf(out.Created, o.Now)
	code := out.Reason + ": " + out.Detail
	switch tr.MsgType {
	case "ALC":
		if p, ok := o.allocationAck(tr, created); ok {
			d.Msgs = append(d.Msgs, p)
		}
	case "NOE":
		ar := arAck{TradeReportID: origID(tr), TransType: tr.Fields[fieldTransType], ExecType: execType(tr.Function), Status: "0",
			TransactTime: created, ISIN: tr.Key.ISIN}
		if verdict == "NACK" {
			ar.ExecType, ar.Status, ar.RejectReason, ar.Text = "8", "1", reason751(out.Reason), code
		}
		d.Msgs = append(d.Msgs, ar.message())
	case "NPR":
		au := auAck{ConfirmID: origID(tr), TradeDate: fixDateOf(tr.Key.TradeDate), TransactTime: created, AffirmStatus: "1"}
		if verdict == "NACK" {
			au.AffirmStatus, au.RejReason, au.Text = "2", "99", code
		}
		d.Msgs = append(d.Msgs, au.message())
	case "AFF":
		if verdict == "NACK" {
			d.Msgs = append(d.Msgs, businessReject("AU", origID(tr), 0, code))
		}
	}
	return d
}

func origID(t *journal.Translation) string {
	if len(t.OriginalIDs) > 0 {
		return t.OriginalIDs[0]
	}
	return ""
}

func execType(function string) string {
	switch function {
	case "REPLACE":
		return "G"
	case "CANCEL":
		return "H"
	}
	return "F"
}

// reason751 is STE NACK code → TradeReportRejectReason (§4.7.1).
func reason751(code string) string {
	switch code {
	case "NOT_AUTHORISED":
		return "3"
	case "UNKNOWN_PARTY":
		return "1"
	case "UNKNOWN_SECURITY":
		return "2"
	}
	return "99"
}

// jOf are the ALC translations of the J t was made from: same AllocID,
// same origin (a resend of the J made the same records, which the journal
// keeps once), in the J's order.
func (o *Outputs) jOf(t *journal.Translation) []*journal.Translation {
	var out []*journal.Translation
	seen := map[string]bool{}
	for _, x := range o.J.ByOriginalID(journal.FIX44, t.Participant, origID(t)) {
		if x.MsgType == "ALC" && x.OriginSHA256 == t.OriginSHA256 && !seen[x.MsgId] {
			seen[x.MsgId] = true
			out = append(out, x)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Index < out[j].Index })
	return out
}

// allocationAck is the one P of a J once every ALC of it has its ACK or
// NACK (§4.7.1); false while one is still unanswered.
func (o *Outputs) allocationAck(t *journal.Translation, created string) (*quickfix.Message, bool) {
	alcs := o.jOf(t)
	var nacked []pAlloc
	for _, x := range alcs {
		if !o.J.Answered(x) {
			return nil, false
		}
		if o.J.NACKed(x) {
			n, _ := o.nackOf(x)
			nacked = append(nacked, pAlloc{Account: accountOf(x), Code: "7", Text: n.Code + ": " + n.Detail})
		}
	}
	sort.Slice(nacked, func(i, j int) bool { return nacked[i].Account < nacked[j].Account })
	p := pAck{AllocID: origID(t), TransactTime: created, TradeDate: fixDateOf(t.Key.TradeDate), Status: "0"}
	switch {
	case len(nacked) == len(alcs):
		p.Status, p.RejCode = "1", "7"
	case len(nacked) > 0:
		p.Status, p.RejCode = "2", "7"
	}
	if len(nacked) > 0 {
		p.Allocs = nacked
		p.Text = strconv.Itoa(len(nacked)) + " of " + strconv.Itoa(len(alcs)) + " allocations rejected"
	}
	return p.message(), true
}

func accountOf(t *journal.Translation) string {
	if len(t.Accounts) > 0 {
		return t.Accounts[0]
	}
	if len(t.OriginalIDs) > 1 {
		return t.OriginalIDs[1]
	}
	return ""
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

// statusView is how a STATUS or BLK value reads in P, AR and AU (§4.7.2).
type statusView struct {
	matchStatus, affirm, rejReason string
	matchID                        bool
	text                           string
}

func viewOf(out *adapters.Output) (statusView, bool) {
	tk := out.TradeKey
	v := statusView{affirm: "1"}
	if out.MsgType == "BLK" {
		v.matchStatus = "2"
		v.text = "STE " + out.Status + " " + tk
		switch out.Status {
		case "BLOCK_MATCHED":
			if len(out.Tolerances) > 0 {
				v.text += " tolerance " + joinInts(out.Tolerances)
			}
		case "BLOCK_MISMATCHED":
			v.text += " criteria " + joinInts(out.Criteria)
		case "BLOCK_INCOMPLETE":
		default:
			return v, false
		}
		return v, true
	}
	v.text = "STE " + out.Status + " " + tk
	switch out.Status {
	case "MATCHED":
		v.matchStatus, v.matchID = "0", true
		if len(out.Tolerances) > 0 {
			v.text += " tolerance " + joinInts(out.Tolerances)
		}
	case "MISMATCHED":
		v.matchStatus = "1"
		v.text += " criteria " + joinInts(out.Criteria)
	case "UNMATCHED", "EXPIRED", "CANCELLED":
		v.matchStatus = "1"
	case "AFFIRMED":
		v.matchStatus, v.matchID, v.affirm = "0", true, "3"
	case "AFFIRM_REJECTED":
		v.matchStatus, v.matchID, v.affirm, v.rejReason = "0", true, "2", "99"
		rs := append([]string(nil), out.RejectReasons...)
		sort.Strings(rs)
		if len(rs) > 0 {
			switch rs[0] {
			case "ACCOUNT":
				v.rejReason = "1"
			case "SSI":
				v.rejReason = "2"
			}
		}
		v.text += " reasons " + strings.Join(out.RejectReasons, ",")
	case "CHANGE_PENDING":
		v.matchStatus, v.matchID, v.affirm = "0", true, "3"
		if out.Proposal != "" {
			v.text += " proposal " + out.Proposal
		}
	case "CANCEL_PENDING":
		v.matchStatus, v.matchID, v.affirm = "0", true, "3"
		v.text += " request " + strings.Join(out.CancelRequests, ",")
	default:
		return v, false
	}
	return v, true
}

// status answers a STATUS or a BLK on each of the receiver's current
// FIX-origin messages of the trade (§4.7.2): one P per J that still has a
// current ALC, then one AR per current NOE, then one AU per current NPR,
// each in MsgId byte order.
func (o *Outputs) status(out *adapters.Output) Delivery {
	var d Delivery
	v, ok := viewOf(out)
	if !ok || out.TradeKey == "" {
		return d
	}
	created := fixTimeOf(out.Created, o.Now)
	var js []string
	jAt := map[string]*journal.Translation{}
	var noes, nprs []*journal.Translation
	for _, t := range o.J.Current(journal.FIX44, out.Receiver, out.TradeKey) {
		if t.Function != "NEW" && t.Function != "REPLACE" {
			continue
		}
		switch t.MsgType {
		case "ALC":
			if _, ok := jAt[origID(t)]; !ok {
				jAt[origID(t)] = t
				js = append(js, origID(t))
			}
		case "NOE":
			noes = append(noes, t)
		case "NPR":
			nprs = append(nprs, t)
		}
	}
	matchID := ""
	if v.matchID {
		matchID = out.TradeKey
	}
	for _, id := range js { // Current is in MsgId order: so is each J's first current ALC
		t := jAt[id]
		d.Msgs = append(d.Msgs, pAck{AllocID: id, TransactTime: created, TradeDate: fixDateOf(t.Key.TradeDate), Status: "0",
			MatchStatus: v.matchStatus, Text: v.text}.message())
	}
	for _, t := range noes {
		d.Msgs = append(d.Msgs, arAck{TradeReportID: origID(t), TransType: t.Fields[fieldTransType], ExecType: "F", Status: "0",
			MatchID: matchID, TransactTime: created, Text: v.text, ISIN: t.Key.ISIN}.message())
	}
	for _, t := range nprs {
		d.Msgs = append(d.Msgs, auAck{ConfirmID: origID(t), TradeDate: fixDateOf(t.Key.TradeDate), TransactTime: created,
			AffirmStatus: v.affirm, RejReason: v.rejReason, MatchStatus: v.matchStatus, Text: v.text}.message())
	}
	return d
}

// cnfNote is what the journal keeps of a CNF translated into AKs for a
// receiver (§1: the Confirmations sent for each CNF), under the note kind
// "cnf" and the id receiver|CNF MsgId: what an AU answering one of its AKs
// affirms, and what a CNF CANCEL cancels.
type cnfNote struct {
	MsgId       string            `json:"msg_id"`
	Function    string            `json:"function"`
	TradeKey    string            `json:"trade_key"`
	Key         journal.KeyFields `json:"key"`
	MatchDigest string            `json:"match_digest"`
	Messages    string            `json:"messages"`
	Price       string            `json:"price"`
	TradeCcy    string            `json:"trade_ccy"`
	SettleDate  string            `json:"settle_date"`
	Legs        []adapters.Leg    `json:"legs"`
	ConfirmIDs  []string          `json:"confirm_ids"`
}

const noteCNF = "cnf"

func loadCNF(j *journal.Index, receiver, cnfMsgID string) (*cnfNote, bool) {
	n, ok := j.Note(journal.FIX44, noteCNF, receiver+"|"+cnfMsgID)
	if !ok {
		return nil, false
	}
	var c cnfNote
	if json.Unmarshal(n.Data, &c) != nil {
		return nil, false
	}
	return &c, true
}

// gross is Quantity × Price rounded half away from zero to the minor units
// of the leg's settlement currency, which its NetAmount is written with
// (messages.md §6: amounts with exactly the currency's minor units).
func gross(qty, price, netAmount string) string {
	units := 0
	if i := strings.IndexByte(netAmount, '.'); i >= 0 {
		units = len(netAmount) - i - 1
	}
	q, ok1 := new(big.Rat).SetString(qty)
	p, ok2 := new(big.Rat).SetString(price)
	if !ok1 || !ok2 {
		return ""
	}
	x := new(big.Rat).Mul(q, p)
	scale := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(units)), nil))
	x.Mul(x, scale)
	neg := x.Sign() < 0
	x.Abs(x)
	// half away from zero: floor(x + 1/2)
	x.Add(x, big.NewRat(1, 2))
	n := new(big.Int).Quo(x.Num(), x.Denom())
	s := n.String()
	if units > 0 {
		for len(s) <= units {
			s = "0" + s
		}
		s = s[:len(s)-units] + "." + s[len(s)-units:]
	}
	if neg && strings.Trim(s, "0.") != "" {
		s = "-" + s
	}
	return s
}

// confirmation translates a CNF to the InvMgr into one AK per leg (NEW),
// or cancels the AKs of the CNF NEW it cancels (§4.7.3).
func (o *Outputs) confirmation(out *adapters.Output) Delivery {
	var d Delivery
	created := fixTimeOf(out.Created, o.Now)
	if out.Function == "CANCEL" {
		prev, ok := loadCNF(o.J, out.Receiver, out.RelatedMsgId)
		if !ok || prev.Function != "NEW" {
			return d
		}
		note := *prev
		note.MsgId, note.Function, note.ConfirmIDs = out.MsgId, "CANCEL", nil
		for i, l := range prev.Legs {
			id := out.MsgId + ":" + strconv.Itoa(i+1)
			note.ConfirmIDs = append(note.ConfirmIDs, id)
			ref := ""
			if i < len(prev.ConfirmIDs) {
				ref = prev.ConfirmIDs[i]
			}
			d.Msgs = append(d.Msgs, akOf(prev, l, id, "2", ref, created).message())
		}
		o.add(&d, journal.NoteEntry(journal.FIX44, noteCNF, out.Receiver+"|"+out.MsgId, note))
		return d
	}
	if out.Receiver != out.Key.InvMgr || len(out.Legs) == 0 || len(o.J.Current(journal.FIX44, out.Receiver, out.TradeKey)) == 0 {
		return d
	}
	note := cnfNote{MsgId: out.MsgId, Function: "NEW", TradeKey: out.TradeKey, Key: out.Key, MatchDigest: out.MatchDigest,
		Messages: out.Messages, Price: out.Price, TradeCcy: out.TradeCcy, SettleDate: out.SettleDate, Legs: out.Legs}
	for i, l := range out.Legs {
		id := out.MsgId + ":" + strconv.Itoa(i+1)
		note.ConfirmIDs = append(note.ConfirmIDs, id)
		d.Msgs = append(d.Msgs, akOf(&note, l, id, "0", "", created).message())
	}
	o.add(&d, journal.NoteEntry(journal.FIX44, noteCNF, out.Receiver+"|"+out.MsgId, note))
	return d
}

func akOf(c *cnfNote, l adapters.Leg, confirmID, transType, ref, created string) akConfirm {
	return akConfirm{ConfirmID: confirmID, TransType: transType, RefID: ref, Broker: c.Key.Broker, InvMgr: c.Key.InvMgr,
		TradeRef: c.Key.TradeRef, TransactTime: created, TradeDate: fixDateOf(c.Key.TradeDate), ISIN: c.Key.ISIN,
		Qty: l.Quantity, Side: fixSide(c.Key.Side), Currency: c.TradeCcy, Account: l.Account, AvgPx: c.Price,
		Gross: gross(l.Quantity, c.Price, l.NetAmount), NetMoney: l.NetAmount, SettlCurrency: l.SettleCcy,
		SettlDt: fixDateOf(c.SettleDate)}
}
