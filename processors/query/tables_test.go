package query

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ste-utility/ste/processors/matching"
	"github.com/ste-utility/ste/processors/memstore"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/workload"
)

// lookupFixture folds n generated trades, the first shared of them given
// one TradeRef, into one match partition each, each stored as the match
// table's storage stores it: the value in the store, then through the
// partition's read side (not yet recovered).
type lookupFixture struct {
	tables Tables
	keys   []schemas.TradeKey
	views  map[schemas.TradeKey]matching.View
	values map[schemas.TradeKey][]byte
	stores map[int32]*indexed
}

// indexed is a store with its read side, as the runtime's storage chain
// keeps them (processors/tablestore).
type indexed struct {
	*memstore.Store
	x *Partition
}

func (s *indexed) Set(key string, value []byte) error {
	if err := s.Store.Set(key, value); err != nil {
		return err
	}
	s.x.Put(key, value)
	return nil
}

func (s *indexed) Delete(key string) error {
	if err := s.Store.Delete(key); err != nil {
		return err
	}
	s.x.Delete(key)
	return nil
}

func (s *indexed) MarkRecovered() error {
	it, err := s.Store.Iterator()
	if err != nil {
		return err
	}
	defer it.Release()
	return s.x.Recovered(it)
}

const sharedRef = "SHARED-REF"

func newLookupFixture(t *testing.T, n, shared int) *lookupFixture {
	t.Helper()
	var recs [][]byte
	if _, err := workload.Generate(workload.Options{Trades: n}, func(b []byte) error { recs = append(recs, b); return nil }, nil); err != nil {
		t.Fatal(err)
	}
	f := &lookupFixture{views: map[schemas.TradeKey]matching.View{}, values: map[schemas.TradeKey][]byte{}, stores: map[int32]*indexed{}}
	f.tables.Serve(Config{})
	book := matching.NewBook()
	var dec schemas.Decoder
	var refs []string
	for _, r := range recs {
		m, rej := dec.Decode(r)
		if rej != nil {
			t.Fatal(rej)
		}
		if i := slices.Index(refs, m.Key.TradeRef); i < 0 {
			refs = append(refs, m.Key.TradeRef)
		}
		if slices.Index(refs, m.Key.TradeRef) < shared {
			// The book does not verify signatures: the ref is rewritten in place.
			r = bytes.ReplaceAll(r, []byte("<TradeRef>"+m.Key.TradeRef+"<"), []byte("<TradeRef>"+sharedRef+"<"))
			if m, rej = dec.Decode(r); rej != nil {
				t.Fatal(rej)
			}
		}
		k := m.Key.TradeKey()
		if !slices.Contains(f.keys, k) {
			f.keys = append(f.keys, k)
		}
		book.Accept(&matching.Inbound{Msg: m, NetUnits: 2})
	}
	for i, k := range f.keys {
		store := memstore.New(nil)
		st := &indexed{Store: store, x: f.tables.Open(int32(i), store)}
		val, _ := book.Trade(k).MarshalBinary()
		st.Set(k.String(), val)
		f.stores[int32(i)] = st
		f.views[k] = book.Trade(k).View()
		f.values[k] = val
	}
	return f
}

func (f *lookupFixture) all() []int32 {
	var ps []int32
	for p := range f.stores {
		ps = append(ps, p)
	}
	return ps
}

func (f *lookupFixture) recover(t *testing.T) {
	for _, st := range f.stores {
		if err := st.MarkRecovered(); err != nil {
			t.Fatal(err)
		}
	}
}

// Tables answers from the partitions the instance owns only: a trade in a
// store of a partition given away is not found; a trade is told only to
// its parties when a party is given.
func TestTablesLookup(t *testing.T) {
	var none Tables
	if _, _, err := none.Trade(1, "", []int32{0}); err != ErrNoMatchTable {
		t.Fatalf("before Run: %v", err)
	}
	f := newLookupFixture(t, 2, 0)
	k := f.keys[1]
	got, ok, err := f.tables.Trade(k, "", f.all())
	if err != nil || !ok || got.Partition != 1 || got.View.TradeKey != k.String() || got.View.State != "matched" {
		t.Fatalf("owned: %+v %v %v", got, ok, err)
	}
	if _, ok, _ := f.tables.Trade(k, "", []int32{0}); ok {
		t.Fatal("found in a partition not owned")
	}
	view := f.views[k]
	broker, invMgr := view.Keys[0].Broker, view.Keys[0].InvMgr
	var custodian string
	for _, m := range view.Messages {
		if m.Type == "SET" && m.InForce {
			custodian = m.Custodian
		}
	}
	for _, p := range []string{broker, invMgr, custodian} {
		if _, ok, _ := f.tables.Trade(k, p, f.all()); !ok {
			t.Errorf("party %s not told its trade", p)
		}
	}
	if _, ok, _ := f.tables.Trade(k, "NOTAPARTYXXX", f.all()); ok {
		t.Error("a trade told to a participant that is not a party")
	}
}

// FindRef goes through the partitions' TradeRef indexes: nothing before
// the tables are recovered, then every trade of the ref ordered by key,
// the party filter applied before the limit, and the index kept as trades
// are written and deleted.
func TestFindRefThroughIndex(t *testing.T) {
	f := newLookupFixture(t, 12, 4)
	q := RefQuery{Ref: sharedRef}
	if _, _, err := f.tables.FindRef(q, f.all()); !errors.Is(err, ErrRecovering) {
		t.Fatalf("before recovery: %v", err)
	}
	f.recover(t)
	found, more, err := f.tables.FindRef(q, f.all())
	if err != nil || more || len(found) != 4 {
		t.Fatalf("by TradeRef: %d found, more %v, %v", len(found), more, err)
	}
	if !slices.IsSortedFunc(found, func(a, b Found) int { return strings.Compare(a.View.TradeKey, b.View.TradeKey) }) {
		t.Error("not ordered by trade key")
	}
	if found, _, _ := f.tables.FindRef(RefQuery{Ref: "no such ref"}, f.all()); len(found) != 0 {
		t.Fatalf("unknown TradeRef found %+v", found)
	}
	if found, _, _ := f.tables.FindRef(RefQuery{Ref: sharedRef, Date: "1999-01-01"}, f.all()); len(found) != 0 {
		t.Fatalf("another TradeDate found %+v", found)
	}

	// The party filter comes before the limit: the last of the four (by
	// key) asked by one of its own parties, limit 1, is found even though
	// three trades of others come before it.
	last := found[3].View
	party := ""
	for _, bic := range []string{last.Keys[0].Broker, last.Keys[0].InvMgr} {
		n := 0
		for _, fd := range found {
			if fd.View.IsParty(bic) {
				n++
			}
		}
		if n == 1 {
			party = bic
		}
	}
	if party == "" {
		t.Fatal("the fixture has no party to the last trade alone")
	}
	mine, more, err := f.tables.FindRef(RefQuery{Ref: sharedRef, Party: party, Limit: 1}, f.all())
	if err != nil || more || len(mine) != 1 || mine[0].View.TradeKey != last.TradeKey {
		t.Fatalf("party %s, limit 1: %+v more %v %v", party, mine, more, err)
	}
	if lim, more, _ := f.tables.FindRef(RefQuery{Ref: sharedRef, Limit: 2}, f.all()); len(lim) != 2 || !more {
		t.Fatalf("limit 2 of 4: %d, more %v", len(lim), more)
	}
	if n, _, _ := f.tables.FindRef(RefQuery{Ref: sharedRef, Party: "NOTAPARTYXXX"}, f.all()); len(n) != 0 {
		t.Fatalf("a participant that is no party found %d", len(n))
	}

	// Kept as the table changes: a trade deleted leaves the index; one of
	// another ref written into a partition appears under its ref.
	gone, _ := schemas.ParseTradeKey(found[0].View.TradeKey)
	p := found[0].Partition
	if err := f.stores[p].Delete(gone.String()); err != nil {
		t.Fatal(err)
	}
	if after, _, _ := f.tables.FindRef(q, f.all()); len(after) != 3 {
		t.Fatalf("after a delete: %d", len(after))
	}
	other := f.keys[len(f.keys)-1]
	otherRef := f.views[other].Keys[0].TradeRef
	if err := f.stores[p].Set(other.String(), f.values[other]); err != nil {
		t.Fatal(err)
	}
	byOther, _, _ := f.tables.FindRef(RefQuery{Ref: otherRef}, f.all())
	if len(byOther) != 2 { // in its own partition and in p
		t.Fatalf("a trade written: %d found by its ref", len(byOther))
	}
	x := f.tables.parts[p].idx
	if st := x.Stats(); st.Refs != 1 || st.RefHashes != 1 {
		t.Fatalf("partition %d's index holds %d keys under %d refs, want 1 and 1", p, st.Refs, st.RefHashes)
	}
}

// Refs reads the TradeRefs as the full decoding does.
func TestRefsOfValue(t *testing.T) {
	f := newLookupFixture(t, 3, 0)
	for k, v := range f.values {
		refs, err := matching.Refs(v)
		if err != nil || len(refs) != 1 || string(refs[0]) != f.views[k].Keys[0].TradeRef {
			t.Fatalf("%s: %q %v", k, refs, err)
		}
		if _, err := matching.Refs(v[:24]); err == nil {
			t.Fatalf("%s: a truncated value read", k)
		}
	}
	tomb := matching.MarshalTombstone(f.keys[0], matching.Tombstone{Version: 1})
	if refs, err := matching.Refs(tomb); err != nil || len(refs) != 0 {
		t.Fatalf("tombstone: %q %v", refs, err)
	}
}

// A trade rewritten with the refs it had stays indexed once; rewritten
// with other refs it moves to them (the index leaves unchanged refs alone,
// and must not leave changed ones).
func TestRefIndexRewrites(t *testing.T) {
	f := newLookupFixture(t, 2, 0)
	f.recover(t)
	a, b := f.keys[0], f.keys[1]
	refA, refB := f.views[a].Keys[0].TradeRef, f.views[b].Keys[0].TradeRef
	st := f.stores[0]
	x := f.tables.parts[0].idx
	count := func(ref string) int {
		found, _, err := f.tables.FindRef(RefQuery{Ref: ref}, []int32{0})
		if err != nil {
			t.Fatal(err)
		}
		return len(found)
	}
	for range 2 {
		if err := st.Set(a.String(), f.values[a]); err != nil {
			t.Fatal(err)
		}
		if st := x.Stats(); count(refA) != 1 || st.Refs != 1 || st.RefHashes != 1 {
			t.Fatalf("rewritten alike: %d found, %d keys under %d refs", count(refA), st.Refs, st.RefHashes)
		}
	}
	// Key a now holds a value with b's refs (the index keys by the store's key).
	if err := st.Set(a.String(), f.values[b]); err != nil {
		t.Fatal(err)
	}
	if ks, _ := x.Keys(refA); len(ks) != 0 {
		t.Fatalf("the old ref still finds %v", ks)
	}
	if ks, _ := x.Keys(refB); len(ks) != 1 || ks[0] != a {
		t.Fatalf("the new ref finds %v, want [%s]", ks, a)
	}
	if st := x.Stats(); st.Refs != 1 || st.RefHashes != 1 {
		t.Fatalf("%d keys under %d refs, want 1 and 1", st.Refs, st.RefHashes)
	}
}

// Issue 45, finding 12: a participant's lookup of a key nobody holds does
// the work of one for a trade that is not its own — one view built and
// judged — so the time of the 404 does not say which it was.
func TestLookupMissDoesTheWorkOfNotYours(t *testing.T) {
	f := newLookupFixture(t, 2, 0)
	k := f.keys[1]
	work := func(key schemas.TradeKey) int64 {
		before := viewsBuilt.Load()
		if _, ok, err := f.tables.Trade(key, "NOTAPARTYXXX", f.all()); ok || err != nil {
			t.Fatalf("%v: found %v, err %v", key, ok, err)
		}
		return viewsBuilt.Load() - before
	}
	notYours := work(k)
	missing := work(schemas.TradeKey(0x0123456789abcdef))
	if notYours != 1 || missing != notYours {
		t.Errorf("views built: %d for another's trade, %d for no trade; want the same, 1", notYours, missing)
	}
}

// A store resumed from disk whose recovery replays nothing is read once:
// Loaded indexes its TradeRefs with its status and at-risk facts, and
// RecoveredAsLoaded makes them answer, as Recovered's second pass would;
// writes after it are followed.
func TestRecoveredAsLoadedFindsWhatRecoveredFinds(t *testing.T) {
	f := newLookupFixture(t, 12, 4)
	f.recover(t) // the first run: the index built by Recovered's pass
	var resumed Tables
	resumed.Serve(Config{})
	for p, st := range f.stores { // the restart: the stores hold the values
		x := resumed.Open(p, st.Store)
		it, err := st.Store.Iterator()
		if err != nil {
			t.Fatal(err)
		}
		if err := x.Loaded(it); err != nil {
			t.Fatal(err)
		}
		it.Release()
		if _, _, err := resumed.FindRef(RefQuery{Ref: sharedRef}, []int32{p}); !errors.Is(err, ErrRecovering) {
			t.Fatalf("partition %d answers by TradeRef before it is recovered: %v", p, err)
		}
		x.RecoveredAsLoaded()
	}
	for _, ref := range []string{sharedRef, f.views[f.keys[len(f.keys)-1]].Keys[0].TradeRef, "no such ref"} {
		want, _, err := f.tables.FindRef(RefQuery{Ref: ref}, f.all())
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := resumed.FindRef(RefQuery{Ref: ref}, f.all())
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d found resumed, %d after Recovered", ref, len(got), len(want))
		}
		for i := range got {
			if got[i].Partition != want[i].Partition || got[i].View.TradeKey != want[i].View.TradeKey {
				t.Fatalf("%s: found %+v resumed, %+v after Recovered", ref, got[i], want[i])
			}
		}
	}
	// Followed from now on: a trade of another ref written into partition 0.
	other := f.keys[len(f.keys)-1]
	x := resumed.parts[0]
	if err := f.stores[0].Store.Set(other.String(), f.values[other]); err != nil {
		t.Fatal(err)
	}
	x.Put(other.String(), f.values[other])
	if got, _, _ := resumed.FindRef(RefQuery{Ref: f.views[other].Keys[0].TradeRef}, f.all()); len(got) != 2 {
		t.Fatalf("a trade written after recovery: found %d times by its ref, want 2", len(got))
	}
}
