package report

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/ste-utility/ste/analytics/store"
)

// The allegements report (issue 46; docs/analytics.md): who answers the
// allegements of messages.md §5a late. An allegement is a receiver's ALGs of
// one trade (<ns>.outbound, msg_type ALG): it starts with the first ALG NEW
// and is answered when the receiver's last ALG of the trade is an ALG
// CANCEL — the utility withdraws it when the owed message arrived (or when
// the trade locked, was cancelled or purged, or the message that started it
// left force: the contract's reasons, which outputs do not tell apart). Its
// age is the time from the first ALG NEW to that withdrawal, or to now while
// it is outstanding. Late: withdrawn after the trade's market cutoff, or
// still outstanding past it (the market and cutoff the match stage wrote on
// the trade's audit rows, as the timeliness report reads them). An
// allegement is in range when its first ALG NEW was sent in it.

// AllegementsSQL is the report per receiver and market.
const AllegementsSQL = `WITH alg AS (
    SELECT trade_key, receiver,
           minIf(ts, function = 'NEW') AS first_at,
           argMax(function, toUInt32OrZero(splitByChar(':', msg_id)[3])) AS last_fn,
           maxIf(ts, function = 'CANCEL') AS answered_at
    FROM ste.outbound
    WHERE namespace = {ns:String} AND msg_type = 'ALG' AND trade_key != ''
    GROUP BY trade_key, receiver
    HAVING countIf(function = 'NEW') > 0
       AND first_at >= {since:DateTime64(6, 'UTC')} AND first_at < {until:DateTime64(6, 'UTC')}
), mkt AS (
    SELECT trade_key, argMaxIf(market, at, market != '') AS mkt, argMaxIf(cutoff, at, market != '') AS cut
    FROM ste.audit
    WHERE namespace = {ns:String} AND step + 1 = steps AND trade_key != ''
    GROUP BY trade_key
), aged AS (
    SELECT a.receiver AS receiver, if(m.mkt = '', '-', m.mkt) AS market,
           a.last_fn = 'CANCEL' AS answered,
           dateDiff('millisecond', a.first_at, if(answered, a.answered_at, {now:DateTime64(6, 'UTC')})) AS age_ms,
           m.cut > toDateTime64(0, 3, 'UTC') AND if(answered, a.answered_at, {now:DateTime64(6, 'UTC')}) > m.cut AS late
    FROM alg AS a LEFT JOIN mkt AS m ON a.trade_key = m.trade_key
)
SELECT receiver, market, count() AS n, countIf(answered) AS n_answered, countIf(NOT answered) AS n_outstanding,
       ifNotFinite(medianIf(age_ms, answered) / 1000, 0) AS median_s,
       ifNotFinite(quantileIf(0.9)(age_ms, answered) / 1000, 0) AS p90_s,
       ifNotFinite(maxIf(age_ms, NOT answered) / 1000, 0) AS oldest_s,
       countIf(answered AND late) AS n_answered_late, countIf(NOT answered AND late) AS n_outstanding_late
FROM aged
GROUP BY receiver, market
ORDER BY n_answered_late + n_outstanding_late DESC, median_s DESC, receiver, market`

// AllegementsResult is the report.
type AllegementsResult struct {
	Namespace string `json:"namespace"`
	// AsOf is the instant outstanding ages and "past the cutoff" are
	// judged at: --until, or now.
	AsOf time.Time `json:"as_of"`
	// Rows are per participant and market, the latest answerers first.
	Rows  []AllegementsRow `json:"participants"`
	Total AllegementsRow   `json:"total"`
}

// AllegementsRow is one participant's allegements in one market.
type AllegementsRow struct {
	Participant string `json:"participant"`
	Market      string `json:"market"`
	Alleged     uint64 `json:"alleged"`
	Answered    uint64 `json:"answered"`
	Outstanding uint64 `json:"outstanding"`
	// MedianAnswer and P90Answer are the age of the answered ones at their
	// answer, OldestOutstanding the age of the oldest still owed, seconds.
	MedianAnswer      float64 `json:"median_seconds_to_answer"`
	P90Answer         float64 `json:"p90_seconds_to_answer"`
	OldestOutstanding float64 `json:"oldest_outstanding_seconds"`
	// AnsweredLate: withdrawn after the market cutoff; OutstandingLate:
	// still owed past it. Late is both.
	AnsweredLate    uint64 `json:"answered_after_cutoff"`
	OutstandingLate uint64 `json:"outstanding_past_cutoff"`
	Late            uint64 `json:"late"`
}

// Allegements runs the allegements report.
func Allegements(ctx context.Context, st *store.Store, p Params) (*AllegementsResult, error) {
	asOf := time.Now().UTC()
	if !p.Until.IsZero() && p.Until.Before(asOf) {
		asOf = p.Until.UTC()
	}
	res := &AllegementsResult{Namespace: p.Namespace, AsOf: asOf, Rows: []AllegementsRow{},
		Total: AllegementsRow{Participant: "all", Market: "all"}}
	r, err := query(ctx, st, AllegementsSQL, p, map[string]string{"now": asOf.Format("2006-01-02 15:04:05.000000")})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	t := &res.Total
	for r.Next() {
		var x AllegementsRow
		var median, p90, oldest float64
		if err := r.Scan(&x.Participant, &x.Market, &x.Alleged, &x.Answered, &x.Outstanding, &median, &p90, &oldest,
			&x.AnsweredLate, &x.OutstandingLate); err != nil {
			return nil, err
		}
		x.MedianAnswer, x.P90Answer, x.OldestOutstanding = median, p90, oldest
		x.Late = x.AnsweredLate + x.OutstandingLate
		res.Rows = append(res.Rows, x)
		t.Alleged, t.Answered, t.Outstanding = t.Alleged+x.Alleged, t.Answered+x.Answered, t.Outstanding+x.Outstanding
		t.AnsweredLate, t.OutstandingLate, t.Late = t.AnsweredLate+x.AnsweredLate, t.OutstandingLate+x.OutstandingLate, t.Late+x.Late
		t.OldestOutstanding = max(t.OldestOutstanding, x.OldestOutstanding)
	}
	return res, r.Err()
}

// WriteText prints the total, then one row per participant and market,
// the latest answerers first.
func (a *AllegementsResult) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "namespace %s — allegements (ALG) by the participant alleged, latest answerers first; ages and cutoffs as of %s UTC\n",
		a.Namespace, fmtTime(a.AsOf))
	if len(a.Rows) == 0 {
		fmt.Fprintln(w, "no allegement in this range")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "participant\tmarket\talleged\tanswered\toutstanding\tmedian to answer\tp90 to answer\toldest outstanding\tanswered after cutoff\toutstanding past cutoff\t\n")
	for _, x := range append(a.Rows, a.Total) {
		median, p90 := secs(x.MedianAnswer, x.Answered), secs(x.P90Answer, x.Answered)
		if x.Participant == "all" {
			median, p90 = "", ""
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%s\t%s\t%s\t%d\t%d\t\n", x.Participant, x.Market, x.Alleged, x.Answered, x.Outstanding,
			median, p90, secs(x.OldestOutstanding, x.Outstanding), x.AnsweredLate, x.OutstandingLate)
	}
	return tw.Flush()
}
