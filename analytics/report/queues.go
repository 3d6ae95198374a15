package report

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/ste-utility/ste/analytics/store"
)

// QueuesSQL folds the monitor's samples per stage into the operational
// quantities of Buzen and Denning. A sample says, for one stage, how many
// records arrived (A) and completed (C) during its interval and how many
// were in the stage (waiting or in service) at its end. The convention is
// that of measure/oplaw, which ste monitor prints, so both agree on the same
// samples: a stage's first sample in the range only sets the starting queue;
// an interval is busy when the stage completed work in it or had a queue at
// either end; the queue is integrated by the trapezoid rule:
//
//	T = Σ interval                                    observation time
//	B = Σ interval where C > 0 or queue > 0 at either end   busy time
//	W = Σ (previous queue + queue) / 2 × interval     area under the queue length
//
// and then U = B/T, X = C/T, S = B/C, N = W/T, R = W/C (Little: N = X·R).
const QueuesSQL = `SELECT stage,
    count() AS samples,
    sum(interval) AS T,
    sum(arrivals) AS A,
    sum(completions) AS C,
    sumIf(interval, completions > 0 OR queue > 0 OR prev_queue > 0) AS B,
    sum((prev_queue + queue) / 2 * interval) AS W,
    max(queue) AS max_queue
FROM (
    SELECT stage, interval, arrivals, completions, queue,
        lagInFrame(queue) OVER (PARTITION BY stage ORDER BY at ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS prev_queue,
        row_number() OVER (PARTITION BY stage ORDER BY at) AS i
    FROM ste.monitor
    WHERE namespace = {ns:String}
      AND at >= {since:DateTime64(6, 'UTC')} AND at < {until:DateTime64(6, 'UTC')}
)
WHERE i > 1
GROUP BY stage`

// queueSeriesSQL is the sampled queue lengths, for plots.
const queueSeriesSQL = `SELECT stage, at, queue
FROM ste.monitor
WHERE namespace = {ns:String}
  AND at >= {since:DateTime64(6, 'UTC')} AND at < {until:DateTime64(6, 'UTC')}
ORDER BY stage, at`

// QueuesResult is the operational quantities per stage.
type QueuesResult struct {
	Namespace string        `json:"namespace"`
	Stages    []QueueStage  `json:"stages"`
	Series    []QueueSample `json:"series,omitempty"`
}

// QueueStage is one stage's quantities. Times are in seconds; a quantity
// whose denominator is zero is 0.
type QueueStage struct {
	Stage    string  `json:"stage"`
	Samples  uint64  `json:"samples"`
	T        float64 `json:"T"` // observation time
	A        int64   `json:"A"` // arrivals
	C        int64   `json:"C"` // completions
	B        float64 `json:"B"` // busy time: queue non-empty
	W        float64 `json:"W"` // area under the queue length (record·seconds)
	U        float64 `json:"U"` // utilisation B/T
	X        float64 `json:"X"` // throughput C/T (records/s)
	Lambda   float64 `json:"lambda"`
	S        float64 `json:"S"` // mean service time B/C
	N        float64 `json:"N"` // mean number in the stage W/T
	R        float64 `json:"R"` // mean response time W/C
	MaxQueue int64   `json:"max_queue"`
}

// QueueSample is one sampled queue length.
type QueueSample struct {
	Stage string    `json:"stage"`
	At    time.Time `json:"at"`
	Queue int64     `json:"queue"`
}

// Queues runs the queues report.
func Queues(ctx context.Context, st *store.Store, p Params) (*QueuesResult, error) {
	r, err := query(ctx, st, QueuesSQL, p, nil)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	res := &QueuesResult{Namespace: p.Namespace}
	for r.Next() {
		var q QueueStage
		var w float64
		if err := r.Scan(&q.Stage, &q.Samples, &q.T, &q.A, &q.C, &q.B, &w, &q.MaxQueue); err != nil {
			return nil, err
		}
		q.W = w
		div := func(a, b float64) float64 {
			if b == 0 {
				return 0
			}
			return a / b
		}
		q.U, q.X, q.Lambda = div(q.B, q.T), div(float64(q.C), q.T), div(float64(q.A), q.T)
		q.S, q.N, q.R = div(q.B, float64(q.C)), div(q.W, q.T), div(q.W, float64(q.C))
		res.Stages = append(res.Stages, q)
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	names := make([]string, len(res.Stages))
	by := map[string]QueueStage{}
	for i, s := range res.Stages {
		names[i] = s.Stage
		by[s.Stage] = s
	}
	sortStages(names)
	for i, n := range names {
		res.Stages[i] = by[n]
	}
	if p.Series {
		r, err := query(ctx, st, queueSeriesSQL, p, nil)
		if err != nil {
			return nil, err
		}
		defer r.Close()
		for r.Next() {
			var s QueueSample
			if err := r.Scan(&s.Stage, &s.At, &s.Queue); err != nil {
				return nil, err
			}
			s.At = s.At.UTC()
			res.Series = append(res.Series, s)
		}
		if err := r.Err(); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// WriteText prints one row per stage.
func (q *QueuesResult) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "namespace %s — operational laws per stage from the monitor's queue samples\n", q.Namespace)
	if len(q.Stages) == 0 {
		fmt.Fprintln(w, "no monitor samples in this range (is ste monitor running?)")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "stage\tsamples\tT s\tA\tC\tB s\tU\tλ /s\tX /s\tS ms\tN\tR ms\tmax queue\t\n")
	for _, s := range q.Stages {
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%d\t%d\t%.1f\t%.3f\t%s\t%s\t%.3f\t%.2f\t%.1f\t%d\t\n", s.Stage, s.Samples, s.T, s.A, s.C, s.B,
			s.U, fmtRate(s.Lambda), fmtRate(s.X), 1000*s.S, s.N, 1000*s.R, s.MaxQueue)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "T observed, A arrivals, C completions, B busy (work done or a queue in the interval), W area under the queue length;\nU=B/T, λ=A/T, X=C/T, S=B/C, N=W/T, R=W/C (samples counts the intervals; a stage's first sample only starts its queue)")
	return nil
}
