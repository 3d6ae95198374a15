package report

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/ste-utility/ste/analytics/store"
)

// CountsResult is rows per table for one namespace, in the JSON shape of
// docs/spec/cli.md: {"cls":N,"audit":N,"exceptions":N,...}, numbers only.
type CountsResult struct {
	Namespace string `json:"-"`
	// CLS is distinct CLS MsgIds (a re-emitted CLS is one).
	CLS uint64 `json:"cls"`
	// Audit is audit events: one per inbound message's journey (and per
	// retention purge); a record on the topic holds a batch of them.
	Audit uint64 `json:"audit"`
	// Exceptions is distinct exception ids (a re-emitted one is one).
	Exceptions uint64 `json:"exceptions"`
	// Monitor is queue samples.
	Monitor uint64 `json:"monitor"`
	// CLSRecords is CLS rows, re-emissions included.
	CLSRecords uint64 `json:"cls_records"`
	// AuditSteps is audit rows: one per stage a message went through.
	AuditSteps uint64 `json:"audit_steps"`
	// ExceptionRecords is exception rows, re-emissions included.
	ExceptionRecords uint64 `json:"exception_records"`
	// BenchRuns is bench runs recorded for the namespace.
	BenchRuns uint64 `json:"bench_runs"`
}

// CountsSQL is the counts report.
const CountsSQL = `SELECT
    (SELECT uniqExact(msg_id) FROM ste.cls WHERE namespace = {ns:String}
        AND ts >= {since:DateTime64(6, 'UTC')} AND ts < {until:DateTime64(6, 'UTC')}) AS cls,
    (SELECT countIf(step = 0) FROM ste.audit WHERE namespace = {ns:String}
        AND ts >= {since:DateTime64(6, 'UTC')} AND ts < {until:DateTime64(6, 'UTC')}) AS audit,
    (SELECT uniqExact(id) FROM ste.exceptions WHERE namespace = {ns:String}
        AND ts >= {since:DateTime64(6, 'UTC')} AND ts < {until:DateTime64(6, 'UTC')}) AS exceptions,
    (SELECT count() FROM ste.monitor WHERE namespace = {ns:String}
        AND ts >= {since:DateTime64(6, 'UTC')} AND ts < {until:DateTime64(6, 'UTC')}) AS monitor,
    (SELECT count() FROM ste.cls WHERE namespace = {ns:String}
        AND ts >= {since:DateTime64(6, 'UTC')} AND ts < {until:DateTime64(6, 'UTC')}) AS cls_records,
    (SELECT count() FROM ste.audit WHERE namespace = {ns:String}
        AND ts >= {since:DateTime64(6, 'UTC')} AND ts < {until:DateTime64(6, 'UTC')}) AS audit_steps,
    (SELECT count() FROM ste.exceptions WHERE namespace = {ns:String}
        AND ts >= {since:DateTime64(6, 'UTC')} AND ts < {until:DateTime64(6, 'UTC')}) AS exception_records,
    (SELECT count() FROM ste.bench_runs WHERE namespace = {ns:String}
        AND started_at >= {since:DateTime64(6, 'UTC')} AND started_at < {until:DateTime64(6, 'UTC')}) AS bench_runs`

// Counts counts rows per table.
func Counts(ctx context.Context, st *store.Store, p Params) (*CountsResult, error) {
	r, err := query(ctx, st, CountsSQL, p, nil)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	c := &CountsResult{Namespace: p.Namespace}
	if !r.Next() {
		return nil, fmt.Errorf("counts: no result: %v", r.Err())
	}
	if err := r.Scan(&c.CLS, &c.Audit, &c.Exceptions, &c.Monitor, &c.CLSRecords, &c.AuditSteps, &c.ExceptionRecords, &c.BenchRuns); err != nil {
		return nil, err
	}
	return c, r.Err()
}

// WriteText prints the counts as a table.
func (c *CountsResult) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "namespace %s\n", c.Namespace)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "table\tcount\tstored rows\t what is counted\n")
	fmt.Fprintf(tw, "cls\t%d\t%d\t CLS records, deduplicated by MsgId\n", c.CLS, c.CLSRecords)
	fmt.Fprintf(tw, "audit\t%d\t%d\t audit events (one per message); rows are one per stage\n", c.Audit, c.AuditSteps)
	fmt.Fprintf(tw, "exceptions\t%d\t%d\t exceptions, deduplicated by id\n", c.Exceptions, c.ExceptionRecords)
	fmt.Fprintf(tw, "monitor\t%d\t%d\t queue samples\n", c.Monitor, c.Monitor)
	fmt.Fprintf(tw, "bench_runs\t%d\t%d\t ste bench runs\n", c.BenchRuns, c.BenchRuns)
	return tw.Flush()
}
