package report

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/ste-utility/ste/analytics/store"
	"github.com/ste-utility/ste/when"
)

// The timeliness scorecards (docs/timeliness.md). A trade is in range when
// its first message was sent in it; its market and cutoff are the last ones
// the match stage wrote on its audit rows (the market of its NOE in force by
// markets.csv then, '-' for none), from the rows of the stage that ended
// each journey, in the order it handled them. Trades the match stage never
// held (every message rejected before it) and rows written before schema 3
// carry no cutoff and are not scored. A trade is matched when a CLS of it
// stands (its newest version is not cancelled), matched in time when it is
// matched and its first CLS NEW's record time (when the utility emitted it)
// is at or before the cutoff, past cutoff unmatched when no CLS stands, the
// principals did not cancel it, and the cutoff has passed. A participant's rows are the trades
// it sent at least one message on.
//
// DTCC's affirmation metric (contract version 3, schema 4): a trade is
// affirmed when a STATUS with a locked value (AFFIRMED, CHANGE_PENDING,
// CANCEL_PENDING) was sent for it and it is not cancelled; affirmed by the
// cutoff when the first such STATUS's record time is at or before the
// cutoff. The share affirmed by the cutoff is over the trades that are not
// cancelled (a trade both principals cancelled is owed no affirmation).

// timelinessTrades is the per-trade CTE both queries share.
const timelinessTrades = `WITH trades AS (
    SELECT trade_key,
           min(inbound_at) AS first_at,
           argMaxIf(market, at, market != '') AS mkt,
           argMaxIf(cutoff, at, market != '') AS cut
    FROM ste.audit
    WHERE namespace = {ns:String} AND step + 1 = steps AND trade_key != '' AND outcome != 'expired'
    GROUP BY trade_key
    HAVING first_at >= {since:DateTime64(6, 'UTC')} AND first_at < {until:DateTime64(6, 'UTC')}
       AND cut > toDateTime64(0, 3, 'UTC')
), cls AS (
    SELECT trade_key, minIf(ts, function = 'NEW') AS matched_at,
           toUInt8(argMax(function, (version, function = 'CANCEL')) = 'NEW') AS has
    FROM ste.cls
    WHERE namespace = {ns:String}
    GROUP BY trade_key
), lc AS (
    SELECT trade_key,
           toUInt8(countIf(status IN ('AFFIRMED', 'CHANGE_PENDING', 'CANCEL_PENDING')) > 0) AS locked,
           minIf(ts, status IN ('AFFIRMED', 'CHANGE_PENDING', 'CANCEL_PENDING')) AS locked_at,
           toUInt8(countIf(status = 'CANCELLED') > 0) AS cancelled
    FROM ste.outbound
    WHERE namespace = {ns:String} AND msg_type = 'STATUS' AND trade_key != ''
    GROUP BY trade_key
), scored AS (
    SELECT t.trade_key AS trade_key, if(t.mkt = '', '-', t.mkt) AS market, t.first_at AS first_at, t.cut AS cut,
           toUInt8(c.has = 1) AS matched, c.matched_at AS matched_at,
           matched AND t.cut > toDateTime64(0, 3, 'UTC') AND c.matched_at <= t.cut AS in_time,
           toUInt8(l.cancelled = 1) AS cancelled,
           NOT matched AND NOT cancelled AND t.cut > toDateTime64(0, 3, 'UTC') AND t.cut < {now:DateTime64(6, 'UTC')} AS past,
           toUInt8(l.locked = 1 AND NOT cancelled) AS affirmed, l.locked_at AS affirmed_at,
           affirmed AND l.locked_at <= t.cut AS affirmed_in_time
    FROM trades AS t LEFT JOIN cls AS c ON t.trade_key = c.trade_key LEFT JOIN lc AS l ON t.trade_key = l.trade_key
)
`

// TimelinessSQL is the scorecard per participant and market.
const TimelinessSQL = timelinessTrades + `SELECT m.sender, s.market, sum(m.n) AS n_messages, count() AS n_trades,
    countIf(s.matched) AS n_matched, countIf(s.in_time) AS n_in_time,
    ifNotFinite(medianIf(dateDiff('millisecond', s.first_at, s.matched_at), s.matched) / 1000, 0) AS median_s,
    countIf(s.past) AS n_past,
    countIf(s.cancelled) AS n_cancelled, countIf(s.affirmed) AS n_affirmed, countIf(s.affirmed_in_time) AS n_affirmed_in_time,
    ifNotFinite(medianIf(dateDiff('millisecond', s.first_at, s.affirmed_at), s.affirmed) / 1000, 0) AS median_affirm_s
FROM (
    SELECT sender, trade_key, count() AS n
    FROM ste.audit
    WHERE namespace = {ns:String} AND step = 0 AND trade_key != '' AND outcome != 'expired'
    GROUP BY sender, trade_key
) AS m
INNER JOIN scored AS s ON m.trade_key = s.trade_key
GROUP BY m.sender, s.market
ORDER BY m.sender, s.market`

// TimelinessMarketsSQL is the same per market, each trade once.
const TimelinessMarketsSQL = timelinessTrades + `SELECT market, count() AS n_trades, countIf(matched) AS n_matched, countIf(in_time) AS n_in_time,
    ifNotFinite(medianIf(dateDiff('millisecond', first_at, matched_at), matched) / 1000, 0) AS median_s,
    countIf(past) AS n_past,
    countIf(cancelled) AS n_cancelled, countIf(affirmed) AS n_affirmed, countIf(affirmed_in_time) AS n_affirmed_in_time,
    ifNotFinite(medianIf(dateDiff('millisecond', first_at, affirmed_at), affirmed) / 1000, 0) AS median_affirm_s
FROM scored
GROUP BY market
ORDER BY market`

// TimelinessResult is the scorecards.
type TimelinessResult struct {
	Namespace string `json:"namespace"`
	// AsOf is the instant "past cutoff" is judged at: --until, or now.
	AsOf         time.Time          `json:"as_of"`
	Participants []TimelinessRow    `json:"participants"`
	Markets      []TimelinessMarket `json:"markets"`
	Total        TimelinessMarket   `json:"total"`
}

// TimelinessRow is one participant in one market.
type TimelinessRow struct {
	Participant string `json:"participant"`
	TimelinessMarket
	Messages uint64 `json:"messages"`
}

// TimelinessMarket is the figures of a set of trades.
type TimelinessMarket struct {
	Market  string `json:"market"`
	Trades  uint64 `json:"trades"`
	Matched uint64 `json:"matched"`
	InTime  uint64 `json:"matched_in_time"`
	// InTimeShare is InTime over Trades (0 without trades).
	InTimeShare float64 `json:"share_in_time"`
	// MedianToMatch is the median of first message to first CLS NEW over
	// the matched trades, in seconds.
	MedianToMatch float64 `json:"median_seconds_to_match"`
	PastCutoff    uint64  `json:"past_cutoff_unmatched"`
	// Version 3: DTCC's affirmation metric. Cancelled are the trades both
	// principals cancelled; Affirmed those locked (affirmed, not
	// cancelled), AffirmedInTime those locked at or before the cutoff, and
	// AffirmedShare AffirmedInTime over the trades not cancelled;
	// MedianToAffirm the median of first message to first lock, seconds.
	Cancelled      uint64  `json:"cancelled"`
	Affirmed       uint64  `json:"affirmed"`
	AffirmedInTime uint64  `json:"affirmed_by_cutoff"`
	AffirmedShare  float64 `json:"share_affirmed_by_cutoff"`
	MedianToAffirm float64 `json:"median_seconds_to_affirm"`
}

func (m *TimelinessMarket) share() {
	if m.Trades > 0 {
		m.InTimeShare = float64(m.InTime) / float64(m.Trades)
	}
	if m.Trades > m.Cancelled {
		m.AffirmedShare = float64(m.AffirmedInTime) / float64(m.Trades-m.Cancelled)
	}
}

// Timeliness runs the timeliness report.
func Timeliness(ctx context.Context, st *store.Store, p Params) (*TimelinessResult, error) {
	asOf := time.Now().UTC()
	if !p.Until.IsZero() && p.Until.Before(asOf) {
		asOf = p.Until.UTC()
	}
	extra := map[string]string{"now": asOf.Format("2006-01-02 15:04:05.000000")}
	res := &TimelinessResult{Namespace: p.Namespace, AsOf: asOf, Participants: []TimelinessRow{}, Markets: []TimelinessMarket{},
		Total: TimelinessMarket{Market: "all"}}
	r, err := query(ctx, st, TimelinessSQL, p, extra)
	if err != nil {
		return nil, err
	}
	for r.Next() {
		var x TimelinessRow
		if err := r.Scan(&x.Participant, &x.Market, &x.Messages, &x.Trades, &x.Matched, &x.InTime, &x.MedianToMatch, &x.PastCutoff,
			&x.Cancelled, &x.Affirmed, &x.AffirmedInTime, &x.MedianToAffirm); err != nil {
			r.Close()
			return nil, err
		}
		x.share()
		res.Participants = append(res.Participants, x)
	}
	if err := r.Err(); err != nil {
		r.Close()
		return nil, err
	}
	r.Close()
	if r, err = query(ctx, st, TimelinessMarketsSQL, p, extra); err != nil {
		return nil, err
	}
	defer r.Close()
	var medians, weights, affirmMedians, affirmWeights float64
	for r.Next() {
		var x TimelinessMarket
		if err := r.Scan(&x.Market, &x.Trades, &x.Matched, &x.InTime, &x.MedianToMatch, &x.PastCutoff,
			&x.Cancelled, &x.Affirmed, &x.AffirmedInTime, &x.MedianToAffirm); err != nil {
			return nil, err
		}
		x.share()
		res.Markets = append(res.Markets, x)
		t := &res.Total
		t.Trades, t.Matched, t.InTime, t.PastCutoff = t.Trades+x.Trades, t.Matched+x.Matched, t.InTime+x.InTime, t.PastCutoff+x.PastCutoff
		t.Cancelled, t.Affirmed, t.AffirmedInTime = t.Cancelled+x.Cancelled, t.Affirmed+x.Affirmed, t.AffirmedInTime+x.AffirmedInTime
		medians, weights = medians+x.MedianToMatch*float64(x.Matched), weights+float64(x.Matched)
		affirmMedians, affirmWeights = affirmMedians+x.MedianToAffirm*float64(x.Affirmed), affirmWeights+float64(x.Affirmed)
	}
	res.Total.share()
	if weights > 0 {
		// The medians' mean weighted by matched trades: the whole set's
		// median would need a third query for one figure of the total line.
		res.Total.MedianToMatch = medians / weights
	}
	if affirmWeights > 0 {
		res.Total.MedianToAffirm = affirmMedians / affirmWeights
	}
	return res, r.Err()
}

// WriteText prints the per-market totals, then one row per participant and
// market.
func (t *TimelinessResult) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "namespace %s — timeliness against market cutoffs (markets.csv), past cutoff as of %s UTC\n", t.Namespace, fmtTime(t.AsOf))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "market\ttrades\tmatched\tin time\tshare in time\tmedian to match\tpast cutoff unmatched\taffirmed\tby cutoff\tshare affirmed by cutoff\tmedian to affirm\tcancelled\t\n")
	for _, m := range append(t.Markets, t.Total) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.1f%%\t%s\t%d\t%d\t%d\t%.1f%%\t%s\t%d\t\n", m.Market, m.Trades, m.Matched, m.InTime, 100*m.InTimeShare,
			secs(m.MedianToMatch, m.Matched), m.PastCutoff, m.Affirmed, m.AffirmedInTime, 100*m.AffirmedShare, secs(m.MedianToAffirm, m.Affirmed), m.Cancelled)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "participant\tmarket\tmessages\ttrades\tmatched\tin time\tshare in time\tmedian to match\tpast cutoff unmatched\taffirmed\tby cutoff\tshare affirmed by cutoff\tcancelled\t\n")
	for _, x := range t.Participants {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%.1f%%\t%s\t%d\t%d\t%d\t%.1f%%\t%d\t\n", x.Participant, x.Market, x.Messages, x.Trades, x.Matched, x.InTime,
			100*x.InTimeShare, secs(x.MedianToMatch, x.Matched), x.PastCutoff, x.Affirmed, x.AffirmedInTime, 100*x.AffirmedShare, x.Cancelled)
	}
	return tw.Flush()
}

func secs(s float64, n uint64) string {
	if n == 0 {
		return "-"
	}
	return when.Human(time.Duration(s * float64(time.Second)))
}
