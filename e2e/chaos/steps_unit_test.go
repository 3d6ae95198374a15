package chaos

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ste-utility/ste/topics/lag"
)

// stepsOf reads a round's steps from the instances' logs: the partition's
// next assignment and recovery after the kill, goka's retries, and names
// the longest step.
func TestStepsOfARound(t *testing.T) {
	dir := t.TempDir()
	killed := time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)
	at := func(d time.Duration) string { return "time=" + killed.Add(d).Format(time.RFC3339Nano) }
	write := func(name string, lines ...string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("instance0.01.log",
		at(-time.Second)+` level=INFO msg="partitions assigned" namespace=f instance=a stage=match partitions="[2 3]"`,
		at(11*time.Second)+` level=INFO msg="partitions assigned" namespace=f instance=a stage=match partitions="[0 1 2 3]"`,
		at(12*time.Second)+` level=WARN msg="[Processor f.v1.match > PartitionProcessor (1) > PartTable] Will retry in 10 seconds (retried 1 times so far)" namespace=f stage=match from=goka`,
		at(23*time.Second)+` level=INFO msg="table partition recovered" namespace=f instance=a table=match partition=1 restored=0 seconds=0.1`,
		at(40*time.Second)+` level=INFO msg="table partition recovered" namespace=f instance=a table=match partition=1 restored=0 seconds=0.1`)
	write("instance1.02.log",
		at(1500*time.Millisecond)+` level=INFO msg="http endpoints" namespace=f`)
	r := stepsOf(dir, killed, &instance{n: 1}, "match", 1, 25*time.Second)
	if r.assigned != 11*time.Second || r.recovered != 23*time.Second || r.retries != 1 || r.started != 1500*time.Millisecond {
		t.Fatalf("steps %+v", r)
	}
	if got := r.slowStep(); !strings.HasPrefix(got, "the table's recovery") || !strings.Contains(got, "12.0 s") {
		t.Errorf("slowest step %q, want the table's recovery, 12.0 s", got)
	}
	t.Log(r)
}

// The rolling restarts' progress tracker counts how long a partition with
// work waiting stood still, and takes a sample in which its group's commit
// could not be read (a coordinator moving: Committed -1) as unknown — not
// as progress, which would end the gap early and hide a stall.
func TestProgressWatchCountsStandstillNotUnreadCommits(t *testing.T) {
	w := &progressWatch{since: map[string]time.Time{}, last: map[string]int64{}, seen: map[string]time.Time{}, waiting: map[string]bool{}}
	t0 := time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)
	sample := func(committed, end int64) lag.Sample {
		return lag.Sample{Partitions: []lag.Partition{{Group: "g", Topic: "in", Partition: 3, Committed: committed, End: end, Lag: max(end-committed, 0)}}}
	}
	w.observe(sample(100, 120), t0)
	w.observe(sample(100, 130), t0.Add(2*time.Second)) // waiting, not moved
	w.observe(sample(-1, 140), t0.Add(4*time.Second))  // commit unread
	w.observe(sample(-1, 150), t0.Add(7*time.Second))
	w.observe(sample(100, 160), t0.Add(9*time.Second)) // still where it was
	g := w.take()
	if g.d != 9*time.Second || g.key != "g/in/3" {
		t.Fatalf("gap %v, want 9s on g/in/3 (the unread samples are no progress)", g)
	}
	if g.blind != 7*time.Second {
		t.Errorf("blind stretch %v, want 7s (read at 2 s, next at 9 s)", g.blind)
	}
	w.observe(sample(160, 170), t0.Add(10*time.Second)) // moved: the gap ends
	w.observe(sample(160, 180), t0.Add(11*time.Second))
	if g := w.take(); g.d != time.Second || g.upper != 10*time.Second {
		t.Errorf("after progress and a take: gap %v (at most %v), want 1s seen, at most 10s (the move came between 9 s and 10 s)", g.d, g.upper)
	}
	w.observe(sample(180, 180), t0.Add(12*time.Second)) // no work waiting
	w.observe(sample(180, 180), t0.Add(20*time.Second))
	if g := w.take(); g.d != 0 {
		t.Errorf("a partition without work waiting: gap %v, want none", g)
	}
}

// The exits the harness restarts as a supervisor would: those of a start
// that found no broker — and nothing else.
func TestStartFoundNoBroker(t *testing.T) {
	for _, c := range []struct {
		tail string
		want bool
	}{
		{"ste process: cannot connect to brokers 127.0.0.1:24778: unable to dial: dial tcp 127.0.0.1:24778: connect: connection refused", true},
		// verify-all, 7 December: the broker killed 5 s after the instance's start.
		{"ste process: group chaos.v1.identity: did not start in 30s (3 attempts): Error fetching partitions for topic chaos.v1.verdicts: metadata of topic chaos.v1.verdicts: unable to dial: dial tcp 127.0.0.1:24778: connect: connection refused", true},
		{"ste process: group chaos.v1.match: did not start in 30s (3 attempts): SASL authentication failed", false},
		{"ste process: group chaos.v1.match: fenced by another process with instance id x", false},
		{"panic: runtime error: index out of range", false},
	} {
		if got := startFoundNoBroker(c.tail); got != c.want {
			t.Errorf("startFoundNoBroker(%q) = %v, want %v", c.tail, got, c.want)
		}
	}
}
