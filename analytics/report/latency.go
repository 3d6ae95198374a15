package report

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/ste-utility/ste/analytics/store"
)

// latencyCTE pairs each CLS NEW with the message that caused it. A CLS
// NEW's MsgId is listed in the outputs of the audit record of the message
// whose processing matched the trade (a duplicate re-emitting it later lists
// it too, hence min). Latency is the CLS record's timestamp (when it was
// written to <ns>.cls; its first appearance, re-emissions ignored) minus
// that message's inbound record timestamp (when the broker took it on
// <ns>.inbound, which stamps on arrival): the per-trade "send of its last
// message to arrival of its CLS" of ste bench, measured from stored data.
const latencyCTE = `WITH
cls AS (
    SELECT msg_id, min(ts) AS cls_at
    FROM ste.cls
    WHERE namespace = {ns:String} AND function = 'NEW'
      AND ts >= {since:DateTime64(6, 'UTC')} AND ts < {until:DateTime64(6, 'UTC')}
    GROUP BY msg_id
),
sent AS (
    SELECT o AS msg_id, min(inbound_at) AS sent_at
    FROM ste.audit ARRAY JOIN outputs AS o
    WHERE namespace = {ns:String} AND notEmpty(outputs)
      AND startsWith(o, 'CLS-') AND NOT endsWith(o, '-CANCEL')
    GROUP BY msg_id
),
lat AS (
    SELECT cls.msg_id AS msg_id, cls.cls_at AS cls_at,
           dateDiff('microsecond', sent.sent_at, cls.cls_at) / 1000.0 AS ms
    FROM cls INNER JOIN sent ON cls.msg_id = sent.msg_id
)
`

// LatencySQL is the latency report's quantiles (ms). quantilesExact gives
// observed values: the one at position floor(q·n) of the sorted latencies.
const LatencySQL = latencyCTE + `SELECT
    (SELECT count() FROM cls) AS cls,
    count() AS n,
    quantilesExact(0.5, 0.9, 0.99, 0.999)(ms) AS q,
    min(ms), avg(ms), max(ms)
FROM lat`

// latencySeriesSQL is the quantiles per window, for plots and JSON.
const latencySeriesSQL = latencyCTE + `SELECT
    toStartOfInterval(cls_at, toIntervalSecond({window:UInt32})) AS window_start,
    count() AS n,
    quantilesExact(0.5, 0.9, 0.99)(ms) AS q,
    max(ms)
FROM lat
GROUP BY window_start
ORDER BY window_start`

// LatencyResult is CLS latency in milliseconds.
type LatencyResult struct {
	Namespace string `json:"namespace"`
	// CLS is the distinct CLS NEW MsgIds in range; Measured those paired
	// with the message that caused them (an audit record may be missing,
	// e.g. outside its retention).
	CLS      uint64          `json:"cls"`
	Measured uint64          `json:"measured"`
	P50      float64         `json:"p50"`
	P90      float64         `json:"p90"`
	P99      float64         `json:"p99"`
	P999     float64         `json:"p999"`
	Min      float64         `json:"min"`
	Mean     float64         `json:"mean"`
	Max      float64         `json:"max"`
	Window   float64         `json:"window_seconds"`
	Series   []LatencyWindow `json:"series"`
}

// LatencyWindow is the latency of the CLS written in one window.
type LatencyWindow struct {
	Start time.Time `json:"start"`
	N     uint64    `json:"n"`
	P50   float64   `json:"p50"`
	P90   float64   `json:"p90"`
	P99   float64   `json:"p99"`
	Max   float64   `json:"max"`
}

// Latency runs the latency report.
func Latency(ctx context.Context, st *store.Store, p Params) (*LatencyResult, error) {
	r, err := query(ctx, st, LatencySQL, p, nil)
	if err != nil {
		return nil, err
	}
	res := &LatencyResult{Namespace: p.Namespace}
	if r.Next() {
		var q []float64
		if err := r.Scan(&res.CLS, &res.Measured, &q, &res.Min, &res.Mean, &res.Max); err != nil {
			r.Close()
			return nil, err
		}
		if len(q) == 4 && res.Measured > 0 {
			res.P50, res.P90, res.P99, res.P999 = q[0], q[1], q[2], q[3]
		}
	}
	r.Close()
	if res.Measured == 0 {
		res.Min, res.Mean, res.Max = 0, 0, 0
		return res, nil
	}
	win, err := window(ctx, st, p)
	if err != nil {
		return nil, err
	}
	res.Window = win.Seconds()
	r, err = query(ctx, st, latencySeriesSQL, p, map[string]string{"window": strconv.Itoa(int(win / time.Second))})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	for r.Next() {
		var x LatencyWindow
		var q []float64
		if err := r.Scan(&x.Start, &x.N, &q, &x.Max); err != nil {
			return nil, err
		}
		x.Start = x.Start.UTC()
		if len(q) == 3 {
			x.P50, x.P90, x.P99 = q[0], q[1], q[2]
		}
		res.Series = append(res.Series, x)
	}
	return res, r.Err()
}

// WriteText prints the quantiles.
func (l *LatencyResult) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "namespace %s — CLS latency: CLS written minus the send time of the message that completed the trade\n", l.Namespace)
	if l.Measured == 0 {
		fmt.Fprintf(w, "no CLS with its causing message in this range (%d CLS)\n", l.CLS)
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "CLS\tmeasured\tp50 ms\tp90 ms\tp99 ms\tp99.9 ms\tmin ms\tmean ms\tmax ms\t\n")
	fmt.Fprintf(tw, "%d\t%d\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t\n", l.CLS, l.Measured, l.P50, l.P90, l.P99, l.P999, l.Min, l.Mean, l.Max)
	return tw.Flush()
}
