package gateway_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ste-utility/ste/gateway"
	"github.com/ste-utility/ste/processors/matching"
	"github.com/ste-utility/ste/processors/memstore"
	"github.com/ste-utility/ste/processors/query"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/date"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/workload"
)

// tradeSet is a match table in this process: messages applied to a book,
// each trade stored in one of three partitions through its read side
// (processors/query), as the instances owning the partitions keep it.
type tradeSet struct {
	book   *matching.Book
	tables query.Tables
	stores map[int32]*memstore.Store
	parts  map[int32]*query.Partition
	keys   []schemas.TradeKey
	dec    schemas.Decoder
}

const tradeSetParts = 3

func newTradeSet(ref *refdata.Set) *tradeSet {
	s := &tradeSet{book: matching.NewBook(), stores: map[int32]*memstore.Store{}, parts: map[int32]*query.Partition{}}
	s.tables.Serve(query.Config{Refdata: func() *refdata.Set { return ref }})
	for p := range int32(tradeSetParts) {
		s.stores[p] = memstore.New(nil)
		s.parts[p] = s.tables.Open(p, s.stores[p])
	}
	return s
}

func (s *tradeSet) all() []int32 { return []int32{0, 1, 2} }

// accept applies a message (a duplicate or a key collision left out, as the
// match stage does) and stores its trade.
func (s *tradeSet) accept(t testing.TB, rec []byte) schemas.TradeKey {
	t.Helper()
	m, rej := s.dec.Decode(rec)
	if rej != nil {
		t.Fatalf("%v: %.300s", rej, rec)
	}
	k := m.Key.TradeKey()
	if _, known := s.book.Known(m.ID()); known || s.book.KeyCollision(m) != nil {
		return k
	}
	sum := sha256.Sum256(rec)
	s.book.Accept(&matching.Inbound{Msg: m, Digest: matching.Digest(sum[:16]), NetUnits: 2})
	v, err := s.book.Trade(k).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	p := int32(uint64(k) % tradeSetParts)
	if err := s.stores[p].Set(k.String(), v); err != nil {
		t.Fatal(err)
	}
	s.parts[p].Put(k.String(), v)
	if !slices.Contains(s.keys, k) {
		s.keys = append(s.keys, k)
	}
	return k
}

// recover builds the partitions' indexes, as goka's MarkRecovered does.
func (s *tradeSet) recover(t testing.TB) {
	t.Helper()
	for p, st := range s.stores {
		it, err := st.Iterator()
		if err != nil {
			t.Fatal(err)
		}
		s.parts[p].Recovered(it)
		it.Release()
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
		_, err := s.tables.Queue(query.QueueQuery{Party: "X", Limit: 1}, s.all())
		if !errors.Is(err, query.ErrRecovering) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("queue indexes not built")
		}
	}
}

// The gateway's lookups, answered from s (tradeSet is a TradeLookup).
func (s *tradeSet) Trade(_ context.Context, key, party string) (matching.View, bool, error) {
	k, ok := schemas.ParseTradeKey(key)
	if !ok {
		return matching.View{}, false, nil
	}
	f, found, err := s.tables.Trade(k, party, s.all())
	return f.View, found, err
}

func (s *tradeSet) ByRef(_ context.Context, ref, date, party string) ([]matching.View, error) {
	fs, _, err := s.tables.FindRef(query.RefQuery{Ref: ref, Date: date, Party: party}, s.all())
	var out []matching.View
	for _, f := range fs {
		out = append(out, f.View)
	}
	return out, err
}

func (s *tradeSet) QueuePage(_ context.Context, q query.QueueQuery) ([]query.QueueEntry, error) {
	fs, err := s.tables.Queue(q, s.all())
	if err != nil {
		return nil, err
	}
	out := []query.QueueTrade{}
	for _, f := range fs {
		out = append(out, f.Trade)
	}
	return query.QueueEntries(out)
}

func keyPairs(k schemas.Key) []schemas.Pair {
	return []schemas.Pair{{Name: "TradeRef", Value: k.TradeRef}, {Name: "TradeDate", Value: k.TradeDate}, {Name: "ISIN", Value: k.ISIN},
		{Name: "Side", Value: k.Side}, {Name: "Broker", Value: k.Broker}, {Name: "InvMgr", Value: k.InvMgr}}
}

func signed(d *schemas.Draft) []byte { return d.AppendSigned(nil, refdata.DemoPrivateKey(d.Sender)) }

// affirmed is the InvMgr's AFF of a trade's messages in force.
func affirmed(v *matching.View, id string) []byte {
	var toks []string
	for _, m := range v.Messages {
		if m.InForce {
			toks = append(toks, m.Sender+":"+m.MsgId)
		}
	}
	slices.Sort(toks)
	k := v.Keys[0]
	return signed(&schemas.Draft{MsgId: id, MsgType: "AFF", Function: "NEW", Sender: k.InvMgr, Created: "2026-11-02T05:00:00.000Z",
		Body: append(keyPairs(schemas.Key{TradeRef: k.TradeRef, TradeDate: k.TradeDate, ISIN: k.ISIN, Side: k.Side, Broker: k.Broker, InvMgr: k.InvMgr}),
			schemas.Pair{Name: "Decision", Value: "AFFIRM"}, schemas.Pair{Name: "MatchDigest", Value: v.MatchDigest},
			schemas.Pair{Name: "Affirms", Value: strings.Join(toks, " ")})})
}

// rogueSET is a SET of custodian c naming itself for the account of the
// SET set (a custodian no ALC names: it stays parked).
func rogueSET(set *schemas.Message, c, id string) []byte {
	return signed(&schemas.Draft{MsgId: id, MsgType: "SET", Function: "NEW", Sender: c, Created: "2026-11-02T03:00:00.000Z",
		Body: append(keyPairs(set.Key), schemas.Pair{Name: "Account", Value: set.Account},
			schemas.Pair{Name: "Quantity", Value: fmt.Sprint(set.Quantity)}, schemas.Pair{Name: "SettleDate", Value: set.SettleDate.String()},
			schemas.Pair{Name: "SettleCcy", Value: set.SettleCcy}, schemas.Pair{Name: "NetAmount", Value: set.NetAmount.Fixed(2)},
			schemas.Pair{Name: "Custodian", Value: c}, schemas.Pair{Name: "PSET", Value: set.PSET},
			schemas.Pair{Name: "SafekeepingAccount", Value: "ROGUE"}, schemas.Pair{Name: "CashAccount", Value: "ROGUE"})})
}

// clock is the gateway's wall clock in these tests (its signatures' too).
type clock struct{ now time.Time }

func (c *clock) Now() time.Time { return c.now }

// get is a signed GET of path as bic, signed at the clock's time.
func get(t testing.TB, base, path, bic string, c *clock) (int, []byte) {
	t.Helper()
	u := base + path
	r, _ := http.NewRequest("GET", u, nil)
	r.Header = gateway.SignedHeaders("GET", u, nil, bic, refdata.DemoPrivateKey(bic), c.now)
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// scenario is a generated set with one trade's roles picked out: its
// Broker, InvMgr and a Custodian of its ALCs, a custodian that is none of
// its parties and sent a SET naming itself (a rogue SET), one trade
// affirmed and one cancelled by its principals.
type scenario struct {
	set                              *tradeSet
	key                              schemas.TradeKey
	broker, invMgr, custodian, rogue string
	// affirmed and cancelled are the trades the scenario affirmed and
	// cancelled itself (the realistic mix affirms and cancels others).
	affirmed, cancelled schemas.TradeKey
}

func newScenario(t *testing.T, ref *refdata.Set) *scenario {
	t.Helper()
	sc := &scenario{set: newTradeSet(ref)}
	var recs [][]byte
	for i, d := range []string{"2026-11-02", "2026-11-03"} {
		if _, err := workload.Generate(workload.Options{Trades: 30, Mix: workload.Realistic, Seed: uint64(21 + i), Ref: ref, TradeDate: date.MustParse(d)},
			func(b []byte) error { recs = append(recs, b); return nil }, nil); err != nil {
			t.Fatal(err)
		}
	}
	var dec schemas.Decoder
	var sets []*schemas.Message
	for _, r := range recs {
		m, rej := dec.Decode(r)
		if rej != nil {
			continue
		}
		sc.set.accept(t, r)
		if m.Type == schemas.SET && m.Function == schemas.NEW && m.Key.TradeDate == "2026-11-02" {
			cp := *m
			sets = append(sets, &cp)
		}
	}
	// The first of the day's SETs whose trade matched and nobody affirmed
	// or cancelled yet: the realistic mix breaks, affirms, cancels and
	// leaves trades open, and which ones depends on the generator's draws,
	// not on this test.
	var aSET *schemas.Message
	for _, m := range sets {
		if w := sc.set.book.Trade(m.Key.TradeKey()).View(); w.State == "matched" && w.Lifecycle == "NONE" {
			aSET = m
			break
		}
	}
	if aSET == nil {
		t.Fatalf("none of the %d trades of 2026-11-02 with a SET is matched and unaffirmed", len(sets))
	}
	sc.key, sc.broker, sc.invMgr = aSET.Key.TradeKey(), aSET.Key.Broker, aSET.Key.InvMgr
	v := sc.set.book.Trade(sc.key).View()
	for c := range v.Custodians {
		if sc.custodian == "" || c < sc.custodian {
			sc.custodian = c
		}
	}
	for _, p := range ref.Participants() {
		if p.Roles.Has(refdata.RoleCustodian) && p.Status == refdata.Active && !v.IsParty(p.BIC) && sc.rogue == "" {
			sc.rogue = p.BIC
		}
	}
	sc.set.accept(t, rogueSET(aSET, sc.rogue, "ROGUE-SET-1"))
	// The picked trade again under another TradeRef, without its NPRs and
	// SETs: its Broker and its Custodians owe them.
	for _, r := range recs {
		m, rej := dec.Decode(r)
		if rej != nil || m.Key.TradeKey() != sc.key || m.Type == schemas.NPR || m.Type == schemas.SET {
			continue
		}
		ref := m.Key.TradeRef
		r = bytes.Replace(r, []byte("<TradeRef>"+ref+"<"), []byte("<TradeRef>"+ref+"-OWED<"), 1)
		sc.set.accept(t, bytes.Replace(r, []byte("<MsgId>"+m.MsgId+"<"), []byte("<MsgId>"+m.MsgId+"-OWED<"), 1))
	}
	// Two other matched trades: one affirmed, one cancelled.
	n := 0
	for _, k := range sc.set.keys {
		w := sc.set.book.Trade(k).View()
		if k == sc.key || w.State != "matched" || w.Lifecycle != "NONE" {
			continue
		}
		wk := w.Keys[0]
		switch n {
		case 0:
			sc.set.accept(t, affirmed(&w, "AFF-"+k.String()))
			sc.affirmed = k
		case 1:
			sc.cancelled = k
			key := schemas.Key{TradeRef: wk.TradeRef, TradeDate: wk.TradeDate, ISIN: wk.ISIN, Side: wk.Side, Broker: wk.Broker, InvMgr: wk.InvMgr}
			sc.set.accept(t, signed(&schemas.Draft{MsgId: "CXL-" + k.String(), MsgType: "CXL", Function: "NEW", Sender: wk.Broker,
				Created: "2026-11-02T05:00:00.000Z", Body: append(keyPairs(key), schemas.Pair{Name: "CancelReason", Value: "DUPLICATE"})}))
			sc.set.accept(t, signed(&schemas.Draft{MsgId: "CXA-" + k.String(), MsgType: "CXA", Function: "NEW", Sender: wk.InvMgr,
				Created: "2026-11-02T05:01:00.000Z", RelatedMsgId: "CXL-" + k.String(), Body: keyPairs(key)}))
		}
		n++
		if n == 2 {
			break
		}
	}
	sc.set.recover(t)
	return sc
}

// The version 2 trade view (gateway.md §4) through the gateway: every
// field, computed from the engine's view; a Custodian's view limited to
// its accounts and without held; held for the Broker and the InvMgr; and
// a custodian that only sent a SET (a rogue SET) gets the same 404 as a
// key nobody holds (issue 45, item 3).
func TestTradeViewVersion2(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a broker")
	}
	ref := testRefdata()
	sc := newScenario(t, ref)
	// XSES-like cutoffs: the clock 90 minutes before the picked trade's.
	v := sc.set.book.Trade(sc.key).View()
	market, cutoff := ref.CutoffOf(v.Market, v.Keys[0].TradeDate)
	c := &clock{now: cutoff.Add(-90 * time.Minute)}
	urls, _, _, _ := serveGatewaysWith(t, 1, func(o *gateway.Options) { o.Trades, o.Now = sc.set, c.Now })
	gw := urls[0]
	path := "/v1/trades/" + sc.key.String()

	// The rogue custodian: 404, byte for byte the answer for no trade.
	code, body := get(t, gw, path, sc.rogue, c)
	code0, body0 := get(t, gw, "/v1/trades/0123456789abcdef", sc.rogue, c)
	if code != 404 || code0 != 404 || string(body) != string(body0) || strings.TrimSpace(string(body)) != `{"error":"not_found"}` {
		t.Fatalf("the rogue custodian: %d %s / no trade: %d %s", code, body, code0, body0)
	}
	if code, body := get(t, gw, "/v1/trades?trade_ref="+url.QueryEscape(v.Keys[0].TradeRef), sc.rogue, c); code != 200 || strings.TrimSpace(string(body)) != `{"trades":[]}` {
		t.Fatalf("the rogue custodian by reference: %d %s", code, body)
	}

	fields := []string{"trade_key", "trade_ref", "trade_date", "isin", "side", "broker", "inv_mgr", "status", "cls_version",
		"failing_criteria", "messages", "held", "missing", "lifecycle", "match_digest", "agreement", "pending", "proposal",
		"affirmations", "cancel_requests", "block_status", "market", "cutoff", "at_risk", "past_cutoff"}
	view := func(bic string) map[string]any {
		t.Helper()
		code, body := get(t, gw, path, bic, c)
		if code != 200 {
			t.Fatalf("%s: %d %s", bic, code, body)
		}
		var m map[string]any
		if err := json.Unmarshal(body, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	for _, bic := range []string{sc.broker, sc.invMgr} {
		m := view(bic)
		var keys []string
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		want := slices.Clone(fields)
		slices.Sort(want)
		if !slices.Equal(keys, want) {
			t.Fatalf("%s's view has fields %v, want %v", bic, keys, want)
		}
		held, _ := m["held"].([]any)
		if len(held) != 1 {
			t.Fatalf("%s: held %v, want the rogue SET", bic, m["held"])
		}
		if h := held[0].(map[string]any); h["sender"] != sc.rogue || h["msg_id"] != "ROGUE-SET-1" || h["custodian"] != sc.rogue || h["account"] == "" {
			t.Fatalf("%s: held %v", bic, h)
		}
		for _, msg := range m["messages"].([]any) {
			if msg.(map[string]any)["sender"] == sc.rogue {
				t.Fatalf("%s: the parked SET is in force: %v", bic, msg)
			}
		}
		for k, want := range map[string]any{"status": "MATCHED", "lifecycle": "NONE", "block_status": "BLOCK_MATCHED",
			"match_digest": v.MatchDigest, "agreement": nil, "proposal": nil, "market": market,
			"cutoff": cutoff.UTC().Format(time.RFC3339), "at_risk": true, "past_cutoff": false, "cls_version": float64(1)} {
			if m[k] != want {
				t.Errorf("%s: %s = %v, want %v", bic, k, m[k], want)
			}
		}
		for _, k := range []string{"pending", "affirmations", "cancel_requests", "missing", "failing_criteria"} {
			if l, ok := m[k].([]any); !ok || len(l) != 0 {
				t.Errorf("%s: %s = %v, want []", bic, k, m[k])
			}
		}
	}
	// The Custodian: its accounts only, no NOE, no held.
	m := view(sc.custodian)
	if _, ok := m["held"]; ok {
		t.Fatalf("the custodian's view has held: %v", m["held"])
	}
	mine := v.Custodians[sc.custodian]
	msgs := m["messages"].([]any)
	if len(msgs) == 0 {
		t.Fatal("the custodian sees no message")
	}
	for _, x := range msgs {
		msg := x.(map[string]any)
		if msg["msg_type"] == "NOE" || !slices.Contains(mine, msg["account"].(string)) {
			t.Fatalf("the custodian of %v sees %v", mine, msg)
		}
	}
	if m["match_digest"] != v.MatchDigest || m["status"] != "MATCHED" {
		t.Fatalf("the custodian's view: %v", m)
	}

	// Time: past the lead, past the cutoff; a locked trade is never at risk.
	c.now = cutoff.Add(-3 * time.Hour)
	if m := view(sc.broker); m["at_risk"] != false || m["past_cutoff"] != false {
		t.Fatalf("3 h before the cutoff: %v %v", m["at_risk"], m["past_cutoff"])
	}
	c.now = cutoff.Add(time.Minute)
	if m := view(sc.broker); m["at_risk"] != true || m["past_cutoff"] != true {
		t.Fatalf("after the cutoff: %v %v", m["at_risk"], m["past_cutoff"])
	}
	var locked, cancelled int
	for _, k := range sc.set.keys {
		w := sc.set.book.Trade(k).View()
		if !w.Locked && !w.Cancelled {
			continue
		}
		if w.Locked {
			locked++
		} else {
			cancelled++
		}
		code, body := get(t, gw, "/v1/trades/"+k.String(), w.Keys[0].Broker, c)
		var m map[string]any
		json.Unmarshal(body, &m)
		locks := map[any]bool{"AFFIRMED": true, "CHANGE_PENDING": true, "CANCEL_PENDING": true}
		if code != 200 || m["at_risk"] != false || (w.Locked && (!locks[m["lifecycle"]] || m["agreement"] == nil)) ||
			(w.Cancelled && (m["lifecycle"] != "CANCELLED" || m["status"] != "INCOMPLETE" || m["agreement"] != nil)) {
			t.Fatalf("a locked or cancelled trade: %d %s", code, body)
		}
		if l, _ := m["missing"].([]any); len(l) != 0 {
			t.Fatalf("a locked or cancelled trade owes: %s", body)
		}
	}
	if locked == 0 || cancelled == 0 {
		t.Fatalf("%d locked, %d cancelled trades; want one each at least", locked, cancelled)
	}
	if a, c := sc.set.book.Trade(sc.affirmed).View(), sc.set.book.Trade(sc.cancelled).View(); a.Lifecycle != "AFFIRMED" || c.Lifecycle != "CANCELLED" {
		t.Fatalf("the scenario's affirmed trade is %s, its cancelled one %s", a.Lifecycle, c.Lifecycle)
	}
}

// Timeliness: at risk at or after the cutoff less the lead, for a trade
// neither locked nor cancelled; past the cutoff strictly after it.
func TestTimelinessRisk(t *testing.T) {
	cutoff := time.Date(2026, 11, 2, 15, 59, 0, 0, time.UTC)
	for _, c := range []struct {
		now          time.Time
		lead         time.Duration
		settled      bool
		atRisk, past bool
	}{
		{cutoff.Add(-2*time.Hour - time.Second), 2 * time.Hour, false, false, false},
		{cutoff.Add(-2 * time.Hour), 2 * time.Hour, false, true, false},
		{cutoff, 2 * time.Hour, false, true, false},
		{cutoff.Add(time.Nanosecond), 2 * time.Hour, false, true, true},
		{cutoff.Add(time.Hour), 2 * time.Hour, true, false, true},
		{cutoff.Add(-31 * time.Minute), 30 * time.Minute, false, false, false},
		{cutoff.Add(-30 * time.Minute), 30 * time.Minute, false, true, false},
	} {
		r, p := gateway.Timeliness{Now: c.now, Lead: c.lead}.Risk(cutoff, c.settled)
		if r != c.atRisk || p != c.past {
			t.Errorf("%v before the cutoff, lead %v, settled %v: at risk %v, past %v", cutoff.Sub(c.now), c.lead, c.settled, r, p)
		}
	}
}

type queueEntry struct {
	TradeKey        string           `json:"trade_key"`
	TradeRef        string           `json:"trade_ref"`
	TradeDate       string           `json:"trade_date"`
	ISIN            string           `json:"isin"`
	Side            string           `json:"side"`
	Broker          string           `json:"broker"`
	InvMgr          string           `json:"inv_mgr"`
	Status          string           `json:"status"`
	Lifecycle       string           `json:"lifecycle"`
	CLSVersion      int              `json:"cls_version"`
	FailingCriteria []int            `json:"failing_criteria"`
	Owes            []map[string]any `json:"owes"`
	MissingCount    int              `json:"missing_count"`
	Market          string           `json:"market"`
	Cutoff          string           `json:"cutoff"`
	AtRisk          bool             `json:"at_risk"`
	PastCutoff      bool             `json:"past_cutoff"`
}

type queuePage struct {
	Trades []queueEntry `json:"trades"`
	Next   string       `json:"next"`
}

// The work queue through the gateway (gateway.md v2 §4c), as a participant
// checks it with the trade views it may ask: for the Broker, the InvMgr,
// a Custodian and a custodian whose only message is a parked SET, the walk
// a page at a time is exactly the trades whose view it gets, by TradeDate
// then trade key, each entry as its view says; each filter keeps what it
// names; cursors go on where they stopped; the forms out of the contract
// are 400.
func TestWorkQueue(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a broker")
	}
	ref := testRefdata()
	sc := newScenario(t, ref)
	v := sc.set.book.Trade(sc.key).View()
	_, cutoff := ref.CutoffOf(v.Market, v.Keys[0].TradeDate)
	c := &clock{now: cutoff.Add(-90 * time.Minute)}
	urls, _, _, _ := serveGatewaysWith(t, 1, func(o *gateway.Options) { o.Trades, o.Now = sc.set, c.Now })
	gw := urls[0]
	page := func(bic, query string) queuePage {
		t.Helper()
		code, body := get(t, gw, "/v1/trades?"+query, bic, c)
		if code != 200 {
			t.Fatalf("%s ?%s: %d %s", bic, query, code, body)
		}
		var p queuePage
		if err := json.Unmarshal(body, &p); err != nil || p.Next == "" || p.Trades == nil {
			t.Fatalf("%s ?%s: %s (%v)", bic, query, body, err)
		}
		return p
	}
	walk := func(bic, filter string, limit int) []queueEntry {
		t.Helper()
		var out []queueEntry
		after := ""
		for range 1000 {
			q := fmt.Sprintf("limit=%d", limit) + filter
			if after != "" {
				q += "&after=" + after
			}
			p := page(bic, q)
			out = append(out, p.Trades...)
			if len(p.Trades) == 0 {
				if after != "" && p.Next != after {
					t.Fatalf("an empty page moved the cursor: %s → %s", after, p.Next)
				}
				return out
			}
			after = p.Next
		}
		t.Fatal("the walk does not end")
		return nil
	}
	views := func(bic string) map[string]map[string]any {
		out := map[string]map[string]any{}
		for _, k := range sc.set.keys {
			code, body := get(t, gw, "/v1/trades/"+k.String(), bic, c)
			if code == 200 {
				var m map[string]any
				json.Unmarshal(body, &m)
				out[k.String()] = m
			}
		}
		return out
	}
	owesOf := func(bic string, m map[string]any, principal bool) []map[string]any {
		var items []map[string]any
		others := false
		for _, x := range m["messages"].([]any) {
			others = others || x.(map[string]any)["sender"] != bic
		}
		for _, x := range m["missing"].([]any) {
			o := x.(map[string]any)
			if o["from"] == bic {
				cp := map[string]any{}
				for k, v := range o {
					if k != "from" {
						cp[k] = v
					}
				}
				items = append(items, cp)
			}
		}
		if principal && !others {
			return nil
		}
		return items
	}
	total := map[string]int{}
	for _, bic := range []string{sc.broker, sc.invMgr, sc.custodian, sc.rogue} {
		mine := views(bic)
		all := walk(bic, "", 3)
		var keys []string
		for _, e := range all {
			keys = append(keys, e.TradeKey)
			m, ok := mine[e.TradeKey]
			if !ok {
				t.Fatalf("%s's queue lists %s, whose view it does not get", bic, e.TradeKey)
			}
			principal := bic == e.Broker || bic == e.InvMgr
			for k, want := range map[string]any{"trade_ref": e.TradeRef, "trade_date": e.TradeDate, "isin": e.ISIN, "side": e.Side,
				"broker": e.Broker, "inv_mgr": e.InvMgr, "status": e.Status, "lifecycle": e.Lifecycle, "market": e.Market,
				"cutoff": e.Cutoff, "at_risk": e.AtRisk, "past_cutoff": e.PastCutoff, "cls_version": float64(e.CLSVersion)} {
				if m[k] != want {
					t.Fatalf("%s, %s: the queue says %s %v, the view %v", bic, e.TradeKey, k, want, m[k])
				}
			}
			if n := len(m["missing"].([]any)); n != e.MissingCount {
				t.Fatalf("%s, %s: missing_count %d, the view's missing %d", bic, e.TradeKey, e.MissingCount, n)
			}
			want := owesOf(bic, m, principal)
			if principal && fmt.Sprint(e.Owes) != fmt.Sprint(want) && !(len(e.Owes) == 0 && len(want) == 0) {
				t.Fatalf("%s, %s: owes %v, the view says %v", bic, e.TradeKey, e.Owes, want)
			}
			if !principal && len(e.Owes) > 0 && fmt.Sprint(e.Owes) != fmt.Sprint(want) {
				t.Fatalf("%s, %s: owes %v, its items %v", bic, e.TradeKey, e.Owes, want)
			}
		}
		var wantKeys []string
		for k := range mine {
			wantKeys = append(wantKeys, k)
		}
		slices.SortFunc(wantKeys, func(a, b string) int {
			return strings.Compare(mine[a]["trade_date"].(string)+a, mine[b]["trade_date"].(string)+b)
		})
		if !slices.Equal(keys, wantKeys) {
			t.Fatalf("%s's queue %v, its trades %v", bic, keys, wantKeys)
		}
		if one := walk(bic, "", 1); fmt.Sprint(one) != fmt.Sprint(all) {
			t.Fatalf("%s: a walk one at a time differs", bic)
		}
		if bic == sc.rogue && slices.Contains(keys, sc.key.String()) {
			t.Fatal("the rogue custodian's queue lists the trade of its SET")
		}
		// Each filter keeps exactly what it names (same walk, limit 2).
		for filter, keep := range map[string]func(queueEntry) bool{
			"&status=MISMATCHED,INCOMPLETE": func(e queueEntry) bool { return e.Status == "MISMATCHED" || e.Status == "INCOMPLETE" },
			"&lifecycle=AFFIRMED,CANCELLED": func(e queueEntry) bool { return e.Lifecycle == "AFFIRMED" || e.Lifecycle == "CANCELLED" },
			"&owes=true":                    func(e queueEntry) bool { return len(e.Owes) > 0 },
			"&at_risk=true":                 func(e queueEntry) bool { return e.AtRisk },
			"&trade_date=2026-11-03":        func(e queueEntry) bool { return e.TradeDate == "2026-11-03" },
			"&at_risk=true&status=MATCHED":  func(e queueEntry) bool { return e.AtRisk && e.Status == "MATCHED" },
			"&owes=false&at_risk=false":     func(queueEntry) bool { return true },
			"&trade_date=2026-11-02":        func(e queueEntry) bool { return e.TradeDate == "2026-11-02" },
		} {
			var want []string
			for _, e := range all {
				if keep(e) {
					want = append(want, e.TradeKey)
				}
			}
			var got []string
			for _, e := range walk(bic, filter, 2) {
				got = append(got, e.TradeKey)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%s%s: %v, want %v", bic, filter, got, want)
			}
			total[filter] += len(got)
		}
	}
	t.Logf("trades kept per filter, four participants: %v", total)
	for filter, n := range total {
		if n == 0 {
			t.Errorf("filter %s kept nothing for anyone: the scenario does not test it", filter)
		}
	}
	// Cursors: the start cursor is the start; next of an empty page is the
	// cursor given; a page without after and without trades starts over.
	empty := page(sc.rogue, "status=MATCHED&lifecycle=CANCELLED")
	if len(empty.Trades) != 0 {
		t.Fatalf("MATCHED and CANCELLED: %+v", empty)
	}
	if a, b := page(sc.broker, "limit=4"), page(sc.broker, "limit=4&after="+empty.Next); fmt.Sprint(a) != fmt.Sprint(b) {
		t.Fatalf("from the start cursor: %+v, without: %+v", b, a)
	}
	// The forms out of the contract.
	bad := map[string]string{}
	for _, q := range []string{"limit=0", "limit=501", "limit=x", "limit=", "status=FOO", "status=", "status=MATCHED,", "status=matched",
		"lifecycle=LOCKED", "lifecycle=", "owes=yes", "owes=", "at_risk=1", "trade_date=2026-13-01", "trade_date=20261102",
		"status=MATCHED&status=MISMATCHED", "trade_ref=X&status=MATCHED", "trade_ref=X&after=" + empty.Next, "trade_ref=X&owes=true",
		"trade_ref=X&lifecycle=NONE", "trade_ref=X&at_risk=true", "trade_ref="} {
		bad[q] = `{"error":"bad_request"}`
	}
	for _, cur := range []string{"%25%25", "AAAA", "MXwyMDI2LTExLTAyfDEyMw", "Mg", empty.Next + "A", strings.Repeat("A", 80)} {
		bad["after="+cur] = `{"error":"bad_cursor","reason":"invalid"}`
	}
	for q, want := range bad {
		if code, body := get(t, gw, "/v1/trades?"+q, sc.broker, c); code != 400 || strings.TrimSpace(string(body)) != want {
			t.Errorf("?%s: %d %s, want 400 %s", q, code, body, want)
		}
	}
	// The version 1 query by reference is unchanged, trade_date with it.
	k := v.Keys[0]
	if code, body := get(t, gw, "/v1/trades?trade_ref="+url.QueryEscape(k.TradeRef)+"&trade_date="+k.TradeDate, sc.broker, c); code != 200 ||
		!strings.Contains(string(body), `"trade_key":"`+sc.key.String()+`"`) {
		t.Fatalf("by reference: %d %s", code, body)
	}
}
