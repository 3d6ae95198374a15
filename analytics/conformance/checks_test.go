package conformance

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ste-utility/ste/analytics/store"
)

// stored is what a namespace has in the store, counted straight from the
// tables (not through the reports), plus the rows that are copies of another
// row from the same record — which must be none.
type stored struct {
	Want
	Dups map[string]uint64
}

func count(t *testing.T, st *store.Store, q string, args ...any) uint64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var n uint64
	if err := st.Conn().QueryRow(ctx, strings.ReplaceAll(q, "{db}", st.Database()), args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

func storedRows(t *testing.T, st *store.Store, ns string) stored {
	t.Helper()
	s := stored{Want: Want{Stages: map[string]int{}}, Dups: map[string]uint64{}}
	c := func(q string) int { return int(count(t, st, q, ns)) }
	s.CLS = c("SELECT uniqExact(msg_id) FROM {db}.cls WHERE namespace = ?")
	s.CLSRecords = c("SELECT count() FROM {db}.cls WHERE namespace = ?")
	s.CLSNew = c("SELECT uniqExact(msg_id) FROM {db}.cls WHERE namespace = ? AND function = 'NEW'")
	s.Audit = c("SELECT countIf(step = 0) FROM {db}.audit WHERE namespace = ?")
	s.AuditSteps = c("SELECT count() FROM {db}.audit WHERE namespace = ?")
	s.Exceptions = c("SELECT uniqExact(id) FROM {db}.exceptions WHERE namespace = ?")
	s.ExceptionRecords = c("SELECT count() FROM {db}.exceptions WHERE namespace = ?")
	s.Monitor = c("SELECT count() FROM {db}.monitor WHERE namespace = ?")
	for _, q := range []struct{ table, key string }{
		{"audit", "topic_id, partition, offset, step"},
		{"cls", "topic_id, partition, offset"},
		{"exceptions", "topic_id, partition, offset"},
		{"monitor", "topic_id, partition, offset"},
	} {
		s.Dups[q.table] = count(t, st, "SELECT toUInt64(count() - uniqExact("+q.key+")) FROM {db}."+q.table+" WHERE namespace = ?", ns)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rows, err := st.Conn().Query(ctx, "SELECT stage, sum(n) FROM "+st.Table("throughput_1s")+" WHERE namespace = ? GROUP BY stage", ns)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var stage string
		var n uint64
		if err := rows.Scan(&stage, &n); err != nil {
			t.Fatal(err)
		}
		s.Stages[stage] = int(n)
	}
	return s
}

// diff lists the differences between what is stored and what is wanted.
func diff(got stored, want Want) []string {
	var d []string
	chk := func(name string, g, w int) {
		if g != w {
			d = append(d, fmt.Sprintf("%s: stored %d, want %d", name, g, w))
		}
	}
	chk("cls (distinct MsgId)", got.CLS, want.CLS)
	chk("cls rows", got.CLSRecords, want.CLSRecords)
	chk("cls NEW (distinct)", got.CLSNew, want.CLSNew)
	chk("audit records", got.Audit, want.Audit)
	chk("audit rows", got.AuditSteps, want.AuditSteps)
	chk("exceptions (distinct id)", got.Exceptions, want.Exceptions)
	chk("exception rows", got.ExceptionRecords, want.ExceptionRecords)
	chk("monitor rows", got.Monitor, want.Monitor)
	stages := map[string]bool{}
	for s := range got.Stages {
		stages[s] = true
	}
	for s := range want.Stages {
		stages[s] = true
	}
	var names []string
	for s := range stages {
		names = append(names, s)
	}
	sort.Strings(names)
	for _, s := range names {
		chk("view throughput_1s stage "+s, got.Stages[s], want.Stages[s])
	}
	for table, n := range got.Dups {
		if n != 0 {
			d = append(d, fmt.Sprintf("%s: %d rows duplicate another row of the same record", table, n))
		}
	}
	return d
}

func expectStored(t *testing.T, st *store.Store, ns string, want Want) {
	t.Helper()
	if d := diff(storedRows(t, st, ns), want); len(d) > 0 {
		t.Fatalf("namespace %s:\n  %s", ns, strings.Join(d, "\n  "))
	}
}

func waitUntil(ctx context.Context, f func() bool) bool {
	for {
		if f() {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(50 * time.Millisecond):
		}
	}
}
