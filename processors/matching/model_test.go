package matching

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ste-utility/ste/schemas"
)

// The model-based property test of section 5a: random sets of messages of
// one trade (content messages with REPLACEs and CANCELs, a SET of a
// custodian only a replaced ALC names, AFFs naming candidate and
// non-candidate sets with right and wrong digests, first affirmations,
// amendments and rejections from both principals, CXL, CXA, CXJ), sent in
// random orders with random exact duplicates, give what a simple reference
// model computes from the set alone — written here from the contract's
// text, with sets as lists of message names and the matching rule of this
// small universe written out by hand, sharing no code with the engine.

// The universe: one allocation (account A1).
//
//	N   NOE                 N2  NOE REPLACE of N, another price (never matches)
//	NC  NOE CANCEL of N
//	A   ALC naming cust1    A2  ALC REPLACE of A naming cust2
//	P   NPR                 P2  NPR REPLACE of P, same values
//	S   SET of cust1        S2  SET REPLACE of S, another CashAccount
//	SC  SET CANCEL of S     R   SET of cust2 (attached only while A2 is in force)
type mmsg struct {
	name      string
	typ       schemas.MsgType
	fn        schemas.Function
	sender    string
	related   string // the name a CANCEL or REPLACE acts on
	custodian string // ALC, SET
	badPrice  bool   // N2
	created   int    // minutes
	// lifecycle
	decision string   // AFF: AFFIRM or REJECT
	names    []string // AFF: the named messages
	set      string   // AFF: the named set's label
	digestOK bool     // AFF: its MatchDigest is the named set's
	amends   string   // AFF: the label of the set whose digest it amends, "" for none
	cxl      string   // CXA, CXJ: the CXL's name
	draft    *schemas.Draft
}

type universe struct {
	content map[string]*mmsg
	sets    map[string][]string // label → names
	digests map[string]string   // label → MatchDigest (candidates only)
}

func newUniverse(t testing.TB) *universe {
	b := single("M")
	n, a, p, s := b[0], b[1], b[2], b[3]
	n2 := replaceOf(n, "M-N2", 32, func(d *schemas.Draft) { d.Set("Price", "10.6") })
	nc := cancelOf(n, "M-NC", 33)
	a2 := replaceOf(a, "M-A2", 34, func(d *schemas.Draft) { d.Set("Custodian", cust2) })
	p2 := replaceOf(p, "M-P2", 35, nil)
	s2 := replaceOf(s, "M-S2", 36, func(d *schemas.Draft) { d.Set("CashAccount", "CA-NEW") })
	sc := cancelOf(s, "M-SC", 37)
	r := set("M", 7, "A1", "600", "6306.29", cust2)
	u := &universe{content: map[string]*mmsg{}, sets: map[string][]string{}, digests: map[string]string{}}
	add := func(name string, d *schemas.Draft, related, custodian string, bad bool) {
		m := &mmsg{name: name, sender: d.Sender, related: related, custodian: custodian, badPrice: bad, draft: d}
		switch d.MsgType {
		case "NOE":
			m.typ = schemas.NOE
		case "ALC":
			m.typ = schemas.ALC
		case "NPR":
			m.typ = schemas.NPR
		case "SET":
			m.typ = schemas.SET
		}
		m.fn = map[string]schemas.Function{"NEW": schemas.NEW, "CANCEL": schemas.CANCEL, "REPLACE": schemas.REPLACE}[d.Function]
		u.content[name] = m
	}
	add("N", n, "", "", false)
	add("N2", n2, "N", "", true)
	add("NC", nc, "N", "", false)
	add("A", a, "", cust1, false)
	add("A2", a2, "A", cust2, false)
	add("P", p, "", "", false)
	add("P2", p2, "P", "", false)
	add("S", s, "", cust1, false)
	add("S2", s2, "S", cust1, false)
	add("SC", sc, "S", cust1, false)
	add("R", r, "", cust2, false)
	for label, names := range map[string][]string{
		"L1": {"N", "A", "P", "S"}, "L2": {"N", "A", "P2", "S"}, "L3": {"N", "A", "P", "S2"}, "L4": {"N", "A2", "P", "R"},
		"L5": {"N2", "A", "P", "S"}, "L6": {"N", "A", "P", "S", "S2"}, "L7": {"N", "A", "P", "SC"}, "L8": {"N", "A", "P", "S", "X"},
	} {
		u.sets[label] = names
	}
	for _, label := range []string{"L1", "L2", "L3", "L4"} {
		var ds []*schemas.Draft
		for _, nm := range u.sets[label] {
			ds = append(ds, u.content[nm].draft)
		}
		_, u.digests[label] = setOf(t, ds...)
	}
	return u
}

// token of a message name (X names nothing held: a DORMANT token).
func (u *universe) token(name string) string {
	if m := u.content[name]; m != nil {
		return m.draft.Sender + ":" + m.draft.MsgId
	}
	return invMgr + ":M-NOTHING"
}

// randomSet draws a set of messages of the trade.
func (u *universe) randomSet(r *rand.Rand) []*mmsg {
	var out []*mmsg
	for _, name := range []string{"N", "N2", "NC", "A", "A2", "P", "P2", "S", "S2", "SC", "R"} {
		pr := 0.25
		if len(name) == 1 {
			pr = 0.85
		}
		if r.Float64() < pr {
			out = append(out, u.content[name])
		}
	}
	labels := []string{"L1", "L1", "L2", "L3", "L4", "L5", "L6", "L7", "L8"}
	cands := []string{"L1", "L2", "L3", "L4"}
	for i := r.IntN(5); i > 0; i-- {
		m := &mmsg{name: fmt.Sprintf("AFF%d", i), typ: schemas.AFF, fn: schemas.NEW, decision: "AFFIRM",
			created: 20 + r.IntN(40), set: labels[r.IntN(len(labels))], digestOK: r.IntN(6) != 0}
		m.sender = invMgr
		if r.IntN(3) == 0 {
			m.sender = broker
		}
		if m.sender == broker || r.IntN(4) == 0 {
			m.amends = cands[r.IntN(len(cands))]
			if m.amends == m.set { // Amends = MatchDigest is BAD_REFERENCE: never accepted
				m.amends = "L1"
				if m.set == "L1" {
					m.amends = "L2"
				}
			}
		}
		if r.IntN(5) == 0 {
			m.decision = "REJECT"
		}
		m.names = u.sets[m.set]
		digest := u.digests[m.set]
		if digest == "" || !m.digestOK {
			m.digestOK = false
			digest = strings.Repeat(fmt.Sprintf("%x", 1+r.IntN(15)), 64)
		}
		var toks []string
		for _, nm := range m.names {
			toks = append(toks, u.token(nm))
		}
		slices.Sort(toks)
		amends := ""
		if m.amends != "" {
			amends = u.digests[m.amends]
		}
		var reasons []string
		if m.decision == "REJECT" {
			reasons = []string{"PRICE"}
		}
		m.draft = aff("M", "M-"+m.name, m.sender, m.created, m.decision, toks, digest, amends, reasons...)
		out = append(out, m)
	}
	// Cancellation: CXLs from either principal, answers from either.
	var cxls []string
	for i := r.IntN(3); i > 0; i-- {
		c := &mmsg{name: fmt.Sprintf("CXL%d", i), typ: schemas.CXL, fn: schemas.NEW, sender: []string{broker, invMgr}[r.IntN(2)], created: 60 + i}
		c.draft = cxl("M-"+c.name, c.sender, c.created, "ERROR")
		cxls = append(cxls, c.name)
		out = append(out, c)
	}
	for i := r.IntN(3); i > 0 && len(cxls) > 0; i-- {
		typ, mk := schemas.CXA, "CXA"
		if r.IntN(2) == 0 {
			typ, mk = schemas.CXJ, "CXJ"
		}
		c := &mmsg{name: fmt.Sprintf("%s%d", mk, i), typ: typ, fn: schemas.NEW, sender: []string{broker, invMgr}[r.IntN(2)],
			created: 70 + i, cxl: cxls[r.IntN(len(cxls))]}
		if typ == schemas.CXA {
			c.draft = cxa("M-"+c.name, c.sender, c.created, "M-"+c.cxl)
		} else {
			c.draft = cxj("M-"+c.name, c.sender, c.created, "M-"+c.cxl, "OTHER")
		}
		out = append(out, c)
	}
	return out
}

// ---- The reference model: section 5a on names ----

type modelResult struct {
	inForce, pending, proposal, held []string
	value                            string // a step 10 value, or "none"
	matched, locked, cancelled       bool
	steps                            int
	affStates                        map[string]string
	requests                         map[string]string
	block                            string // BLOCK_MATCHED, BLOCK_MISMATCHED or ""
	alleged                          map[string][]string
}

func (u *universe) model(S []*mmsg) modelResult {
	res := modelResult{affStates: map[string]string{}, requests: map[string]string{}, alleged: map[string][]string{}}
	has := map[string]*mmsg{}
	for _, m := range S {
		has[m.name] = m
	}
	content := func(m *mmsg) bool { return m.typ.IsContent() && m.fn != schemas.CANCEL }
	// IF: content messages no CANCEL or REPLACE of T names.
	IF := func(T []*mmsg) []*mmsg {
		var out []*mmsg
		for _, m := range T {
			if !content(m) {
				continue
			}
			named := false
			for _, c := range T {
				if c.typ.IsContent() && c.fn != schemas.NEW && c.related == m.name {
					named = true
				}
			}
			if !named {
				out = append(out, m)
			}
		}
		return out
	}
	names := func(ms []*mmsg) []string {
		var out []string
		for _, m := range ms {
			out = append(out, m.name)
		}
		slices.Sort(out)
		return out
	}
	// Step 1.
	var alcs []*mmsg
	for _, m := range S {
		if m.typ == schemas.ALC {
			alcs = append(alcs, m)
		}
	}
	alcIF := IF(alcs)
	attached := func(m *mmsg) bool {
		for _, a := range alcIF {
			if a.custodian == m.custodian { // one account in this universe
				return true
			}
		}
		return false
	}
	var E []*mmsg
	for _, m := range S {
		if !m.typ.IsContent() {
			continue
		}
		if m.typ == schemas.SET && content(m) && !attached(m) {
			named := false
			for _, c := range S {
				if c.typ == schemas.SET && c.fn != schemas.NEW && c.related == m.name {
					named = true
				}
			}
			if !named {
				res.held = append(res.held, m.name)
			}
			continue
		}
		E = append(E, m)
	}
	slices.Sort(res.held)
	F0 := IF(E)
	// The matching rule of this universe: one of each type, the SET's
	// custodian the ALC's, no REPLACE with its original, not N2's price.
	candidate := func(L []string) bool {
		count := map[schemas.MsgType]int{}
		var alcCust, setCust string
		for _, nm := range L {
			m := u.content[nm]
			if m == nil || !content(m) || m.badPrice {
				return false
			}
			count[m.typ]++
			if m.typ == schemas.ALC {
				alcCust = m.custodian
			}
			if m.typ == schemas.SET {
				setCust = m.custodian
			}
			if m.fn == schemas.REPLACE && slices.Contains(L, m.related) {
				return false
			}
		}
		return count[schemas.NOE] == 1 && count[schemas.ALC] == 1 && count[schemas.NPR] == 1 && count[schemas.SET] == 1 && alcCust == setCust
	}
	label := func(L []string) string {
		for l, ns := range u.sets {
			if slices.Equal(sortedCopy(ns), L) {
				return l
			}
		}
		return strings.Join(L, "+")
	}
	// Step 2.
	for _, m := range S {
		if m.typ != schemas.CXL {
			continue
		}
		other := invMgr
		if m.sender == invMgr {
			other = broker
		}
		state := "PENDING"
		for _, x := range S {
			if x.typ == schemas.CXJ && x.sender == other && x.cxl == m.name {
				state = "REJECTED"
			}
		}
		for _, x := range S {
			if x.typ == schemas.CXA && x.sender == other && x.cxl == m.name {
				state = "ACCEPTED"
			}
		}
		res.requests["M-"+m.name] = state
		res.cancelled = res.cancelled || state == "ACCEPTED"
	}
	// Step 3.
	counted := func(a *mmsg) bool { return res.affStates["M-"+a.name] == "COUNTED" }
	for _, a := range S {
		if a.typ != schemas.AFF {
			continue
		}
		state := "COUNTED"
		for _, nm := range a.names {
			if has[nm] == nil {
				state = "DORMANT"
			}
		}
		if state == "COUNTED" && (!candidate(sortedCopy(a.names)) || !a.digestOK) {
			state = "VOID"
		}
		res.affStates["M-"+a.name] = state
	}
	// Step 4: roots, by (time, key), then label order stands for digest order.
	type root struct {
		set  string
		time int
		key  string
	}
	var roots []root
	for _, a := range S {
		if a.typ == schemas.AFF && counted(a) && a.decision == "AFFIRM" && a.amends == "" {
			r := root{a.set, a.created, a.sender + ":M-" + a.name}
			i := slices.IndexFunc(roots, func(x root) bool { return x.set == r.set })
			if i < 0 {
				roots = append(roots, r)
			} else if r.time < roots[i].time || r.time == roots[i].time && r.key < roots[i].key {
				roots[i] = r
			}
		}
	}
	slices.SortFunc(roots, func(x, y root) int {
		return cmp.Or(cmp.Compare(x.time, y.time), strings.Compare(x.key, y.key), strings.Compare(u.digests[x.set], u.digests[y.set]))
	})
	// Step 5: amendments.
	type amendment struct {
		from, to string
		time     int
	}
	var ams []amendment
	for _, from := range []string{"L1", "L2", "L3", "L4"} {
		for _, to := range []string{"L1", "L2", "L3", "L4"} {
			iT, bT := -1, -1
			for _, a := range S {
				if a.typ != schemas.AFF || !counted(a) || a.decision != "AFFIRM" || a.amends != from || a.set != to || from == to {
					continue
				}
				if a.sender == invMgr && (iT < 0 || a.created < iT) {
					iT = a.created
				}
				if a.sender == broker && (bT < 0 || a.created < bT) {
					bT = a.created
				}
			}
			if iT >= 0 && bT >= 0 {
				ams = append(ams, amendment{from, to, max(iT, bT)})
			}
		}
	}
	slices.SortFunc(ams, func(x, y amendment) int {
		return cmp.Or(cmp.Compare(x.time, y.time), strings.Compare(u.digests[x.to], u.digests[y.to]), strings.Compare(u.digests[x.from], u.digests[y.from]))
	})
	// Step 6.
	agreement, best := "", -1
	for _, r := range roots {
		cur, steps := r.set, 0
		for _, am := range ams {
			if am.from == cur {
				cur, steps = am.to, steps+1
			}
		}
		if steps > best {
			agreement, best = cur, steps
		}
	}
	res.locked = agreement != "" && !res.cancelled
	res.steps = best
	// Step 7, 8.
	var inForce []string
	switch {
	case res.cancelled:
	case res.locked:
		inForce = sortedCopy(u.sets[agreement])
	default:
		inForce = names(F0)
	}
	res.inForce = inForce
	res.matched = res.locked || len(inForce) > 0 && candidate(inForce)
	complete := func(L []string) bool {
		count := map[schemas.MsgType]int{}
		for _, nm := range L {
			count[u.content[nm].typ]++
		}
		return count[schemas.NOE] >= 1 && count[schemas.ALC] >= 1 && count[schemas.NPR] >= 1 && count[schemas.SET] >= 1
	}
	// Step 9.
	if res.locked {
		for _, nm := range names(F0) {
			if !slices.Contains(inForce, nm) {
				res.pending = append(res.pending, nm)
			}
		}
		for _, m := range E {
			if m.fn != schemas.NEW && slices.Contains(inForce, m.related) && !slices.Contains(res.pending, m.name) {
				res.pending = append(res.pending, m.name)
			}
		}
		slices.Sort(res.pending)
		if len(res.pending) > 0 && candidate(names(F0)) {
			res.proposal = names(F0)
		}
	}
	// Step 10.
	pendingCXL := false
	for _, s := range res.requests {
		pendingCXL = pendingCXL || s == "PENDING"
	}
	switch {
	case res.cancelled:
		res.value = "CANCELLED"
	case res.locked && pendingCXL:
		res.value = "CANCEL_PENDING"
	case res.locked && len(res.pending) > 0:
		res.value = "CHANGE_PENDING"
	case res.locked:
		res.value = "AFFIRMED"
	case res.matched:
		res.value = "MATCHED"
		for _, a := range S {
			if a.typ == schemas.AFF && counted(a) && a.decision == "REJECT" && a.amends == "" && label(inForce) == a.set {
				res.value = "AFFIRM_REJECTED"
			}
		}
	case len(inForce) > 0 && complete(inForce):
		res.value = "MISMATCHED"
	default:
		res.value = "none"
	}
	// Step 11: the block (NOE and ALC in force; k = 1).
	var noe, alc *mmsg
	for _, nm := range inForce {
		switch m := u.content[nm]; m.typ {
		case schemas.NOE:
			noe = m
		case schemas.ALC:
			alc = m
		}
	}
	if noe != nil && alc != nil {
		res.block = "BLOCK_MATCHED"
		if noe.badPrice {
			res.block = "BLOCK_MISMATCHED"
		}
	}
	// Step 12: allegements (unlocked, not cancelled).
	if !res.locked && !res.cancelled && len(inForce) > 0 {
		owed := map[string][]string{}
		count := map[schemas.MsgType]int{}
		for _, nm := range inForce {
			count[u.content[nm].typ]++
		}
		if count[schemas.NOE] == 0 {
			owed[broker] = append(owed[broker], "NOE")
		}
		if alc == nil {
			owed[invMgr] = append(owed[invMgr], "ALC")
		} else {
			if count[schemas.NPR] == 0 {
				owed[broker] = append(owed[broker], "NPR")
			}
			if count[schemas.SET] == 0 {
				owed[alc.custodian] = append(owed[alc.custodian], "SET")
			}
		}
		for p, items := range owed {
			for _, nm := range inForce {
				if u.content[nm].sender != p {
					res.alleged[p] = items
					break
				}
			}
		}
	}
	return res
}

func sortedCopy(xs []string) []string {
	c := slices.Clone(xs)
	slices.Sort(c)
	return c
}

// engineResult reads the same from the engine: its view and its outputs.
func (u *universe) engineResult(t *testing.T, f *fixture) modelResult {
	byID := map[string]string{}
	for name, m := range u.content {
		byID[m.draft.MsgId] = name
	}
	tr := f.book.Trade(tradeKey("M"))
	v := tr.View()
	res := modelResult{affStates: map[string]string{}, requests: map[string]string{}, alleged: map[string][]string{},
		locked: tr.Locked, cancelled: tr.Cancelled, held: []string{}, value: "none", matched: tr.Live, steps: -1}
	for _, m := range v.Messages {
		if m.InForce {
			res.inForce = append(res.inForce, byID[m.MsgId])
		}
	}
	slices.Sort(res.inForce)
	for _, h := range v.Held {
		res.held = append(res.held, byID[h.MsgId])
	}
	slices.Sort(res.held)
	for _, p := range v.Pending {
		res.pending = append(res.pending, byID[p.MsgId])
	}
	slices.Sort(res.pending)
	if v.Proposal != nil {
		for _, tok := range v.Proposal.Messages {
			_, id := token(tok)
			res.proposal = append(res.proposal, byID[id])
		}
		slices.Sort(res.proposal)
	}
	for _, a := range v.Affirmations {
		res.affStates[a.MsgId] = a.State
	}
	for _, c := range v.CancelRequests {
		res.requests[c.MsgId] = c.State
	}
	if v.Agreement != nil {
		res.steps = v.Agreement.Amendments
	} else if a := assess(tr, nil); a.agreement != nil {
		res.steps = a.agreement.steps // cancelled: the agreement is kept for the parties
	}
	// The standing STATUS: the Broker's last (the highest n); none when it is
	// UNMATCHED or when no STATUS was sent. The view must agree.
	k := tradeKey("M").String()
	lastN, last := 0, ""
	blk, alg := "", map[string]string{}
	for _, o := range f.outs {
		parts := strings.Split(o.MsgId, ":")
		if len(parts) < 4 || parts[1] != k {
			continue
		}
		var n int
		fmt.Sscan(parts[2], &n)
		switch {
		case o.Type == schemas.STATUS && o.Receiver == broker && n >= lastN:
			lastN, last = n, string(o.Body)
		case o.Type == schemas.BLK && o.Receiver == broker:
			blk = string(o.Body)
		case o.Type == schemas.ALG:
			alg[o.Receiver] = string(o.Body)
			if o.Function == schemas.CANCEL {
				alg[o.Receiver] = ""
			}
		}
	}
	if m := statusValue.FindStringSubmatch(last); m != nil && m[1] != "UNMATCHED" {
		res.value = m[1]
	}
	view := strings.ToUpper(v.State)
	if v.Lifecycle != "NONE" {
		view = v.Lifecycle
	} else if view == "INCOMPLETE" {
		view = "none"
	}
	if view != res.value {
		t.Fatalf("the view says %s, the last STATUS %s", view, res.value)
	}
	if m := statusValue.FindStringSubmatch(blk); m != nil && m[1] != "BLOCK_INCOMPLETE" {
		res.block = m[1]
	}
	if res.block != v.BlockStatus && !(res.block == "" && v.BlockStatus == "NONE") {
		t.Fatalf("the view's block %s, the last BLK %s", v.BlockStatus, res.block)
	}
	for r, body := range alg {
		if body == "" {
			continue
		}
		for _, part := range strings.Split(body, `<Owed msgType="`)[1:] {
			res.alleged[r] = append(res.alleged[r], part[:3])
		}
	}
	return res
}

func TestModelBasedLifecycle(t *testing.T) {
	u := newUniverse(t)
	r := rand.New(rand.NewPCG(53, 5))
	rounds := 1500
	if testing.Short() {
		rounds = 300
	}
	seen := map[string]int{}
	for round := 0; round < rounds; round++ {
		S := u.randomSet(r)
		want := u.model(S)
		seen[want.value]++
		for k := 0; k < 3; k++ {
			order := slices.Clone(S)
			for d := r.IntN(4); d > 0 && len(S) > 0; d-- {
				order = append(order, S[r.IntN(len(S))]) // exact duplicates
			}
			r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
			f := newFixture(t)
			for _, m := range order {
				f.send(m.draft)
			}
			f.allege()
			if f.book.Trade(tradeKey("M")) == nil {
				continue // nothing was sent
			}
			got := u.engineResult(t, f)
			if !want.agrees(got) {
				var ns []string
				for _, m := range order {
					ns = append(ns, m.name+"("+m.set+")")
				}
				t.Fatalf("round %d, order %v:\nengine %+v\nmodel  %+v", round, ns, got, want)
			}
		}
	}
	// The generator reaches every status value.
	for _, v := range []string{"none", "MATCHED", "MISMATCHED", "AFFIRM_REJECTED", "AFFIRMED", "CHANGE_PENDING", "CANCEL_PENDING", "CANCELLED"} {
		if seen[v] == 0 {
			t.Errorf("no set reached %s: %v", v, seen)
		}
	}
	t.Logf("values reached: %v", seen)
}

func (m modelResult) agrees(e modelResult) bool {
	eq := func(a, b []string) bool { return slices.Equal(a, b) || len(a) == 0 && len(b) == 0 }
	if !eq(m.inForce, e.inForce) || !eq(m.pending, e.pending) || !eq(m.proposal, e.proposal) || !eq(m.held, e.held) ||
		m.value != e.value || m.matched != e.matched || m.locked != e.locked || m.cancelled != e.cancelled ||
		m.steps != e.steps || m.block != e.block || len(m.alleged) != len(e.alleged) {
		return false
	}
	for k, v := range m.affStates {
		if e.affStates[k] != v {
			return false
		}
	}
	for k, v := range m.requests {
		if e.requests[k] != v {
			return false
		}
	}
	for k, v := range m.alleged {
		if !slices.Equal(v, e.alleged[k]) {
			return false
		}
	}
	return len(m.affStates) == len(e.affStates) && len(m.requests) == len(e.requests)
}
