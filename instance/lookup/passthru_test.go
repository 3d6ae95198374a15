package lookup

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/ste-utility/ste/instance/api"
	"github.com/ste-utility/ste/processors/query"
	"github.com/ste-utility/ste/topics"
)

// The work queue's page passes the instances' JSON through (query.QueueEntry):
// these tests hold the path it replaced — each answer decoded whole into
// api.QueueAnswer, merged by position, and the page encoded again from the
// structs as the gateway's answers are (encoding/json, no HTML escaping) —
// as the oracle of the bytes a participant sees.

// oldQueuePage is the page as the gateway wrote it before the pass-through.
func oldQueuePage(t testing.TB, bodies [][]byte, limit int, next string) []byte {
	type posTrade struct {
		pos   query.QueuePos
		trade query.QueueTrade
	}
	var found []posTrade
	for _, body := range bodies {
		var ans api.QueueAnswer
		if err := json.NewDecoder(bytes.NewReader(body)).Decode(&ans); err != nil {
			t.Fatal(err)
		}
		for _, f := range ans.Trades {
			pos, ok := f.Trade.Pos()
			if !ok {
				t.Fatal("no position")
			}
			found = append(found, posTrade{pos, f.Trade})
		}
	}
	slices.SortFunc(found, func(a, b posTrade) int { return a.pos.Compare(b.pos) })
	trades := make([]query.QueueTrade, 0, min(len(found), limit))
	for _, f := range found[:min(len(found), limit)] {
		trades = append(trades, f.trade)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // gateway.Server.answer
	enc.Encode(struct {
		Trades []query.QueueTrade `json:"trades"`
		Next   string             `json:"next"`
	}{trades, next})
	return b.Bytes()
}

// newQueuePage is the page through the pass-through: what Client.QueuePage
// does with the answers' bodies, then the gateway.
func newQueuePage(t testing.TB, bodies [][]byte, owners []Owner, parts int32, limit int, next string) []byte {
	var lists [][]query.QueueEntry
	for i, body := range bodies {
		ans, err := decodeQueueAnswer(bytes.NewReader(body), owners[i])
		if err != nil {
			t.Fatal(err)
		}
		found, _, err := ans.entries(owners[i], parts)
		if err != nil {
			t.Fatal(err)
		}
		lists = append(lists, found)
	}
	return query.AppendQueuePage(nil, mergeQueue(lists, limit), next)
}

// cannedAnswer is instance id's answer of n trades of its partitions
// (of 8), encoded as the instance writes it (instance/trades.go), with
// fields that encoding/json escapes or not: HTML characters, U+2028,
// non-ASCII, empty and absent lists, owed items.
func cannedAnswer(t testing.TB, id string, parts []int32, n int) ([]byte, Owner) {
	ans := api.QueueAnswer{Instance: id, Owned: parts}
	statuses := []string{"MISMATCHED", "UNMATCHED", "MATCHED", "ALLEGED"}
	for i := 0; len(ans.Trades) < n; i++ {
		key := fmt.Sprintf("%016x", uint64(i)*0x9e3779b97f4a7c15)
		p := topics.PartitionOf(key, 8)
		if !slices.Contains(parts, p) {
			continue
		}
		tr := query.QueueTrade{
			TradeKey: key, TradeRef: "REF-<" + key[:4] + ">&ü\u2028", TradeDate: fmt.Sprintf("2026-12-%02d", 1+i%9),
			ISIN: "GB00B03MLX29", Side: "BUY", Broker: "BROKGB2L", InvMgr: "INVMUS33",
			Status: statuses[i%4], Lifecycle: "OPEN", CLSVersion: i % 3, MissingCount: i % 2,
			Market: "XLON", Cutoff: "2026-12-08T16:00:00Z", AtRisk: i%5 == 0, PastCutoff: i%7 == 0}
		switch i % 3 {
		case 0:
			tr.FailingCriteria, tr.Owes = []int{3, 7}, []query.QueueOwed{{MsgType: "ALC", Account: "ACC<1>", Count: 2}, {MsgType: "SET"}}
		case 1:
			tr.FailingCriteria, tr.Owes = []int{}, []query.QueueOwed{}
		}
		ans.Trades = append(ans.Trades, api.QueueFound{Partition: p, Trade: tr})
	}
	var b bytes.Buffer
	if err := query.NewQueueEncoder(&b).Encode(ans); err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), Owner{ID: id, Partitions: parts}
}

func TestQueuePageAsDecoded(t *testing.T) {
	a, oa := cannedAnswer(t, "a", []int32{0, 1, 2, 3}, 100)
	b, ob := cannedAnswer(t, "b", []int32{4, 5, 6, 7}, 100)
	empty, oe := cannedAnswer(t, "b", []int32{4, 5, 6, 7}, 0)
	for _, c := range []struct {
		name   string
		bodies [][]byte
		owners []Owner
		limit  int
	}{
		{"two full answers, page of 100", [][]byte{a, b}, []Owner{oa, ob}, 100},
		{"a page of 1", [][]byte{a, b}, []Owner{oa, ob}, 1},
		{"a page larger than both", [][]byte{a, b}, []Owner{oa, ob}, 500},
		{"one answer empty", [][]byte{a, empty}, []Owner{oa, oe}, 100},
		{"both empty", [][]byte{empty, empty}, []Owner{oe, oe}, 100},
	} {
		t.Run(c.name, func(t *testing.T) {
			const next = "MXwyMDI2LTEyLTA2fDAxMjM0NTY3ODlhYmNkZWY"
			want := oldQueuePage(t, c.bodies, c.limit, next)
			got := newQueuePage(t, c.bodies, c.owners, 8, c.limit, next)
			if !bytes.Equal(got, want) {
				t.Fatalf("the page differs from the decoded one:\n got %.400s\nwant %.400s", got, want)
			}
		})
	}
}

// BenchmarkQueuePage is the gateway's CPU for a page of 100 from two
// instances' answers of 100 trades each (the answers' HTTP not counted):
// old, decoding both whole and encoding the 100 kept; passthru, reading
// each entry's position and copying the kept entries' bytes.
func BenchmarkQueuePage(b *testing.B) {
	a, oa := cannedAnswer(b, "a", []int32{0, 1, 2, 3}, 100)
	c, oc := cannedAnswer(b, "b", []int32{4, 5, 6, 7}, 100)
	bodies, owners := [][]byte{a, c}, []Owner{oa, oc}
	const next = "MXwyMDI2LTEyLTA2fDAxMjM0NTY3ODlhYmNkZWY"
	b.Run("old", func(b *testing.B) {
		b.ReportAllocs()
		defer cpuPerOp(b)()
		for b.Loop() {
			oldQueuePage(b, bodies, 100, next)
		}
	})
	b.Run("passthru", func(b *testing.B) {
		b.ReportAllocs()
		defer cpuPerOp(b)()
		for b.Loop() {
			newQueuePage(b, bodies, owners, 8, 100, next)
		}
	})
}

// cpuPerOp reports the process's CPU time (user and system, GC included)
// per op as cpu-ns/op: on a shared machine the wall time per op (ns/op)
// counts the time waiting for a core.
func cpuPerOp(b *testing.B) func() {
	cpu := func() time.Duration {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	start := cpu()
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64(cpu()-start)/float64(b.N), "cpu-ns/op")
		}
	}
}
