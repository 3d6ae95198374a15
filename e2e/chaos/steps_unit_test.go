package chaos

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
