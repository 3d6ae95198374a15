package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/instance/registry"
	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/migrate"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/date"
	"github.com/ste-utility/ste/schemas/msgset"
	"github.com/ste-utility/ste/schemas/outcome"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/testgate"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topics/copier"
	"github.com/ste-utility/ste/topics/lag"
	"github.com/ste-utility/ste/topics/origin"
	"github.com/ste-utility/ste/topology"
	"github.com/ste-utility/ste/trust"
	"github.com/ste-utility/ste/workload"
)

// replayBackends are the brokers the replay and migration scenarios run on:
// the embedded broker always, real Kafka with STE_REPLAY_KAFKA=1 (make
// replay-kafka), which keeps make test within its time budget.
func replayBackends(suite string) []backend {
	if testgate.Enabled(suite) { // backtest-kafka or scale-out-kafka: STE_REPLAY_KAFKA=1
		return backends
	}
	return backends[:1]
}

// steCode runs a ste command and returns its exit code, stdout and stderr.
func steCode(t *testing.T, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(steBin, args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, out.String(), errb.String()
	case errors.As(err, &ee):
		return ee.ExitCode(), out.String(), errb.String()
	}
	t.Fatalf("ste %s: %v", strings.Join(args, " "), err)
	return 0, "", ""
}

// waitProcessed waits until every group of ns is at lag 0.
func waitProcessed(t *testing.T, brokers, ns string, groups ...lag.Group) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cl, err := topics.Connect(ctx, kafkaconn.Plaintext(brokers))
	must(t, err)
	defer cl.Close()
	if groups == nil {
		groups = lag.Groups(ns)
	}
	if _, err := lag.WaitZero(ctx, kadm.NewClient(cl), groups, lag.WaitOptions{}); err != nil {
		t.Fatalf("%s not processed: %v", ns, err)
	}
}

// matchDir runs ste match on set with the reference data and retention
// given and returns its outcome.
func matchDir(t *testing.T, set, ref, retention string) *outcome.Set {
	t.Helper()
	out := filepath.Join(t.TempDir(), "match")
	args := []string{"match", "--in", set, "--refdata", ref, "--out", out}
	if retention != "" {
		args = append(args, "--retention", retention)
	}
	ste(t, nil, args...)
	o, err := outcome.FromMatchDir(out)
	must(t, err)
	return o
}

// suspendOne copies a reference data directory with the security of the
// set's first trade SUSPENDED, and returns the copy and the ISIN.
func suspendOne(t *testing.T, refDir, set string) (string, string) {
	t.Helper()
	b, err := os.ReadFile(set)
	must(t, err)
	m := regexp.MustCompile(`<ISIN>([A-Z0-9]{12})</ISIN>`).FindSubmatch(b)
	if m == nil {
		t.Fatal("no ISIN in the set")
	}
	isin := string(m[1])
	dir := filepath.Join(t.TempDir(), "ref-suspended")
	must(t, os.MkdirAll(dir, 0o755))
	entries, err := os.ReadDir(refDir)
	must(t, err)
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(refDir, e.Name()))
		must(t, err)
		if e.Name() == "securities.csv" {
			re := regexp.MustCompile(`(?m)^(` + isin + `,.*),ACTIVE$`)
			if !re.Match(data) {
				t.Fatalf("%s is not ACTIVE in %s", isin, refDir)
			}
			data = re.ReplaceAll(data, []byte("${1},SUSPENDED"))
		}
		must(t, os.WriteFile(filepath.Join(dir, e.Name()), data, 0o644))
	}
	return dir, isin
}

// exactTolerances copies a reference data directory with every row of its
// tolerances.csv set to 0: exact matching, as without the file.
func exactTolerances(t *testing.T, src string) string {
	t.Helper()
	dir := t.TempDir()
	es, err := os.ReadDir(src)
	must(t, err)
	for _, e := range es {
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		must(t, err)
		if e.Name() == "tolerances.csv" {
			data = regexp.MustCompile(`(?m)^(7|15),([^,\n]+),[^\n]*$`).ReplaceAll(data, []byte("${1},${2},0"))
		}
		must(t, os.WriteFile(filepath.Join(dir, e.Name()), data, 0o644))
	}
	return dir
}

// sameDiff holds ste diff --json output to the comparator's own answer.
func sameDiff(t *testing.T, got string, want *outcome.Diff) {
	t.Helper()
	var g outcome.Diff
	must(t, json.Unmarshal([]byte(got), &g))
	gj, _ := json.Marshal(&g)
	wj, _ := json.Marshal(want)
	if !bytes.Equal(gj, wj) {
		t.Fatalf("ste diff:\n%s\nthe comparator on two ste match runs:\n%s", gj, wj)
	}
}

// TestBacktest: a namespace processed live, replayed into two sandboxes
// with its reference data: ste diff says they are the same (exit 0); into a
// third with one security suspended: ste diff (exit 1) says exactly what the
// comparator says of two ste match runs with and without the suspension —
// read from the topics and, after ste analytics, from ClickHouse.
func TestBacktest(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: brokers and processes")
	}
	for _, b := range replayBackends("backtest-kafka") {
		t.Run(b.name, func(t *testing.T) {
			f := newFixture(t, b, 300)
			p := startProcess(t, f.env)
			f.drive(0)
			f.check(f.waitComplete(3 * time.Minute))
			must(t, p.stop(t, syscall.SIGTERM))

			bt1, bt1b, bt2 := f.ns+"bt1", f.ns+"bt1b", f.ns+"bt2"
			for _, sb := range []string{bt1, bt1b} {
				out := ste(t, f.env, "replay", "--from", f.ns, "--to", sb, "--run", "--json")
				var res struct {
					Copied int64 `json:"copied"`
				}
				must(t, json.Unmarshal([]byte(out), &res))
				if res.Copied == 0 {
					t.Fatalf("replay into %s: %s", sb, out)
				}
			}
			if code, out, errOut := steCode(t, f.env, "diff", bt1, bt1b); code != 0 || !strings.Contains(out, "same outcome") {
				t.Fatalf("ste diff of two replays with the same reference data: exit %d\n%s%s", code, out, errOut)
			}
			if code, out, _ := steCode(t, f.env, "diff", f.ns, bt1); code != 0 {
				t.Fatalf("ste diff of the live namespace and its replay: exit %d\n%s", code, out)
			}

			ref2, isin := suspendOne(t, f.refdata, f.set)
			ste(t, f.env, "replay", "--from", f.ns, "--to", bt2, "--refdata", ref2, "--run")
			want := outcome.Compare(f.expected, matchDir(t, f.set, ref2, ""), outcome.Options{})
			if want.Equal() {
				t.Fatalf("suspending %s changes nothing: no backtest to read", isin)
			}
			code, out, errOut := steCode(t, f.env, "diff", bt1, bt2, "--json")
			if code != 1 {
				t.Fatalf("ste diff of a changed backtest: exit %d, want 1\n%s", code, errOut)
			}
			sameDiff(t, out, want)
			if code, out, _ := steCode(t, f.env, "diff", bt1, bt2); code != 1 || !strings.Contains(out, "trades changed") {
				t.Fatalf("the text diff: exit %d\n%s", code, out)
			}
			if code, _, errOut := steCode(t, f.env, "diff", bt1, f.ns+"none"); code != 2 || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
				t.Fatalf("ste diff of a namespace that does not exist: exit %d, want 2 and one line: %q", code, errOut)
			}

			// A tolerance's backtest: bt1 replayed with the generated
			// tolerances, bt3 with every tolerance 0 (tolerances.csv rows
			// replaced, never deleted). ste diff bt3 bt1 lists, per
			// participant, the trades the tolerances match, by criterion.
			ref3 := exactTolerances(t, f.refdata)
			bt3 := f.ns + "bt3"
			ste(t, f.env, "replay", "--from", f.ns, "--to", bt3, "--refdata", ref3, "--run")
			wantTol := outcome.Compare(matchDir(t, f.set, ref3, ""), f.expected, outcome.Options{})
			if len(wantTol.Flips) == 0 {
				t.Fatal("no trade flips without tolerances: no tolerance backtest to read")
			}
			code, out, errOut = steCode(t, f.env, "diff", bt3, bt1, "--json")
			if code != 1 {
				t.Fatalf("ste diff of a tolerance backtest: exit %d, want 1\n%s", code, errOut)
			}
			sameDiff(t, out, wantTol)
			if code, out, _ := steCode(t, f.env, "diff", bt3, bt1); code != 1 || !strings.Contains(out, "flipping between MISMATCHED and MATCHED") ||
				!strings.Contains(out, wantTol.Flips[0].Participant) {
				t.Fatalf("the text diff of a tolerance backtest: exit %d\n%s", code, out)
			}

			// The same from analytics.
			if b.name == "kfake" {
				backtestFromClickHouse(t, f, bt1, bt2, want)
			}

			// Only sandboxes are deleted, and then they are gone.
			if code, _, errOut := steCode(t, f.env, "replay", "--delete", f.ns, "--confirm", f.ns); code == 0 || !strings.Contains(errOut, "not a sandbox") {
				t.Fatalf("ste replay --delete of a live namespace: exit %d: %s", code, errOut)
			}
			// The name typed again, or nothing is deleted (issue 30 finding 4).
			for _, confirm := range [][]string{nil, {"--confirm", bt1}} {
				if code, _, errOut := steCode(t, f.env, append([]string{"replay", "--delete", bt1b}, confirm...)...); code != 2 || !strings.Contains(errOut, "--confirm "+bt1b) {
					t.Fatalf("ste replay --delete %s %v: exit %d: %s", bt1b, confirm, code, errOut)
				}
			}
			ste(t, f.env, "replay", "--delete", bt1b, "--confirm", bt1b)
			if code, _, _ := steCode(t, f.env, "diff", bt1, bt1b); code != 2 {
				t.Fatalf("a deleted sandbox is still there (exit %d)", code)
			}
		})
	}
}

// backtestFromClickHouse ingests both sandboxes into the embedded
// analytics store and holds ste diff --clickhouse to the comparator.
func backtestFromClickHouse(t *testing.T, f *fixture, a, b string, want *outcome.Diff) {
	_, chEnv := analyticsHome(t)
	env := append(append([]string{}, f.env...), chEnv...)
	for _, ns := range []string{a, b} {
		ste(t, env, "analytics", "--namespace", ns, "--catch-up", "--flush", "200ms")
	}
	code, out, errOut := steCode(t, env, "diff", a, b, "--clickhouse", "--json")
	if code != 1 {
		t.Fatalf("ste diff --clickhouse: exit %d, want 1\n%s", code, errOut)
	}
	sameDiff(t, out, want)
}

// TestMigrateScaleOut is the scale-out acceptance: half of a set processed
// in a namespace of 8 partitions, ste migrate into one of 16 (refused while
// an instance runs; killed with kill -9 during its copy and run again; a
// no-op once done), the rest sent partly to the old namespace — while its
// processors are stopped (carried by the migration) and after the cut-over
// (bridged by --follow) — partly to the new one, with a retention short enough that
// trades expire across the cut-over: both namespaces' outputs together are
// what ste match gives the whole set with that retention — ACKs, NACKs,
// settled trades, expiries, no MsgId with two contents (so CLS versions and
// status numbers continued).
func TestMigrateScaleOut(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: brokers and processes")
	}
	for _, b := range replayBackends("scale-out-kafka") {
		t.Run(b.name, func(t *testing.T) { migrateScaleOut(t, b) })
	}
}

func migrateScaleOut(t *testing.T, b backend) {
	brokers := b.brokers(t)
	nsSeq.Lock()
	nsSeq.n++
	ns := fmt.Sprintf("mig%d%d", time.Now().UnixNano()%1e6, nsSeq.n)
	nsSeq.Unlock()
	ns2 := ns + "x16"
	env := []string{"STE_BROKERS=" + brokers, "STE_NAMESPACE=" + ns}
	env2 := []string{"STE_BROKERS=" + brokers, "STE_NAMESPACE=" + ns2}
	dir := t.TempDir()
	ref := filepath.Join(dir, "ref")
	ste(t, nil, "refdata", "gen", "--out", ref, "--seed", "3")
	parts := scaleOutSets(t, dir, ref)
	const retention = "12h"
	want := matchDir(t, parts.whole, ref, retention)

	ste(t, env, "topics", "create", "--partitions", "8")
	ste(t, env, "refdata", "load", "--dir", ref)
	p := startCmd(t, exec.Command(steBin, "process", "--http", "", "--retention", retention), env)
	ste(t, env, "drive", "--in", parts.x)
	waitProcessed(t, brokers, ns)
	ste(t, env, "drive", "--in", parts.a1)
	waitProcessed(t, brokers, ns)

	// Refused while the instance runs, in one line naming it.
	var ids []struct {
		ID string `json:"id"`
	}
	must(t, json.Unmarshal([]byte(ste(t, env, "instances", "--json")), &ids))
	if len(ids) != 1 {
		t.Fatalf("instances %v", ids)
	}
	code, _, errOut := steCode(t, env, "migrate", "--from", ns, "--to", ns2, "--partitions", "16")
	if code == 0 || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || !strings.Contains(errOut, "still runs: instance "+ids[0].ID) {
		t.Fatalf("ste migrate while %s runs: exit %d, %q", ids[0].ID, code, errOut)
	}
	must(t, p.stop(t, syscall.SIGTERM))
	downtime := time.Now()
	// Participants keep sending while the processors are stopped.
	ste(t, env, "drive", "--in", parts.a2a)

	// kill -9 during the copy (slowed down to be caught in it), then again.
	killed := startCmd(t, exec.Command(steBin, "migrate", "--from", ns, "--to", ns2, "--partitions", "16", "--rate", "300"), env)
	dial := func(opts ...kgo.Opt) (*kgo.Client, error) {
		return topics.Client(kafkaconn.Plaintext(brokers), opts...)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		spans, err := copier.EndSpans(context.Background(), admClient(t, brokers), topology.Table(topology.Names{NS: ns2}.IdentityGroup()))
		if err == nil && copier.Total(spans) > 50 {
			break
		}
		if time.Now().After(deadline) || killed.cmd.ProcessState != nil {
			t.Fatalf("the migration copied nothing within a minute:\n%s", killed.log)
		}
		time.Sleep(20 * time.Millisecond)
	}
	killed.stop(t, syscall.SIGKILL)
	secret, err := trust.LoadOrCreate(trust.DefaultPath(os.Getenv("STE_HOME"))) // the one ste migrate proves with
	if err != nil {
		t.Fatal(err)
	}
	rs, err := origin.Read(context.Background(), dial, ns2, secret)
	if r, ok := origin.Find(rs, origin.Migration, ns); err != nil || !ok || r.State != origin.Started {
		t.Fatalf("after kill -9 the origin of %s is %+v (%v), want a started migration", ns2, rs, err)
	}
	out := ste(t, env, "migrate", "--from", ns, "--to", ns2, "--partitions", "16")
	if m := regexp.MustCompile(`migrated \S+ into \S+ \(16 partitions\) in \S+, with ([0-9]+) inbound records`).FindStringSubmatch(out); m == nil || m[1] == "0" {
		t.Fatalf("the second run did not carry the records sent while the processors were stopped: %s", out)
	}
	p2 := startCmd(t, exec.Command(steBin, "process", "--http", "", "--retention", retention), env2)
	waitReady(t, brokers, ns2)
	t.Logf("downtime (processors of %s stopped → %s ready, with a kill -9 and a rerun of the copy): %.1fs", ns, ns2, time.Since(downtime).Seconds())

	// A run after success changes nothing.
	ends := func() string {
		var s []string
		for _, tp := range topics.Specs(ns2, topics.Options{}) {
			if tp.Name == (topology.Names{NS: ns2}).Instances() {
				continue // the running instance refreshes its announcement
			}
			sp, err := copier.EndSpans(context.Background(), admClient(t, brokers), tp.Name)
			must(t, err)
			s = append(s, fmt.Sprint(tp.Name, sp))
		}
		return strings.Join(s, " ")
	}
	waitProcessed(t, brokers, ns2)
	before := ends()
	if out := ste(t, env, "migrate", "--from", ns, "--to", ns2, "--partitions", "16"); !strings.Contains(out, "nothing to do") || ends() != before {
		t.Fatalf("a run after success: %s", out)
	}

	// Drivers not yet switched: A2b goes to the old namespace and is bridged.
	follow := startCmd(t, exec.Command(steBin, "migrate", "--from", ns, "--to", ns2, "--partitions", "16", "--follow"), env)
	ste(t, env, "drive", "--in", parts.a2b)
	waitProcessed(t, brokers, ns, lag.Group{Name: migrate.FollowGroup(ns, ns2), Stage: "follow", Topics: []string{topology.Names{NS: ns}.Inbound()}})
	waitProcessed(t, brokers, ns2)
	// Switched drivers: the late messages, then the next day.
	ste(t, env2, "drive", "--in", parts.late)
	waitProcessed(t, brokers, ns2)
	ste(t, env2, "drive", "--in", parts.b)
	waitProcessed(t, brokers, ns2)
	if err := follow.stop(t, syscall.SIGTERM); err != nil {
		t.Fatalf("ste migrate --follow: %v\n%s", err, follow.log)
	}
	must(t, p2.stop(t, syscall.SIGTERM))

	union := outcome.New()
	statuses := map[string]map[string][2]int{} // namespace -> trade key -> lowest and highest status number
	for _, n := range []string{ns, ns2} {
		nn := topology.Names{NS: n}
		statuses[n] = map[string][2]int{}
		for _, topic := range []string{nn.CLS(), nn.Outbound()} {
			_, err := topics.Dump(context.Background(), kafkaconn.Plaintext(brokers), topic, func(r *kgo.Record) error {
				o, err := schemas.ParseOutput(r.Value)
				if err != nil {
					return err
				}
				union.AddReceived(o)
				if parts := strings.Split(o.MsgId, ":"); o.MsgType == "STATUS" && len(parts) == 4 {
					num, _ := strconv.Atoi(parts[2])
					lh, seen := statuses[n][o.TradeKey]
					if !seen {
						lh = [2]int{num, num}
					}
					statuses[n][o.TradeKey] = [2]int{min(lh[0], num), max(lh[1], num)}
				}
				return nil
			})
			must(t, err)
		}
		// Exception ids name an inbound record of their namespace.
		_, err := topics.Dump(context.Background(), kafkaconn.Plaintext(brokers), nn.Exceptions(), func(r *kgo.Record) error {
			var e struct {
				ID string `json:"id"`
				outcome.Rejection
			}
			if err := json.Unmarshal(r.Value, &e); err != nil {
				return err
			}
			return union.AddRejection(n+"/"+e.ID, e.Rejection)
		})
		must(t, err)
	}
	if d := outcome.Compare(want, union, outcome.Options{A: "ste match", B: ns + "+" + ns2, Expiries: true}); !d.Equal() {
		t.Fatalf("%s", d.Report(10))
	}
	if c := want.Counts(); c.Expired == 0 || c.Settled == 0 {
		t.Fatalf("the scenario lacks expiries or settled trades: %+v", c)
	}
	// Status numbers continued across the cut-over: trades whose statuses
	// began in the old namespace and went on in the new one.
	continued := 0
	for key, old := range statuses[ns] {
		if nw, ok := statuses[ns2][key]; ok && nw[0] == old[1]+1 {
			continued++
		}
	}
	if continued == 0 {
		t.Fatal("no trade's statuses continued from the old namespace into the new one: nothing was carried across the cut-over")
	}
	t.Logf("%d trades' status numbers continued across the cut-over", continued)
}

func admClient(t *testing.T, brokers string) *kadm.Client {
	t.Helper()
	cl, err := topics.Client(kafkaconn.Plaintext(brokers))
	must(t, err)
	t.Cleanup(cl.Close)
	return kadm.NewClient(cl)
}

// waitReady waits until an instance of ns says it is ready in the registry.
func waitReady(t *testing.T, brokers, ns string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		es, err := registry.List(context.Background(), kafkaconn.Plaintext(brokers), ns)
		if err == nil && len(es) > 0 && es[0].Ready {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("no instance of %s ready within 2 minutes", ns)
}

// scaleOut are the message sets of the migration scenario, each a file: X
// (day 0) and A (day 1, split by lines into A1, processed before the
// cut-over, and A2a and A2b after it, so that trades straddle it), late
// messages for trades of X that matched
// (a second NOE under a new MsgId, Created on day 1: X is purged by then,
// so they start trades that continue from X's tombstones), and B (day 2).
// With a 12 h retention, X's trades expire when A arrives and A's when B
// does — in every partition, whatever the partition count, so expiries do
// not depend on where the cut-over falls — and nothing expires within a day.
type scaleOut struct{ x, a1, a2a, a2b, late, b, whole string }

func scaleOutSets(t *testing.T, dir, refDir string) scaleOut {
	t.Helper()
	ref, err := refdata.LoadDir(refDir)
	must(t, err)
	gen := func(seed uint64, day string, trades int, plans func(workload.TradePlan)) [][]byte {
		var out [][]byte
		_, err := workload.Generate(workload.Options{Trades: trades, Mix: workload.Realistic, Seed: seed, Ref: ref,
			TradeDate: date.MustParse(day)}, func(b []byte) error { out = append(out, bytes.Clone(b)); return nil }, plans)
		must(t, err)
		return out
	}
	matched := map[string]bool{}
	x := gen(1, "2026-11-02", 60, func(p workload.TradePlan) {
		if p.Outcome == workload.OutcomeMatched && p.Scenario == "clean" && len(matched) < 6 {
			matched[p.TradeKey] = true
		}
	})
	a := gen(2, "2026-11-03", 200, nil)
	b := gen(3, "2026-11-04", 80, nil)
	var late [][]byte
	var dec schemas.Decoder
	for _, line := range x {
		m, rej := dec.Decode(line)
		if rej != nil || m.Type != schemas.NOE || m.Function != schemas.NEW || !matched[m.Key.TradeKey().String()] {
			continue
		}
		late = append(late, resigned(t, line, m.MsgId, m.MsgId+"-LATE", m.Sender, "2026-11-03T05:00:00.000Z"))
	}
	if len(late) == 0 {
		t.Fatal("no matched trade in X to send late messages for")
	}
	var sets scaleOut
	write := func(dst *string, name string, lines ...[][]byte) {
		*dst = filepath.Join(dir, name)
		w, err := msgset.Create(*dst)
		must(t, err)
		for _, ls := range lines {
			for _, l := range ls {
				must(t, w.Write(l))
			}
		}
		must(t, w.Close())
	}
	a1, a2a, a2b := a[:len(a)/2], a[len(a)/2:len(a)*3/4], a[len(a)*3/4:]
	write(&sets.x, "x.xml", x)
	write(&sets.a1, "a1.xml", a1)
	write(&sets.a2a, "a2a.xml", a2a)
	write(&sets.a2b, "a2b.xml", a2b)
	write(&sets.late, "late.xml", late)
	write(&sets.b, "b.xml", b)
	write(&sets.whole, "whole.xml", x, a1, a2a, a2b, late, b)
	return sets
}

// resigned is a message with another MsgId and Created, signed again with
// its sender's demo key.
func resigned(t *testing.T, line []byte, msgID, newID, sender, created string) []byte {
	t.Helper()
	s := string(line)
	s = strings.Replace(s, "<MsgId>"+msgID+"</MsgId>", "<MsgId>"+newID+"</MsgId>", 1)
	s = regexp.MustCompile(`<Created>[^<]*</Created>`).ReplaceAllString(s, "<Created>"+created+"</Created>")
	i, j := strings.Index(s, "<Header>"), strings.Index(s, "</Body>")
	k, l := strings.Index(s, `<Sig alg="ed25519">`), strings.Index(s, "</Sig>")
	if i < 0 || j < i || k < j || l < k {
		t.Fatalf("not a message: %s", s)
	}
	sig := schemas.Sign(refdata.DemoPrivateKey(sender), []byte(s[i:j+len("</Body>")]))
	return []byte(s[:k+len(`<Sig alg="ed25519">`)] + sig + s[l:])
}
