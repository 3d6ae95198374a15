package matching

import (
	"slices"
	"strings"

	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/date"
)

// Section 5a "Early information": steps 11 (block status) and 12
// (allegements), on the messages in force.

// ---- Step 11: block status ----

// blockCriteria are the block criteria, each as in section 5 (criteria.go)
// on the block's messages only: 7 (Price among the NOEs and ALCs, within the
// price tolerance), 8 (TradeCcy, NOEs and ALCs), 9, 10, and 11 restricted to
// "ALC accounts are distinct".
var blockCriteria = [...]criterion{
	{7, "Price", tradeWideWithin(7, noeALC, price, tradeCcy)},
	{8, "TradeCcy", exact(tradeWide(noeALC, tradeCcy))},
	{9, "block quantity", exact(blockQuantity)},
	{10, "message counts", exact(messageCounts)},
	{11, "account", exact(distinctAccounts)},
}

var noeALC = typeSet(schemas.NOE, schemas.ALC)

// distinctAccounts is criterion 11 restricted to "ALC accounts are
// distinct": the ALCs of an account with more than one fail it.
func distinctAccounts(v *view) []*Entry {
	var failing []*Entry
	for _, named := range v.perAccount {
		var alcs []*Entry
		for _, e := range named {
			if e.Type == schemas.ALC {
				alcs = append(alcs, e)
			}
		}
		if len(alcs) > 1 {
			failing = append(failing, alcs...)
		}
	}
	return failing
}

// block is a trade's block status: its value (0 when the block is not
// complete: no BLK stands) and its Discrepancy (BLOCK_MISMATCHED) or
// Tolerance (BLOCK_MATCHED) elements.
type block struct {
	status schemas.BlockStatus
	ds     []schemas.Discrepancy
}

// blockOf: the block is the NOEs and ALCs in force; complete with at least
// one NOE and at least k ALCs, k the largest AllocCount (k >= 1);
// BLOCK_MATCHED when the block criteria all hold, else BLOCK_MISMATCHED.
func (a *assessment) blockOf() block {
	if a.match == nil {
		return block{} // nothing in force
	}
	// The view of the messages in force serves: every block criterion
	// compares the NOEs and ALCs only.
	v := a.match.v
	if k := v.allocations(); k < 1 || len(v.noe) == 0 || len(v.alc) < k {
		return block{}
	}
	var failing, within []schemas.Discrepancy
	for _, c := range blockCriteria {
		f, w := c.check(v)
		if f != nil {
			failing = append(failing, schemas.Discrepancy{Criterion: c.n, Tokens: tokens(f)})
		} else if w != nil {
			within = append(within, schemas.Discrepancy{Criterion: c.n, Tokens: tokens(w)})
		}
	}
	if failing != nil {
		return block{schemas.BlockMismatched, failing}
	}
	return block{schemas.BlockMatched, within}
}

// ---- Step 12: allegements ----

// Allegement is what one participant is alleged: the items it owes, and the
// Body of the ALG NEW that says so.
type Allegement struct {
	Receiver string
	Items    []schemas.Owed
	Body     []byte
}

// StandingAllegements are the trade's standing allegements (section 5a
// "Allegements"), a function of its set: who owes what by the missing rules
// on the messages in force, each participant alleged its items when the
// trade has a message in force from a sender other than it. A locked
// (complete) or cancelled trade alleges nothing. Receivers: the Broker, the
// InvMgr, then custodians in byte order.
//
// A locked trade's messages in force are its agreement, which is complete:
// the flags of the last evaluation say whether it is locked or cancelled, so
// this reads no tolerances; an unlocked trade's messages in force are F0.
func (t *Trade) StandingAllegements() []Allegement {
	if len(t.Keys) == 0 || t.Locked || t.Cancelled || t.TombCancelled {
		return nil
	}
	a := &assessment{t: t, key: t.Keys[0]}
	a.unlockedView()
	if len(a.f0) == 0 {
		return nil
	}
	v := newView(a.f0, nil)
	items := missing(a.key, v)
	var settle date.Date
	if len(v.noe) == 1 {
		settle = v.noe[0].SettleDate
	}
	byReceiver := map[string][]schemas.Owed{}
	var custodians []string
	for _, o := range items {
		if _, ok := byReceiver[o.From]; !ok && o.From != a.key.Broker && o.From != a.key.InvMgr {
			custodians = append(custodians, o.From)
		}
		byReceiver[o.From] = append(byReceiver[o.From], schemas.Owed{MsgType: o.MsgType, Account: o.Account,
			Quantity: o.Quantity, Count: o.Count})
	}
	slices.Sort(custodians)
	var out []Allegement
	for _, p := range append(principals(a.key), custodians...) {
		owed := byReceiver[p]
		if len(owed) == 0 || !slices.ContainsFunc(a.f0, func(e *Entry) bool { return e.Sender != p }) {
			continue
		}
		out = append(out, Allegement{Receiver: p, Items: owed, Body: schemas.ALGBody(&a.key, t.Key, settle, owed)})
	}
	return out
}

// Allege is the "emit the diff against last sent" step of allegements: for
// each receiver whose standing ALG NEW Body differs from the last one sent,
// an ALG NEW; for each that was last sent an ALG NEW and owes nothing now, an
// ALG CANCEL. The caller invokes it once the trade has had no message for
// the allegement delay (`ste match`: once, after its last line).
func (t *Trade) Allege() []schemas.Output {
	standing := map[string][]byte{}
	for _, al := range t.StandingAllegements() {
		standing[al.Receiver] = al.Body
	}
	return t.allegeDiff(standing)
}

// allegeDiff sends what differs between the standing ALG NEW bodies (by
// receiver) and the last ones sent.
func (t *Trade) allegeDiff(standing map[string][]byte) []schemas.Output {
	// Receivers: the Broker and the InvMgr, then the others in byte order.
	var rs, others []string
	if len(t.Keys) > 0 {
		rs = principals(t.Keys[0])
	}
	for r := range standing {
		if !slices.Contains(rs, r) {
			others = append(others, r)
		}
	}
	for _, s := range t.ALG {
		if !slices.Contains(rs, s.Receiver) && !slices.Contains(others, s.Receiver) {
			others = append(others, s.Receiver)
		}
	}
	slices.Sort(others)
	var out []schemas.Output
	for _, r := range append(rs, others...) {
		body, owes := standing[r]
		switch {
		case owes:
			s := t.algState(r)
			if s.Body != nil && string(s.Body) == string(body) {
				continue
			}
			s.N++
			s.NewN, s.Body = s.N, body
			out = append(out, t.algNew(s))
		default:
			for i := range t.ALG {
				if s := &t.ALG[i]; s.Receiver == r && s.Body != nil {
					out = append(out, t.algCancel(s))
				}
			}
		}
	}
	return out
}

// withdrawAllegements cancels every standing allegement (a purge).
func (t *Trade) withdrawAllegements() []schemas.Output { return t.allegeDiff(nil) }

func (t *Trade) algState(receiver string) *ALGState {
	for i := range t.ALG {
		if t.ALG[i].Receiver == receiver {
			return &t.ALG[i]
		}
	}
	t.ALG = append(t.ALG, ALGState{Receiver: receiver})
	slices.SortFunc(t.ALG, func(x, y ALGState) int { return strings.Compare(x.Receiver, y.Receiver) })
	for i := range t.ALG {
		if t.ALG[i].Receiver == receiver {
			return &t.ALG[i]
		}
	}
	panic("unreachable")
}

func (t *Trade) algNew(s *ALGState) schemas.Output {
	return schemas.Output{Type: schemas.ALG, Function: schemas.NEW, MsgId: schemas.ALGId(t.Key, s.N, s.Receiver),
		Receiver: s.Receiver, Key: s.Receiver, Body: s.Body}
}

func (t *Trade) algCancel(s *ALGState) schemas.Output {
	s.N++
	s.Body = nil
	return t.algCancelRecord(s)
}

// algCancelRecord is the ALG CANCEL a receiver was last sent (s.N).
func (t *Trade) algCancelRecord(s *ALGState) schemas.Output {
	return schemas.Output{Type: schemas.ALG, Function: schemas.CANCEL, MsgId: schemas.ALGId(t.Key, s.N, s.Receiver),
		Receiver: s.Receiver, Key: s.Receiver, RelatedMsgId: schemas.ALGId(t.Key, s.NewN, s.Receiver),
		Body: schemas.ALGCancelBody(t.Key, t.Keys[0].TradeRef)}
}
