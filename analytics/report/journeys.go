package report

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/ste-utility/ste/analytics/store"
)

// JourneysSQL is every audit step of one trade: each message's journey
// through the stages, and retention purges. The audit table is ordered by
// stage and time, not trade, so this reads the namespace's audit rows in
// the time range; the console asks it for one trade at a time.
const JourneysSQL = `SELECT partition, offset, sender, msg_id, msg_type, function, inbound_partition, inbound_offset,
    inbound_at, outcome, reason, step, stage, event, at, outputs
FROM ste.audit
WHERE namespace = {ns:String} AND trade_key = {trade:String}
  AND ts >= {since:DateTime64(6, 'UTC')} AND ts < {until:DateTime64(6, 'UTC')}
ORDER BY inbound_at, inbound_partition, inbound_offset, partition, offset, step`

// Journey is one audit event: a message's way through the stages (or a
// purge), with when each stage handled it.
type Journey struct {
	Sender           string        `json:"sender"`
	MsgId            string        `json:"msg_id"`
	Type             string        `json:"type"`
	Function         string        `json:"function"`
	InboundPartition int32         `json:"inbound_partition"`
	InboundOffset    int64         `json:"inbound_offset"`
	InboundAt        time.Time     `json:"inbound_at"`
	Outcome          string        `json:"outcome"`
	Reason           string        `json:"reason,omitempty"`
	Steps            []JourneyStep `json:"steps"`
	Outputs          []string      `json:"outputs,omitempty"`
}

// JourneyStep is one stage's handling.
type JourneyStep struct {
	Stage string    `json:"stage"`
	Event string    `json:"event"`
	At    time.Time `json:"at"`
}

// Total is the time from the inbound record to the last step (0 for a purge).
func (j Journey) Total() time.Duration {
	if len(j.Steps) == 0 || j.InboundPartition < 0 {
		return 0
	}
	return j.Steps[len(j.Steps)-1].At.Sub(j.InboundAt)
}

// JourneysResult is a trade's journeys, in arrival order.
type JourneysResult struct {
	Namespace string    `json:"namespace"`
	TradeKey  string    `json:"trade_key"`
	Journeys  []Journey `json:"journeys"`
}

// Journeys reads the audit journeys of one trade.
func Journeys(ctx context.Context, st *store.Store, p Params, tradeKey string) (*JourneysResult, error) {
	r, err := query(ctx, st, JourneysSQL, p, map[string]string{"trade": tradeKey})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	res := &JourneysResult{Namespace: p.Namespace, TradeKey: tradeKey, Journeys: []Journey{}}
	// A journey is one event of an audit record: the record's place and the
	// event's inbound record (a record holds a batch of events, and two
	// messages of a trade can share one).
	type at struct {
		p, inP int32
		o, inO int64
	}
	var last at
	for r.Next() {
		var j Journey
		var rec at
		var step uint8
		var s JourneyStep
		var outputs []string
		if err := r.Scan(&rec.p, &rec.o, &j.Sender, &j.MsgId, &j.Type, &j.Function, &j.InboundPartition, &j.InboundOffset,
			&j.InboundAt, &j.Outcome, &j.Reason, &step, &s.Stage, &s.Event, &s.At, &outputs); err != nil {
			return nil, err
		}
		rec.inP, rec.inO = j.InboundPartition, j.InboundOffset
		// One event is several rows, one per step (the outputs on the
		// last); a record stored twice (a replayed batch) reads once.
		if len(res.Journeys) == 0 || rec != last {
			res.Journeys = append(res.Journeys, j)
			last = rec
		}
		cur := &res.Journeys[len(res.Journeys)-1]
		if int(step) < len(cur.Steps) {
			continue
		}
		if s.Stage != "" {
			cur.Steps = append(cur.Steps, s)
		}
		if len(outputs) > 0 {
			cur.Outputs = outputs
		}
	}
	return res, r.Err()
}

// WriteText prints one line per step.
func (j *JourneysResult) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "namespace %s — trade %s: %d audit events\n", j.Namespace, j.TradeKey, len(j.Journeys))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "message\tinbound\tstage\tevent\tafter\n")
	for _, jr := range j.Journeys {
		for _, s := range jr.Steps {
			after := "-" // a purge has no inbound record
			if jr.InboundPartition >= 0 {
				after = s.At.Sub(jr.InboundAt).Round(time.Microsecond).String()
			}
			fmt.Fprintf(tw, "%s:%s\t%d/%d\t%s\t%s\t%s\n", jr.Sender, jr.MsgId, jr.InboundPartition, jr.InboundOffset,
				s.Stage, s.Event, after)
		}
	}
	return tw.Flush()
}
