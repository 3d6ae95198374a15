package matching

import (
	"cmp"
	"slices"
	"strings"

	"github.com/ste-utility/ste/schemas"
)

// This file is section 5a "Evaluation" of the contract as code: steps 1 to
// 10, top to bottom, each a function of S (the trade's accepted messages,
// Trade.Entries), of the tolerances (and the minor units kept in each
// entry) and of the results of the steps above it — nothing else: not the
// order in which the messages arrived, not what was evaluated or sent
// before. That is what makes every outcome of the lifecycle a function of
// the set. Steps 11 and 12 (block status, allegements) are in early.go.
//
// Cost: a trade with k allocations holds about 3k+1 content messages. Every
// step is a pass over S with maps; a set is assessed as a candidate once
// (candidate, memoised by its tokens), only for the sets the AFFs name, F0
// and nothing else — subsets are never enumerated, because an AFF names its
// set. With m AFFs of at most 3k+1 tokens each an evaluation costs
// O((|S| + m·k) log k) plus one SHA-256 per distinct set named.

// assessment is the result of steps 1 to 10 on one trade.
type assessment struct {
	t   *Trade
	tol Tolerances
	key schemas.Key // the trade's key fields

	// Step 1: the unlocked view.
	alcInForce []*Entry // IF(the ALC messages of S)
	parked     []*Entry // SET NEWs and REPLACEs that are not attached
	acting     []*Entry // the NOE, ALC, NPR and SET messages of E(S)
	f0         []*Entry // F0 = IF(acting)

	// Step 2: cancellation.
	requests  []*cancelRequest // every CXL, by token
	cancelled bool

	// Step 3: affirmations.
	affs []*affirmation // every AFF, by token

	// Steps 4 to 6: roots, amendments, the agreement.
	roots      []*root
	amendments []*amendment
	agreement  *agreement // nil without a root; kept when cancelled (its parties)
	locked     bool

	// Step 7 and 8: the messages in force and their match.
	inForce []*Entry
	match   *candidate // the assessment of inForce; nil when nothing is in force

	// Step 9: pending changes and the proposal.
	pending  []*Entry
	proposal *candidate

	// Step 10: the status value (0: none, not complete by count) and, for
	// AFFIRM_REJECTED, the reject reasons.
	value         schemas.Status
	rejectReasons []string

	// The parties (section 5a "The parties") and the set they come from.
	partySet   []*Entry
	parties    []string
	custodians []custodianAccount // the accounts ALCs of partySet name the Custodian parties for, built by custodianAccounts
	custBuilt  bool
	custSet    map[custodianAccount]bool // custodians as a set, for a trade with many (holds)

	ids   map[schemas.Identity]*Entry // S by identity, built when asked (identity)
	cands map[string]*candidate       // candidate memo, by sorted tokens

	// spare is where step 1's lists are carved from (entries): one array
	// instead of one allocation a list for every message applied. It is
	// not room in the assessment itself: a pointer into the assessment
	// kept in it would move Risk's assessment, which stays on the stack,
	// to the heap (~900 bytes twice a message).
	spare []*Entry
}

// entries is an empty list with room for n, carved from spare.
func (a *assessment) entries(n int) []*Entry {
	if cap(a.spare)-len(a.spare) < n {
		a.spare = make([]*Entry, 0, max(n, 4*len(a.t.Entries)))
	}
	l := len(a.spare)
	a.spare = a.spare[:l+n]
	return a.spare[l : l : l+n]
}

// assess runs steps 1 to 10 on the trade.
func assess(t *Trade, tol Tolerances) *assessment {
	a := &assessment{t: t, tol: tol}
	if len(t.Keys) > 0 {
		a.key = t.Keys[0]
	}
	a.unlockedView()    // step 1
	a.cancellation()    // step 2
	a.affirmations()    // step 3
	a.rootsOf()         // step 4
	a.amendmentsOf()    // step 5
	a.agreementOf()     // step 6
	a.messagesInForce() // step 7
	a.matchOf()         // step 8
	a.pendingChanges()  // step 9
	a.statusValue()     // step 10
	a.partiesOf()
	return a
}

// ---- Terms ----

// ref names a message as a CANCEL or REPLACE names it: its Sender, its
// MsgType and its MsgId.
type ref struct {
	sender, msgId string
	typ           schemas.MsgType
}

func refOf(e *Entry) ref     { return ref{e.Sender, e.MsgId, e.Type} }
func relatedOf(e *Entry) ref { return ref{e.Sender, e.Related, e.Type} }

// isContent: a content message, a NOE, ALC, NPR or SET with Function NEW or
// REPLACE.
func isContent(e *Entry) bool { return e.Type.IsContent() && e.Function != schemas.CANCEL }

// isChange: a change message, a NOE, ALC, NPR or SET with Function CANCEL
// or REPLACE (a REPLACE is both).
func isChange(e *Entry) bool { return e.Type.IsContent() && e.Function != schemas.NEW }

// inForceOf is IF(T): the content messages of T that no CANCEL or REPLACE of
// T with the same Sender and MsgType names by RelatedMsgId, appended to out.
func inForceOf(out, T []*Entry) []*Entry {
	var named map[ref]bool
	for _, e := range T {
		if isChange(e) {
			if named == nil {
				named = make(map[ref]bool)
			}
			named[relatedOf(e)] = true
		}
	}
	for _, e := range T {
		if isContent(e) && !named[refOf(e)] {
			out = append(out, e)
		}
	}
	return out
}

// identity finds a message of S by (Sender, MsgId).
func (a *assessment) identity(sender, msgId string) *Entry {
	if a.ids == nil {
		a.ids = make(map[schemas.Identity]*Entry, len(a.t.Entries))
		for i := range a.t.Entries {
			e := &a.t.Entries[i]
			a.ids[schemas.Identity{Sender: e.Sender, MsgId: e.MsgId}] = e
		}
	}
	return a.ids[schemas.Identity{Sender: sender, MsgId: msgId}]
}

// token splits a Sender:MsgId token at its first ':'.
func token(tok string) (sender, msgId string) {
	s, id, _ := strings.Cut(tok, ":")
	return s, id
}

// otherPrincipal is the principal that answers a CXL of p: the InvMgr for
// the Broker's, the Broker for the InvMgr's; "" for anyone else (validation
// lets no one else send one).
func (a *assessment) otherPrincipal(p string) string {
	switch {
	case a.key.Broker == a.key.InvMgr:
		return ""
	case p == a.key.Broker:
		return a.key.InvMgr
	case p == a.key.InvMgr:
		return a.key.Broker
	}
	return ""
}

// ---- Step 1: the unlocked view ----

// unlockedView: a SET NEW or REPLACE is attached when an ALC of IF(the ALC
// messages of S) names its Custodian for its Account; E(S) is S without the
// SETs that are not; F0 = IF(the NOE, ALC, NPR and SET messages of E(S)).
// A SET CANCEL always acts (a sender cancels only its own message).
func (a *assessment) unlockedView() {
	type named struct{ account, custodian string }
	nALC, nSET := 0, 0
	for i := range a.t.Entries {
		switch a.t.Entries[i].Type {
		case schemas.ALC:
			nALC++
		case schemas.SET:
			nSET++
		}
	}
	alcs := a.entries(nALC)
	for i := range a.t.Entries {
		if e := &a.t.Entries[i]; e.Type == schemas.ALC {
			alcs = append(alcs, e)
		}
	}
	a.alcInForce = inForceOf(a.entries(nALC), alcs)
	var names map[named]bool // a trade with many allocations: a map, else a walk
	if len(a.alcInForce) > 8 {
		names = make(map[named]bool, len(a.alcInForce))
		for _, e := range a.alcInForce {
			names[named{e.Account, e.Custodian}] = true
		}
	}
	attached := func(e *Entry) bool {
		if names != nil {
			return names[named{e.Account, e.Custodian}]
		}
		return slices.ContainsFunc(a.alcInForce, func(c *Entry) bool { return c.Account == e.Account && c.Custodian == e.Custodian })
	}
	a.acting, a.parked = a.entries(len(a.t.Entries)), a.entries(nSET)
	for i := range a.t.Entries {
		e := &a.t.Entries[i]
		if !e.Type.IsContent() {
			continue
		}
		if e.Type == schemas.SET && isContent(e) && !attached(e) {
			a.parked = append(a.parked, e)
			continue
		}
		a.acting = append(a.acting, e)
	}
	a.f0 = inForceOf(a.entries(len(a.acting)), a.acting)
}

// ---- Step 2: cancellation ----

type requestState uint8

const (
	requestPending requestState = iota
	requestRejected
	requestAccepted
)

func (s requestState) String() string {
	return [...]string{"PENDING", "REJECTED", "ACCEPTED"}[s]
}

// cancelRequest is a CXL with its state and the answers that decide it.
type cancelRequest struct {
	cxl     *Entry
	state   requestState
	answers []*Entry // the CXAs naming it when accepted, the CXJs when rejected
}

// cancellation: a CXL is accepted when S holds a CXA of the other principal
// naming it, else rejected when S holds such a CXJ, else pending; the trade
// is cancelled when some CXL is accepted (or it continues a cancelled
// trade's tombstone, section 5 "Retention"). A CXJ never undoes a CXA.
func (a *assessment) cancellation() {
	type answer struct {
		sender, related string
		typ             schemas.MsgType
	}
	var answers map[answer][]*Entry
	for i := range a.t.Entries {
		e := &a.t.Entries[i]
		switch e.Type {
		case schemas.CXA, schemas.CXJ:
			if answers == nil {
				answers = make(map[answer][]*Entry)
			}
			k := answer{e.Sender, e.Related, e.Type}
			answers[k] = append(answers[k], e)
		case schemas.CXL:
			a.requests = append(a.requests, &cancelRequest{cxl: e})
		}
	}
	for _, r := range a.requests {
		other := a.otherPrincipal(r.cxl.Sender)
		if other == "" {
			continue
		}
		if as := answers[answer{other, r.cxl.MsgId, schemas.CXA}]; len(as) > 0 {
			r.state, r.answers = requestAccepted, as
			a.cancelled = true
		} else if as := answers[answer{other, r.cxl.MsgId, schemas.CXJ}]; len(as) > 0 {
			r.state, r.answers = requestRejected, as
		}
		slices.SortFunc(r.answers, byToken)
	}
	slices.SortFunc(a.requests, func(x, y *cancelRequest) int { return byToken(x.cxl, y.cxl) })
	a.cancelled = a.cancelled || a.t.TombCancelled
}

func byToken(x, y *Entry) int {
	return cmp.Or(strings.Compare(x.Sender, y.Sender), strings.Compare(x.MsgId, y.MsgId))
}

// ---- Step 3: affirmations ----

type affState uint8

const (
	dormant affState = iota
	void
	counted
)

func (s affState) String() string { return [...]string{"DORMANT", "VOID", "COUNTED"}[s] }

// affirmation is an AFF with N(a), the set its tokens name, and its state.
type affirmation struct {
	aff   *Entry
	named []*Entry
	state affState
	c     *candidate // N(a) assessed, when every token names a content message
}

// affirmations: an AFF is DORMANT when a token names no accepted message of
// the trade; otherwise VOID when a token names a message that is not a
// content message, when N(a) is not a candidate, or when the MatchDigest of
// N(a) differs from its MatchDigest; otherwise COUNTED.
func (a *assessment) affirmations() {
	for i := range a.t.Entries {
		e := &a.t.Entries[i]
		if e.Type != schemas.AFF {
			continue
		}
		f := &affirmation{aff: e}
		a.affs = append(a.affs, f)
		named, content := true, true
		for _, tok := range e.Affirms {
			m := a.identity(token(tok))
			if m == nil {
				named = false
				break
			}
			content = content && isContent(m)
			f.named = append(f.named, m)
		}
		switch {
		case !named || len(f.named) == 0:
			f.state, f.named = dormant, nil
		case !content:
			f.state = void
		default:
			f.c = a.candidate(f.named)
			if f.c.ok && f.c.hex == e.MatchDigest {
				f.state = counted
			} else {
				f.state = void
			}
		}
	}
	slices.SortFunc(a.affs, func(x, y *affirmation) int { return byToken(x.aff, y.aff) })
}

// ---- Step 4: roots ----

// root is a set a first affirmation made a root, with its smallest (time,
// key).
type root struct {
	c    *candidate
	time int64
	key  string // the AFF's token
	aff  *Entry // the AFF of (time, key)
}

// rootsOf: each COUNTED AFFIRM without Amends makes N(a) a root with time
// a's Created and key a's token; a set that is a root several times keeps
// its smallest (time, key).
func (a *assessment) rootsOf() {
	byDigest := map[string]*root{}
	for _, f := range a.affs {
		e := f.aff
		if f.state != counted || e.Decision != schemas.AFFIRM || e.Amends != "" {
			continue
		}
		r := &root{c: f.c, time: e.Created, key: e.Token(), aff: e}
		if old, ok := byDigest[f.c.hex]; !ok || rootBefore(r, old) {
			byDigest[f.c.hex] = r
		}
	}
	for _, r := range byDigest {
		a.roots = append(a.roots, r)
	}
	// Root order (step 6): by time, then key, then MatchDigest.
	slices.SortFunc(a.roots, func(x, y *root) int {
		return cmp.Or(cmp.Compare(x.time, y.time), strings.Compare(x.key, y.key), strings.Compare(x.c.hex, y.c.hex))
	})
}

func rootBefore(x, y *root) bool {
	return x.time < y.time || x.time == y.time && x.key < y.key
}

// ---- Step 5: amendments ----

// amendment is (A → L): COUNTED AFFIRMs naming exactly L with Amends = A
// from both the InvMgr and the Broker.
type amendment struct {
	from string     // A, a MatchDigest
	to   *candidate // L
	time int64      // the later of the InvMgr's and the Broker's earliest Created
}

func (a *assessment) amendmentsOf() {
	type pair struct{ from, to string }
	type earliest struct {
		c                  *candidate
		invMgr, broker     int64
		hasInvMgr, hasBrkr bool
	}
	var byPair map[pair]*earliest
	var order []pair
	for _, f := range a.affs {
		e := f.aff
		if f.state != counted || e.Decision != schemas.AFFIRM || e.Amends == "" || e.Amends == f.c.hex {
			continue
		}
		if byPair == nil {
			byPair = map[pair]*earliest{}
		}
		p := pair{e.Amends, f.c.hex}
		x := byPair[p]
		if x == nil {
			x = &earliest{c: f.c}
			byPair[p] = x
			order = append(order, p)
		}
		// A trade whose Broker is its InvMgr has no AFF (NOT_AUTHORISED).
		switch e.Sender {
		case a.key.InvMgr:
			if !x.hasInvMgr || e.Created < x.invMgr {
				x.invMgr, x.hasInvMgr = e.Created, true
			}
		case a.key.Broker:
			if !x.hasBrkr || e.Created < x.broker {
				x.broker, x.hasBrkr = e.Created, true
			}
		}
	}
	for _, p := range order {
		if x := byPair[p]; x.hasInvMgr && x.hasBrkr {
			a.amendments = append(a.amendments, &amendment{from: p.from, to: x.c, time: max(x.invMgr, x.broker)})
		}
	}
	// Amendment order (step 6): by time, then the MatchDigest of L, then A.
	slices.SortFunc(a.amendments, func(x, y *amendment) int {
		return cmp.Or(cmp.Compare(x.time, y.time), strings.Compare(x.to.hex, y.to.hex), strings.Compare(x.from, y.from))
	})
}

// ---- Step 6: the agreement ----

// agreement is where the replay of the root with the most steps ends.
type agreement struct {
	c     *candidate
	root  *root
	steps int
}

// agreementOf replays the amendments for each root, in root order: start at
// the root's MatchDigest, and for each amendment in order whose A is the
// digest reached, move to its L. The agreement is where the root with the
// most steps ends, the first in root order among equals. The trade is
// locked when it has an agreement and is not cancelled.
func (a *assessment) agreementOf() {
	for _, r := range a.roots {
		cur, steps := r.c, 0
		for _, am := range a.amendments {
			if am.from == cur.hex {
				cur, steps = am.to, steps+1
			}
		}
		if a.agreement == nil || steps > a.agreement.steps {
			a.agreement = &agreement{c: cur, root: r, steps: steps}
		}
	}
	a.locked = a.agreement != nil && !a.cancelled
}

// ---- Step 7: the messages in force ----

func (a *assessment) messagesInForce() {
	switch {
	case a.cancelled:
		a.inForce = nil
	case a.locked:
		a.inForce = a.agreement.c.set
	default:
		a.inForce = a.f0
	}
}

// ---- Step 8: the match ----

// matchOf evaluates the messages in force by section 5. A locked trade is
// matched: its agreement is a candidate.
func (a *assessment) matchOf() {
	switch {
	case a.locked:
		a.match = a.agreement.c
	case len(a.inForce) > 0:
		a.match = a.candidate(a.inForce)
	}
}

// matched reports whether a match stands (the standing digest exists).
func (a *assessment) matched() bool { return a.match != nil && a.match.ev.state == matched }

// ---- Step 9: pending changes and the proposal ----

// pendingChanges (locked): Pending is the messages of F0 not in the
// agreement, with the change messages of E(S) whose related message is in
// the agreement; the proposal is F0 when Pending is not empty and F0 is a
// candidate.
func (a *assessment) pendingChanges() {
	if !a.locked {
		return
	}
	in := make(map[ref]bool, len(a.agreement.c.set))
	for _, e := range a.agreement.c.set {
		in[refOf(e)] = true
	}
	seen := map[*Entry]bool{}
	for _, e := range a.f0 {
		if !in[refOf(e)] {
			a.pending, seen[e] = append(a.pending, e), true
		}
	}
	for _, e := range a.acting {
		if isChange(e) && in[relatedOf(e)] && !seen[e] {
			a.pending, seen[e] = append(a.pending, e), true
		}
	}
	if len(a.pending) > 0 {
		if c := a.candidate(a.f0); c.ok {
			a.proposal = c
		}
	}
}

// ---- Step 10: the status value ----

func (a *assessment) statusValue() {
	switch {
	case a.cancelled:
		a.value = schemas.Cancelled
	case a.locked:
		switch {
		case slices.ContainsFunc(a.requests, func(r *cancelRequest) bool { return r.state == requestPending }):
			a.value = schemas.CancelPending
		case len(a.pending) > 0:
			a.value = schemas.ChangePending
		default:
			a.value = schemas.Affirmed
		}
	case a.matched():
		// A COUNTED REJECT without Amends naming exactly the messages in
		// force (an AFFIRM would have locked the trade: it outweighs it).
		var codes []string
		for _, f := range a.affs {
			e := f.aff
			if f.state == counted && e.Decision == schemas.REJECT && e.Amends == "" && f.c.hex == a.match.hex {
				codes = append(codes, e.RejectReason...)
				a.value = schemas.AffirmRejected
			}
		}
		if a.value == 0 {
			a.value = schemas.Matched
		}
		slices.Sort(codes)
		a.rejectReasons = slices.Compact(codes)
	case a.match != nil && a.match.ev.state == mismatched:
		a.value = schemas.Mismatched
	}
}

// ---- The parties ----

// partiesOf: the Broker, the InvMgr and every Custodian named by an ALC of
// the messages in force; for a cancelled trade, of the messages steps 1 to 7
// would put in force if no CXL were accepted (the agreement when there is
// one, else F0).
func (a *assessment) partiesOf() {
	a.partySet = a.inForce
	if a.cancelled {
		a.partySet = a.f0
		if a.agreement != nil {
			a.partySet = a.agreement.c.set
		}
	}
	a.parties = appendPrincipals(make([]string, 0, 4), a.key)
	n := len(a.parties)
	for _, e := range a.partySet {
		if e.Type == schemas.ALC && e.Custodian != "" && !slices.Contains(a.parties[:n], e.Custodian) {
			a.parties = append(a.parties, e.Custodian) // a principal that is also a custodian reads as the principal
		}
	}
	slices.Sort(a.parties[n:])
	a.parties = slices.Compact(a.parties)
}

// isCustodian reports whether party p is one of the trade's Custodian
// parties (not a principal).
func (a *assessment) isCustodian(p string) bool {
	return p != a.key.Broker && p != a.key.InvMgr && slices.Contains(a.parties, p)
}

// custodianAccount is an account an ALC of the set the parties come from
// names a Custodian party for.
type custodianAccount struct{ custodian, account string }

// custodianAccounts are the Custodian parties' accounts: those for which an
// ALC of the set the parties come from names them.
func (a *assessment) custodianAccounts() []custodianAccount {
	if !a.custBuilt {
		a.custBuilt = true
		for _, e := range a.partySet {
			if e.Type == schemas.ALC && a.isCustodian(e.Custodian) {
				a.custodians = append(a.custodians, custodianAccount{e.Custodian, e.Account})
			}
		}
		if len(a.custodians) > 8 { // a trade with many allocations: a set, else a walk
			a.custSet = make(map[custodianAccount]bool, len(a.custodians))
			for _, ca := range a.custodians {
				a.custSet[ca] = true
			}
		}
	}
	return a.custodians
}

// holds reports whether account is one of a Custodian party's accounts.
func (a *assessment) holds(custodian, account string) bool {
	cas := a.custodianAccounts()
	if a.custSet != nil {
		return a.custSet[custodianAccount{custodian, account}]
	}
	return slices.Contains(cas, custodianAccount{custodian, account})
}

// principals are the Broker and the InvMgr (once when they are one BIC).
func principals(k schemas.Key) []string { return appendPrincipals(nil, k) }

func appendPrincipals(dst []string, k schemas.Key) []string {
	if k.Broker == "" {
		return dst
	}
	if k.InvMgr == k.Broker {
		return append(dst, k.Broker)
	}
	return append(dst, k.Broker, k.InvMgr)
}

// accountOf is the Account a message counts as of for a Custodian's view
// (messages.md §6 "A Custodian's Bodies"): an ALC's, NPR's or SET's own, a
// CANCEL's the one of the message it cancels; "" for the rest.
func (a *assessment) accountOf(e *Entry) (string, bool) {
	switch e.Type {
	case schemas.ALC, schemas.NPR, schemas.SET:
	default:
		return "", false
	}
	if e.Function == schemas.CANCEL {
		if m := a.identity(e.Sender, e.Related); m != nil && m.Type == e.Type && m.Function != schemas.CANCEL {
			return m.Account, true
		}
		return e.Account, e.Has.Has(schemas.FAccount)
	}
	return e.Account, true
}

// ofCustodian keeps the tokens of the custodian's accounts.
func (a *assessment) ofCustodian(custodian string, tokens []string) []string {
	out := make([]string, 0, len(tokens))
	for _, tok := range tokens {
		if e := a.identity(token(tok)); e != nil {
			if acct, ok := a.accountOf(e); ok && a.holds(custodian, acct) {
				out = append(out, tok)
			}
		}
	}
	return out
}

// ---- Candidates ----

// candidate is a set of content messages assessed as if it were the
// messages in force: its evaluation by section 5 and, when it matches on
// its own (is a candidate, section 5a "Terms"), its MatchDigest.
type candidate struct {
	set    []*Entry
	tokens []string // byte order
	v      *view
	ev     evaluation
	ok     bool // a candidate
	digest schemas.MatchDigest
	hex    string // digest as 64 lower-case hex; "" when not a candidate
}

// candidate assesses a set of messages once per evaluation. The memo (by the
// set's tokens) serves the sets AFFs name, F0 and the proposal; a trade
// without AFFs assesses one set, F0, and skips it.
func (a *assessment) candidate(set []*Entry) *candidate {
	var memo string
	var toks []string
	if len(a.affs) > 0 {
		toks = tokens(set)
		memo = strings.Join(toks, " ")
		if c, ok := a.cands[memo]; ok {
			return c
		}
	}
	c := &candidate{set: set, tokens: toks, v: newView(set, a.tol)}
	c.ev = evaluate(a.t, c.v)
	c.ok = c.ev.state == matched && !replaceWithItsOriginal(set)
	if c.ok {
		if c.tokens == nil {
			c.tokens = tokens(set)
		}
		c.digest = schemas.ComputeMatchDigest(c.ev.cls, c.tokens)
		c.hex = c.digest.String()
	}
	if memo != "" {
		if a.cands == nil {
			a.cands = map[string]*candidate{}
		}
		a.cands[memo] = c
	}
	return c
}

// replaceWithItsOriginal: the set holds a REPLACE together with the message
// it names (no candidate does).
func replaceWithItsOriginal(set []*Entry) bool {
	var in map[ref]bool
	for _, e := range set {
		if e.Function == schemas.REPLACE {
			if in == nil {
				in = make(map[ref]bool, len(set))
				for _, f := range set {
					in[refOf(f)] = true
				}
			}
			if in[relatedOf(e)] {
				return true
			}
		}
	}
	return false
}
