package instance

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ste-utility/ste/topics/lag"
	"github.com/ste-utility/ste/topology"
)

func sample(parts ...lag.Partition) lag.Sample { return lag.Sample{Partitions: parts} }

func part(stage string, p int32, committed, end int64) lag.Partition {
	return lag.Partition{Stage: stage, Topic: "t." + stage, Partition: p, Committed: committed, End: end,
		Lag: max(end-committed, 0)}
}

func TestStallDetector(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	d := newStallDetector(60 * time.Second)
	d.assigned(topology.StageMatch, []int32{0, 1}, at(0))

	// Behind but moving: never stalled. Partition 2 is not ours.
	for s := 0; s <= 120; s += 5 {
		got := d.observe(sample(part("match", 0, int64(100+s), 1000), part("match", 2, 5, 1000)), at(s))
		if len(got) != 0 {
			t.Fatalf("at %ds: %v, want nothing stalled", s, got)
		}
	}
	// Partition 0 stops at 220 with lag; partition 1 stays at lag 0.
	var got []Stall
	for s := 125; s <= 190; s += 5 {
		got = d.observe(sample(part("match", 0, 220, 1000), part("match", 1, 50, 50)), at(s))
		if s < 180 && len(got) != 0 {
			t.Fatalf("at %ds: %v, stalled before the limit", s, got)
		}
	}
	if len(got) != 1 || got[0].Partition != 0 || got[0].Lag != 780 ||
		got[0].String() != "match partition 0 of t.match: 780 behind, no progress for 1m10s" {
		t.Fatalf("at 190s: %v, want partition 0 stalled for 70 s", got)
	}
	// Reassigned: the clock of a newly assigned partition starts afresh.
	d.assigned(topology.StageMatch, []int32{0}, at(200))
	if got := d.observe(sample(part("match", 0, 220, 1000)), at(230)); len(got) != 0 {
		t.Fatalf("30 s after a new assignment: %v", got)
	}
	if got := d.observe(sample(part("match", 0, 220, 1000)), at(260)); len(got) != 1 {
		t.Fatalf("60 s after a new assignment without progress: %v", got)
	}

	// A group down for the limit is reported with its error; up again, not.
	d.group(topology.StageValidate, errors.New("error consuming from group consumer:\n EOF"), at(300))
	d.group(topology.StageValidate, errors.New("again"), at(330)) // the first failure counts
	got = d.observe(sample(), at(361))
	if len(got) != 1 || got[0].Partition != -1 || !strings.Contains(got[0].String(), "group validate down for 1m1s (last error: again)") {
		t.Fatalf("a group down 61 s: %v", got)
	}
	d.group(topology.StageValidate, nil, at(362))
	if got := d.observe(sample(), at(363)); len(got) != 0 {
		t.Fatalf("a group up again: %v", got)
	}
}
