package chaos

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// A failover round's time, cut into its steps from the instances' logs, so
// that a slow round names where its time went (one round of 45.5 s was
// recorded once with its logs lost: docs/benchmarks.md, "Failover").
//
// For the partition that came back last (its stage and number): the kill;
// the first assignment of it to an instance after the kill (the group
// noticed the loss — the session timeout, or the restarted instance
// rejoining — and rebalanced); its table recovered there (identity and
// match); its progress, as the round measured it (processing and the first
// commit). Along the way, goka's retries of the partition's table setup and
// the restarted instance's start are counted.

// roundSteps is what the logs say of one round.
type roundSteps struct {
	assigned, recovered time.Duration // after the kill; 0: not seen
	started             time.Duration // the restarted instance's first log line after the kill; 0: none
	retries             int           // goka's "Will retry" of a table setup after the kill
	progress            time.Duration // as the round measured it
}

// slowStep names the longest step.
func (r roundSteps) slowStep() string {
	type step struct {
		name string
		d    time.Duration
	}
	var steps []step
	at := time.Duration(0)
	if r.assigned > 0 {
		steps = append(steps, step{"the rebalance (kill to the partition's next assignment)", r.assigned})
		at = r.assigned
	}
	if r.recovered > 0 && r.recovered >= at {
		steps = append(steps, step{"the table's recovery (assignment to recovered)", r.recovered - at})
		at = r.recovered
	}
	if r.progress >= at {
		steps = append(steps, step{"processing to the first commit", r.progress - at})
	}
	if len(steps) == 0 {
		return "unknown (no log line of the partition after the kill)"
	}
	s := slices.MaxFunc(steps, func(a, b step) int { return int(a.d - b.d) })
	return fmt.Sprintf("%s, %.1f s", s.name, s.d.Seconds())
}

func (r roundSteps) String() string {
	f := func(d time.Duration) string {
		if d == 0 {
			return "—"
		}
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
	s := fmt.Sprintf("assigned %s, recovered %s, progress %s after the kill", f(r.assigned), f(r.recovered), f(r.progress))
	if r.started > 0 {
		s += fmt.Sprintf("; the restarted instance logged from %s", f(r.started))
	}
	if r.retries > 0 {
		s += fmt.Sprintf("; goka retried a table setup %d times", r.retries)
	}
	return s + "; slowest step: " + r.slowStep()
}

var (
	logTime     = regexp.MustCompile(`^time=(\S+)`)
	logAssigned = regexp.MustCompile(`msg="partitions assigned" .*stage=(\w+) partitions="\[([0-9 ]*)\]"`)
	logRecover  = regexp.MustCompile(`msg="table partition recovered" .*table=(\w+) partition=(\d+)`)
	logRetry    = regexp.MustCompile(`PartTable\] Will retry in`)
)

// stepsOf reads every instance log under dir for the round of a kill at
// killed whose last partition was stage's partition p, back after progress.
func stepsOf(dir string, killed time.Time, restarted *instance, stage string, p int32, progress time.Duration) roundSteps {
	r := roundSteps{progress: progress}
	end := killed.Add(progress)
	logs, _ := filepath.Glob(filepath.Join(dir, "instance*.log"))
	for _, path := range logs {
		f, err := os.Open(path)
		if err != nil {
			continue
		}
		first := true
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			m := logTime.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			at, err := time.Parse(time.RFC3339Nano, m[1])
			if err != nil || at.Before(killed) || at.After(end) {
				continue
			}
			since := at.Sub(killed)
			if first && restarted != nil && strings.HasPrefix(filepath.Base(path), fmt.Sprintf("instance%d.", restarted.n)) {
				r.started = minPositive(r.started, since)
			}
			first = false
			if a := logAssigned.FindStringSubmatch(line); a != nil && a[1] == stage && slices.Contains(strings.Fields(a[2]), strconv.Itoa(int(p))) {
				r.assigned = minPositive(r.assigned, since)
			}
			if a := logRecover.FindStringSubmatch(line); a != nil && a[1] == stage && a[2] == strconv.Itoa(int(p)) {
				r.recovered = max(r.recovered, since) // the recovery that preceded the progress
			}
			if logRetry.MatchString(line) && strings.Contains(line, "stage="+stage) {
				r.retries++
			}
		}
		f.Close()
	}
	return r
}

func minPositive(a, b time.Duration) time.Duration {
	if a == 0 || b < a {
		return b
	}
	return a
}
