package matching

import (
	"slices"

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
	{1, "TradeRef", exact(keyField(func(k *schemas.Key) string { return k.TradeRef }))},
	{2, "TradeDate", exact(keyField(func(k *schemas.Key) string { return k.TradeDate }))},
	{3, "ISIN", exact(keyField(func(k *schemas.Key) string { return k.ISIN }))},
	{4, "Side", exact(keyField(func(k *schemas.Key) string { return k.Side }))},
	{5, "Broker", exact(keyField(func(k *schemas.Key) string { return k.Broker }))},
	{6, "InvMgr", exact(keyField(func(k *schemas.Key) string { return k.InvMgr }))},
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

// view is a trade's messages in force, grouped the ways the criteria need,
// and the tolerances they are evaluated with.
type view struct {
	tol                Tolerances // nil: none, every value must be equal
	keys               []schemas.Key
	all                []*Entry
	noe, alc, npr, set []*Entry
	accounts           []string   // every account named in force, sorted
	perAccount         [][]*Entry // perAccount[i]: the ALC, NPR and SET entries naming accounts[i]
}

// byAccount is the ALC, NPR and SET entries naming account a. (Slices, not
// a map: a trade names one to a few accounts, and the view is built for
// every message the match stage applies. A walk over every account reads
// perAccount beside accounts.)
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

func keyField(field func(*schemas.Key) string) func(v *view) []*Entry {
	return func(v *view) []*Entry {
		for _, e := range v.all {
			if field(&v.keys[e.KeyIdx]) != field(&v.keys[v.all[0].KeyIdx]) {
				return v.all
			}
		}
		return nil
	}
}

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

// inForce builds the view of a trade's messages in force: NEW and REPLACE
// messages that no CANCEL or REPLACE of the same sender and type names,
// evaluated with tol (nil: no tolerances).
func inForce(t *Trade, tol Tolerances) *view {
	type ref struct {
		sender, msgId string
		typ           schemas.MsgType
	}
	var out map[ref]bool
	for i := range t.Entries {
		e := &t.Entries[i]
		if e.Function != schemas.NEW {
			if out == nil {
				out = make(map[ref]bool)
			}
			out[ref{e.Sender, e.Related, e.Type}] = true
		}
	}
	v := &view{keys: t.Keys, tol: tol}
	for i := range t.Entries {
		e := &t.Entries[i]
		if e.Function == schemas.CANCEL || out[ref{e.Sender, e.MsgId, e.Type}] {
			continue
		}
		v.all = append(v.all, e)
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
		}
		if j := slices.Index(v.accounts, e.Account); j >= 0 {
			v.perAccount[j] = append(v.perAccount[j], e)
		} else {
			v.accounts = append(v.accounts, e.Account)
			v.perAccount = append(v.perAccount, []*Entry{e})
		}
	}
	// Sorted together (insertion: a few accounts).
	for i := 1; i < len(v.accounts); i++ {
		for j := i; j > 0 && v.accounts[j] < v.accounts[j-1]; j-- {
			v.accounts[j], v.accounts[j-1] = v.accounts[j-1], v.accounts[j]
			v.perAccount[j], v.perAccount[j-1] = v.perAccount[j-1], v.perAccount[j]
		}
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
		Key:        v.keys[noe.KeyIdx],
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

// parties of a trade: its Broker, its InvMgr and every Custodian named in its
// ALCs and SETs in force, each once, in that order (custodians sorted).
func parties(t *Trade, v *view) []string {
	k := &t.Keys[0]
	ps := []string{k.Broker}
	if k.InvMgr != k.Broker {
		ps = append(ps, k.InvMgr)
	}
	var cs []string
	for _, e := range v.all {
		if (e.Type == schemas.ALC || e.Type == schemas.SET) && e.Custodian != "" {
			cs = append(cs, e.Custodian)
		}
	}
	slices.Sort(cs)
	for _, c := range slices.Compact(cs) {
		if !slices.Contains(ps, c) {
			ps = append(ps, c)
		}
	}
	return ps
}
