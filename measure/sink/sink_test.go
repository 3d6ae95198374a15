package sink

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/msgset"
	"github.com/ste-utility/ste/workload"
)

// Sends are recorded by place in the set and folded into their trades
// after the run: a trade's latency runs from its last message's send
// (whatever order the acknowledgements came in), and a message never
// acknowledged does not count.
func TestResolveFoldsSendsIntoTheirTrades(t *testing.T) {
	path := filepath.Join(t.TempDir(), "set.xml")
	w, err := msgset.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	var keys []schemas.TradeKey
	if _, err := workload.Generate(workload.Options{Trades: 3}, func(b []byte) error {
		var dec schemas.Decoder
		m, err := dec.Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, m.Key.TradeKey())
		return w.Write(b)
	}, nil); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	s := New()
	base := time.Unix(1_800_000_000, 0)
	lost := len(keys) - 1 // never acknowledged: no OnSent
	want := map[schemas.TradeKey]int64{}
	for i := len(keys) - 1; i >= 0; i-- { // acknowledgements in reverse
		if i == lost {
			continue
		}
		at := base.Add(time.Duration(i) * time.Millisecond)
		s.Sent(int64(i), at)
		want[keys[i]] = max(want[keys[i]], at.UnixNano())
	}
	src, err := msgset.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if err := s.Resolve(src); err != nil {
		t.Fatal(err)
	}
	for k, sent := range want {
		s.arrived[k] = sent + int64(5*time.Millisecond)
	}
	s.lastCLS = base.Add(time.Hour).UnixNano()
	r := s.Result()
	if len(r.Latencies) != len(want) || len(want) != 3 {
		t.Fatalf("%d latencies for %d trades", len(r.Latencies), len(want))
	}
	for _, l := range r.Latencies {
		if l != 5 {
			t.Fatalf("latencies %v, want 5 ms each", r.Latencies)
		}
	}
	if s.firstSend != base.UnixNano() {
		t.Fatalf("first send %d, want %d", s.firstSend, base.UnixNano())
	}
}
