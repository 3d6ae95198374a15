package matching

import (
	"slices"
	"strings"

	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/date"
	"github.com/ste-utility/ste/schemas/decimal"
)

// This file is section 5 of the contract as code. A trade is evaluated on its
// messages in force only; the evaluation is a pure function of that set, which
// is what makes matching independent of arrival order.

// state is where a trade stands after evaluation.
type state uint8

const (
	incomplete state = iota // not complete by count
	matched
	mismatched
)

// criterion is one row of the contract's table of 17. check returns the
// messages compared under the criterion when it fails (failing), nil when it
// holds; for 7 and 15, which hold within a tolerance, within lists the
// messages compared where it holds only within tolerance (values not all
// equal), as a STATUS MATCHED's <Tolerance> reports them.
type criterion struct {
	n     int
	name  string
	check func(v *view) (failing, within []*Entry)
}

var criteria = [17]criterion{
	// 1–6: the key fields agree across all messages. A trade holds the
	// messages of one key tuple only: a message whose key fields differ from
	// those of the trade holding its trade key is rejected KEY_COLLISION
	// (section 4), so these hold by construction.
	{1, "TradeRef", exact(sameKey)},
	{2, "TradeDate", exact(sameKey)},
	{3, "ISIN", exact(sameKey)},
	{4, "Side", exact(sameKey)},
	{5, "Broker", exact(sameKey)},
	{6, "InvMgr", exact(sameKey)},
	// 7: Price agrees across NOE, every ALC, every NPR (by value), within the
	// price tolerance of their TradeCcy (0 when criterion 8 fails).
	{7, "Price", tradeWideWithin(7, noeALCNPR, price, tradeCcy)},
	// 8: TradeCcy agrees across NOE, every ALC, every NPR.
	{8, "TradeCcy", exact(tradeWide(noeALCNPR, tradeCcy))},
	// 9: NOE.Quantity = Σ ALC.Quantity.
	{9, "block quantity", exact(blockQuantity)},
	// 10: exactly one NOE; every ALC.AllocCount = the number of ALCs in force.
	{10, "message counts", exact(messageCounts)},
	// 11: ALC accounts distinct; each has exactly one NPR and one SET; no NPR or
	// SET names another account.
	{11, "account", exact(accounts)},
	// 12: Quantity agrees across ALC, NPR, SET of one account.
	{12, "allocation quantity", exact(perAccount(alcNPRSET, func(e *Entry) int64 { return e.Quantity }))},
	// 13: SettleDate agrees across NOE, every NPR, every SET.
	{13, "settlement date", exact(tradeWide(noeNPRSET, func(e *Entry) date.Date { return e.SettleDate }))},
	// 14: SettleCcy agrees across NPR and SET of one account.
	{14, "settlement currency", exact(perAccount(nprSET, settleCcy))},
	// 15: NetAmount agrees across NPR and SET of one account (by value), within
	// the amount tolerance of its SettleCcy (0 when criterion 14 fails for it).
	{15, "net amount", perAccountWithin(15, nprSET, netAmount, settleCcy)},
	// 16: Custodian agrees across ALC and SET of one account.
	{16, "custodian", exact(perAccount(alcSET, func(e *Entry) string { return e.Custodian }))},
	// 17: PSET agrees across ALC and SET of one account.
	{17, "place of settlement", exact(perAccount(alcSET, func(e *Entry) string { return e.PSET }))},
}

// The values compared under 7, 8, 14 and 15.
var (
	price     = func(e *Entry) decimal.Dec { return e.Price }
	netAmount = func(e *Entry) decimal.Dec { return e.NetAmount }
	tradeCcy  = func(e *Entry) string { return e.TradeCcy }
	settleCcy = func(e *Entry) string { return e.SettleCcy }
)

// Type sets of the comparisons above.
var (
	noeALCNPR = typeSet(schemas.NOE, schemas.ALC, schemas.NPR)
	noeNPRSET = typeSet(schemas.NOE, schemas.NPR, schemas.SET)
	alcNPRSET = typeSet(schemas.ALC, schemas.NPR, schemas.SET)
	nprSET    = typeSet(schemas.NPR, schemas.SET)
	alcSET    = typeSet(schemas.ALC, schemas.SET)
)

type types uint8

func typeSet(ts ...schemas.MsgType) types {
	var s types
	for _, t := range ts {
		s |= 1 << t
	}
	return s
}

func (s types) has(t schemas.MsgType) bool { return s&(1<<t) != 0 }

// view is a set of a trade's messages taken as the messages in force (the
// trade's, or a candidate's, section 5a), grouped the ways the criteria
// need, and the tolerances they are evaluated with.
type view struct {
	tol                Tolerances // nil: none, every value must be equal
	all                []*Entry
	noe, alc, npr, set []*Entry
	accounts           []string   // every account named in the set, sorted
	perAccount         [][]*Entry // perAccount[i]: the ALC, NPR and SET entries naming accounts[i]
}

// viewRoom is a view with room for the lists of a trade of a few messages
// (newView).
type viewRoom struct {
	view
	entries    [16]*Entry
	accounts   [4]string
	perAccount [4][]*Entry
}

// byAccount is the ALC, NPR and SET entries naming account a.
func (v *view) byAccount(a string) []*Entry {
	if i, ok := slices.BinarySearch(v.accounts, a); ok {
		return v.perAccount[i]
	}
	return nil
}

func (v *view) of(ts types) []*Entry {
	var out []*Entry
	for _, e := range v.all {
		if ts.has(e.Type) {
			out = append(out, e)
		}
	}
	return out
}

// allocations is k: the largest AllocCount among the ALCs in force.
func (v *view) allocations() int {
	k := 0
	for _, e := range v.alc {
		k = max(k, int(e.AllocCount))
	}
	return k
}

// completeByCount: at least 1 NOE and k ALC, k NPR and k SET in force, k >= 1.
func (v *view) completeByCount() bool {
	k := v.allocations()
	return k >= 1 && len(v.noe) >= 1 && len(v.alc) >= k && len(v.npr) >= k && len(v.set) >= k
}

// sameKey: every message of a trade carries the trade's key fields.
func sameKey(*view) []*Entry { return nil }

// agree reports whether value gives the same result for every entry.
func agree[T comparable](es []*Entry, value func(*Entry) T) bool {
	for _, e := range es[min(1, len(es)):] {
		if value(e) != value(es[0]) {
			return false
		}
	}
	return true
}

func tradeWide[T comparable](ts types, value func(*Entry) T) func(v *view) []*Entry {
	return func(v *view) []*Entry {
		if es := v.of(ts); !agree(es, value) {
			return es
		}
		return nil
	}
}

// perAccount compares, account by account, the entries of the given types
// naming that account; the failing accounts' entries are the discrepancy.
func perAccount[T comparable](ts types, value func(*Entry) T) func(v *view) []*Entry {
	return func(v *view) []*Entry {
		var failing []*Entry
		for _, named := range v.perAccount {
			var es []*Entry
			for _, e := range named {
				if ts.has(e.Type) {
					es = append(es, e)
				}
			}
			if !agree(es, value) {
				failing = append(failing, es...)
			}
		}
		return failing
	}
}

// exact is a criterion without tolerance: it holds or fails.
func exact(check func(v *view) []*Entry) func(v *view) ([]*Entry, []*Entry) {
	return func(v *view) ([]*Entry, []*Entry) { return check(v), nil }
}

// tradeWideWithin compares a decimal across every entry of the given types:
// all equal, or largest and smallest within the tolerance of the currency
// they share (0 when they do not share one).
func tradeWideWithin(n int, ts types, value func(*Entry) decimal.Dec, ccy func(*Entry) string) func(v *view) ([]*Entry, []*Entry) {
	return func(v *view) ([]*Entry, []*Entry) {
		es := v.of(ts)
		switch spread(es, value, v, n, ccy) {
		case beyond:
			return es, nil
		case withinTolerance:
			return nil, es
		}
		return nil, nil
	}
}

// perAccountWithin is perAccount for a decimal within the tolerance of the
// currency each account's entries share: failing lists the accounts beyond
// it, within those whose values differ inside it.
func perAccountWithin(n int, ts types, value func(*Entry) decimal.Dec, ccy func(*Entry) string) func(v *view) ([]*Entry, []*Entry) {
	return func(v *view) (failing, within []*Entry) {
		for _, named := range v.perAccount {
			var es []*Entry
			for _, e := range named {
				if ts.has(e.Type) {
					es = append(es, e)
				}
			}
			switch spread(es, value, v, n, ccy) {
			case beyond:
				failing = append(failing, es...)
			case withinTolerance:
				within = append(within, es...)
			}
		}
		return failing, within
	}
}

type closeness uint8

const (
	equal closeness = iota
	withinTolerance
	beyond
)

// spread says how far apart the values of es are: equal, or largest minus
// smallest within criterion n's tolerance in the currency every entry has,
// or beyond it. Where the currencies differ the tolerance is 0. The
// tolerance is looked up only when values differ, so exact trades cost none.
func spread(es []*Entry, value func(*Entry) decimal.Dec, v *view, n int, ccy func(*Entry) string) closeness {
	if len(es) == 0 {
		return equal
	}
	lo, hi := value(es[0]), value(es[0])
	for _, e := range es[1:] {
		x := value(e)
		if x.Cmp(lo) < 0 {
			lo = x
		}
		if x.Cmp(hi) > 0 {
			hi = x
		}
	}
	if lo == hi { // canonical: equal values are equal Decs
		return equal
	}
	if v.tol == nil || !agree(es, ccy) {
		return beyond
	}
	d, ok := decimal.Sub(hi, lo)
	if !ok || d.Cmp(v.tol.Tolerance(n, ccy(es[0]))) > 0 {
		return beyond
	}
	return withinTolerance
}

func blockQuantity(v *view) []*Entry {
	var sum int64
	for _, e := range v.alc {
		sum += e.Quantity
	}
	for _, e := range v.noe {
		if e.Quantity != sum {
			return v.of(typeSet(schemas.NOE, schemas.ALC))
		}
	}
	return nil
}

func messageCounts(v *view) []*Entry {
	ok := len(v.noe) == 1
	for _, e := range v.alc {
		ok = ok && int(e.AllocCount) == len(v.alc)
	}
	if !ok {
		return v.of(typeSet(schemas.NOE, schemas.ALC))
	}
	return nil
}

func accounts(v *view) []*Entry {
	var failing []*Entry
	for _, named := range v.perAccount {
		var nALC, nNPR, nSET int
		for _, e := range named {
			switch e.Type {
			case schemas.ALC:
				nALC++
			case schemas.NPR:
				nNPR++
			case schemas.SET:
				nSET++
			}
		}
		// An account with no ALC is "another account" named by an NPR or SET.
		if nALC != 1 || nNPR != 1 || nSET != 1 {
			failing = append(failing, named...)
		}
	}
	return failing
}

// newView groups a set of content messages (NEW and REPLACE) for the
// criteria, evaluated with tol (nil: no tolerances). The accounts are
// sorted once (a trade with k allocations names about k accounts: this is
// k log k, not k²), each account's entries in the set's order.
func newView(es []*Entry, tol Tolerances) *view {
	r := &viewRoom{view: view{all: es, tol: tol}}
	v := &r.view
	var n [schemas.SET + 1]int
	for _, e := range es {
		if e.Type.IsContent() {
			n[e.Type]++
		}
	}
	// One backing array for the four type lists and the account-grouped
	// list, and one for the accounts, in the view's own allocation for a
	// trade of a few messages: the view is built for every message applied.
	buf := r.entries[:0]
	if 2*len(es) > len(r.entries) {
		buf = make([]*Entry, 0, 2*len(es))
	}
	carve := func(k int) []*Entry {
		s := buf[len(buf) : len(buf) : len(buf)+k]
		buf = buf[:len(buf)+k]
		return s
	}
	v.noe, v.alc, v.npr, v.set = carve(n[schemas.NOE]), carve(n[schemas.ALC]), carve(n[schemas.NPR]), carve(n[schemas.SET])
	named := carve(n[schemas.ALC] + n[schemas.NPR] + n[schemas.SET])
	for _, e := range es {
		switch e.Type {
		case schemas.NOE:
			v.noe = append(v.noe, e)
			continue
		case schemas.ALC:
			v.alc = append(v.alc, e)
		case schemas.NPR:
			v.npr = append(v.npr, e)
		case schemas.SET:
			v.set = append(v.set, e)
		default:
			continue
		}
		named = append(named, e)
	}
	slices.SortStableFunc(named, func(a, b *Entry) int { return strings.Compare(a.Account, b.Account) })
	for i := 0; i < len(named); {
		j := i + 1
		for j < len(named) && named[j].Account == named[i].Account {
			j++
		}
		if v.accounts == nil {
			v.accounts, v.perAccount = r.accounts[:0], r.perAccount[:0] // append grows them past a few
		}
		v.accounts = append(v.accounts, named[i].Account)
		v.perAccount = append(v.perAccount, named[i:j:j])
		i = j
	}
	return v
}

// evaluation is the outcome of the criteria on a view.
type evaluation struct {
	state   state
	failing []schemas.Discrepancy // mismatched: failing criteria in order
	within  []schemas.Discrepancy // matched: criteria held only within tolerance, in order
	cls     *schemas.CLSContent   // matched: the CLS content, Version unset
}

func evaluate(t *Trade, v *view) evaluation {
	if len(t.Keys) == 0 {
		return evaluation{state: incomplete}
	}
	if !v.completeByCount() {
		return evaluation{state: incomplete}
	}
	var failing, within []schemas.Discrepancy
	for _, c := range criteria {
		f, w := c.check(v)
		if f != nil {
			failing = append(failing, schemas.Discrepancy{Criterion: c.n, Tokens: tokens(f)})
		} else if w != nil {
			within = append(within, schemas.Discrepancy{Criterion: c.n, Tokens: tokens(w)})
		}
	}
	if failing != nil {
		return evaluation{state: mismatched, failing: failing}
	}
	return evaluation{state: matched, within: within, cls: clsOf(t, v)}
}

// tokens are the "Sender:MsgId" of es in byte order, each once.
func tokens(es []*Entry) []string {
	ts := make([]string, 0, len(es))
	for _, e := range es {
		ts = append(ts, e.Token())
	}
	slices.Sort(ts)
	return slices.Compact(ts)
}

// clsOf builds the CLS content of a matched view: the criteria hold, so every
// value below is the same whichever of the agreeing messages it is read from —
// but Price, which is the NOE's, and each leg's NetAmount, its NPR's, which
// may differ from the others' within tolerance (section 5).
func clsOf(t *Trade, v *view) *schemas.CLSContent {
	noe := v.noe[0]
	c := &schemas.CLSContent{
		Key:        t.Keys[0],
		TradeKey:   t.Key,
		Quantity:   noe.Quantity,
		Price:      noe.Price,
		TradeCcy:   noe.TradeCcy,
		SettleDate: noe.SettleDate,
	}
	for _, e := range v.all {
		c.MatchedAt = max(c.MatchedAt, e.Created)
	}
	for i, a := range v.accounts { // sorted: legs are ordered by Account
		var alc, npr, set *Entry
		for _, e := range v.perAccount[i] {
			switch e.Type {
			case schemas.ALC:
				alc = e
			case schemas.NPR:
				npr = e
			case schemas.SET:
				set = e
			}
		}
		c.Legs = append(c.Legs, schemas.Leg{
			Account:            a,
			Quantity:           alc.Quantity,
			NetAmount:          npr.NetAmount,
			NetUnits:           int(npr.NetUnits),
			SettleCcy:          npr.SettleCcy,
			Custodian:          alc.Custodian,
			PSET:               alc.PSET,
			SafekeepingAccount: set.SafekeepingAccount,
			CashAccount:        set.CashAccount,
		})
	}
	return c
}
