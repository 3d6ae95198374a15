package report

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/ste-utility/ste/analytics/store"
)

// ExceptionsSQL counts rejected messages by reason; an exception re-emitted
// after a crash has the same id (it names the inbound record) and counts
// once.
const ExceptionsSQL = `SELECT reason, uniqExact(id) AS n
FROM ste.exceptions
WHERE namespace = {ns:String}
  AND ts >= {since:DateTime64(6, 'UTC')} AND ts < {until:DateTime64(6, 'UTC')}
GROUP BY reason
ORDER BY n DESC, reason`

// ExceptionsResult is exceptions by reason.
type ExceptionsResult struct {
	Namespace string            `json:"namespace"`
	Total     uint64            `json:"total"`
	Reasons   []ExceptionReason `json:"reasons"`
}

// ExceptionReason is one rejection code.
type ExceptionReason struct {
	Reason string `json:"reason"`
	Count  uint64 `json:"count"`
}

// Exceptions runs the exceptions report.
func Exceptions(ctx context.Context, st *store.Store, p Params) (*ExceptionsResult, error) {
	r, err := query(ctx, st, ExceptionsSQL, p, nil)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	res := &ExceptionsResult{Namespace: p.Namespace, Reasons: []ExceptionReason{}}
	for r.Next() {
		var x ExceptionReason
		if err := r.Scan(&x.Reason, &x.Count); err != nil {
			return nil, err
		}
		res.Reasons = append(res.Reasons, x)
		res.Total += x.Count
	}
	return res, r.Err()
}

// WriteText prints one row per reason.
func (e *ExceptionsResult) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "namespace %s — rejected messages by reason\n", e.Namespace)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "reason\tcount\tshare\n")
	for _, x := range e.Reasons {
		fmt.Fprintf(tw, "%s\t%d\t%.1f%%\n", x.Reason, x.Count, 100*float64(x.Count)/float64(e.Total))
	}
	fmt.Fprintf(tw, "total\t%d\t\n", e.Total)
	return tw.Flush()
}

// NamespacesResult lists the store's namespaces.
type NamespacesResult struct {
	Namespaces []store.Namespace `json:"namespaces"`
}

// Namespaces lists the namespaces that received rows, the one whose data
// begins last first: the one reports read by default.
func Namespaces(ctx context.Context, st *store.Store) (*NamespacesResult, error) {
	ns, err := NamespacesByStart(ctx, st)
	if err != nil {
		return nil, err
	}
	if ns == nil {
		ns = []store.Namespace{}
	}
	return &NamespacesResult{Namespaces: ns}, nil
}

// WriteText prints one row per namespace.
func (n *NamespacesResult) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "namespace\tdata from (UTC)\tlast ingest (UTC)\t\n")
	for i, x := range n.Namespaces {
		from, mark := "-", ""
		if !x.FirstData.IsZero() {
			from = fmtTime(x.FirstData)
		}
		if i == 0 {
			mark = "reports read this one by default (its data begins last)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", x.Name, from, fmtTime(x.LastIngest), mark)
	}
	return tw.Flush()
}

// BenchSQL lists bench runs; with no namespace given, every namespace's.
const BenchSQL = `SELECT started_at, namespace, run_id, trades, messages, cls, exceptions, seconds, msgs_per_sec,
    latency_p50_ms, latency_p99_ms, latency_max_ms, processor_instances, partitions, broker,
    analytics, verify_signatures
FROM ste.bench_runs
WHERE ({ns:String} = '' OR namespace = {ns:String})
  AND started_at >= {since:DateTime64(6, 'UTC')} AND started_at < {until:DateTime64(6, 'UTC')}
ORDER BY started_at`

// BenchResult lists bench runs.
type BenchResult struct {
	Runs []BenchRun `json:"runs"`
}

// BenchRun is one recorded run.
type BenchRun struct {
	StartedAt          time.Time `json:"started_at"`
	Namespace          string    `json:"namespace"`
	RunID              string    `json:"run_id"`
	Trades             uint64    `json:"trades"`
	Messages           uint64    `json:"messages"`
	CLS                uint64    `json:"cls"`
	Exceptions         uint64    `json:"exceptions"`
	Seconds            float64   `json:"seconds"`
	MsgsPerSec         float64   `json:"msgs_per_sec"`
	P50                float64   `json:"latency_p50_ms"`
	P99                float64   `json:"latency_p99_ms"`
	Max                float64   `json:"latency_max_ms"`
	ProcessorInstances uint32    `json:"processor_instances"`
	Partitions         uint32    `json:"partitions"`
	Broker             string    `json:"broker"`
	Analytics          bool      `json:"analytics"`
	VerifySignatures   bool      `json:"verify_signatures"`
}

// Bench lists bench runs.
func Bench(ctx context.Context, st *store.Store, p Params) (*BenchResult, error) {
	r, err := query(ctx, st, BenchSQL, p, nil)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	res := &BenchResult{Runs: []BenchRun{}}
	for r.Next() {
		var b BenchRun
		if err := r.Scan(&b.StartedAt, &b.Namespace, &b.RunID, &b.Trades, &b.Messages, &b.CLS, &b.Exceptions, &b.Seconds,
			&b.MsgsPerSec, &b.P50, &b.P99, &b.Max, &b.ProcessorInstances, &b.Partitions, &b.Broker, &b.Analytics,
			&b.VerifySignatures); err != nil {
			return nil, err
		}
		b.StartedAt = b.StartedAt.UTC()
		res.Runs = append(res.Runs, b)
	}
	return res, r.Err()
}

// WriteText prints one row per run.
func (b *BenchResult) WriteText(w io.Writer) error {
	if len(b.Runs) == 0 {
		fmt.Fprintln(w, "no bench runs recorded")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "started (UTC)\tnamespace\ttrades\tmessages\tmsgs/s\tp50 ms\tp99 ms\tmax ms\tinstances\tpartitions\tbroker\tverify\t\n")
	for _, r := range b.Runs {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%.0f\t%.1f\t%.1f\t%.1f\t%d\t%d\t%s\t%v\t\n", fmtTime(r.StartedAt), r.Namespace, r.Trades,
			r.Messages, r.MsgsPerSec, r.P50, r.P99, r.Max, r.ProcessorInstances, r.Partitions, r.Broker, r.VerifySignatures)
	}
	return tw.Flush()
}
