package pipeline

import (
	"testing"

	"github.com/ste-utility/ste/processors/matching"
	"github.com/ste-utility/ste/processors/memstore"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/workload"
)

// Tables answers from the partitions the instance owns only: a trade in a
// store of a partition given away is not found; a TradeRef finds its trade
// in whichever owned partition holds it.
func TestTablesLookup(t *testing.T) {
	var tables Tables
	if _, _, err := tables.Trade(1, []int32{0}); err != ErrNoMatchTable {
		t.Fatalf("before Run: %v", err)
	}
	// Two trades, folded by the engine, stored in partitions 0 and 1.
	var recs [][]byte
	if _, err := workload.Generate(workload.Options{Trades: 2}, func(b []byte) error { recs = append(recs, b); return nil }, nil); err != nil {
		t.Fatal(err)
	}
	book := matching.NewBook()
	var dec schemas.Decoder
	v := newStages(Config{Signer: &schemas.Signer{BIC: "STEUTLSGXXX", Key: refdata.DemoPrivateKey("STEUTLSGXXX")}})
	var keys []schemas.TradeKey
	refs := map[schemas.TradeKey]string{}
	for _, r := range recs {
		m, rej := dec.Decode(r)
		if rej != nil {
			t.Fatal(rej)
		}
		k := m.Key.TradeKey()
		if _, seen := refs[k]; !seen {
			keys = append(keys, k)
			refs[k] = m.Key.TradeRef
		}
		book.Accept(&matching.Inbound{Msg: m, NetUnits: 2})
	}
	for i, k := range keys {
		st := memstore.New(nil)
		b, _ := book.Trade(k).MarshalBinary()
		st.Set(k.String(), b)
		v.matchStore[int32(i)] = st
	}
	tables.s.Store(v)

	f, ok, err := tables.Trade(keys[1], []int32{0, 1})
	if err != nil || !ok || f.Partition != 1 || f.View.TradeKey != keys[1].String() || f.View.State != "matched" {
		t.Fatalf("owned: %+v %v %v", f, ok, err)
	}
	if _, ok, _ := tables.Trade(keys[1], []int32{0}); ok {
		t.Fatal("found in a partition not owned")
	}
	found, err := tables.FindRef(refs[keys[0]], []int32{0, 1}, 10)
	if err != nil || len(found) != 1 || found[0].View.TradeKey != keys[0].String() {
		t.Fatalf("by TradeRef: %+v %v", found, err)
	}
	if found, _ := tables.FindRef("no such ref", []int32{0, 1}, 10); len(found) != 0 {
		t.Fatalf("unknown TradeRef found %+v", found)
	}
}
