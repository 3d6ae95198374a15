package lookup

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ste-utility/ste/instance/api"
	"github.com/ste-utility/ste/processors/query"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/date"
	"github.com/ste-utility/ste/topics"
)

// PathQueue ?party=P&limit=N[&date=D][&status=S,…][&lifecycle=L,…][&owes=true]
// [&at_risk=true][&after=DATE.KEY]&now=T&lead=DUR: a page of P's work
// queue (gateway.md v2 §4c) from the partitions the instance owns.
const PathQueue = "/queue"

// QueueValues is q as the parameters of PathQueue.
func QueueValues(q query.QueueQuery) url.Values {
	v := url.Values{"party": {q.Party}, "limit": {strconv.Itoa(q.Limit)},
		"now": {q.Now.UTC().Format(time.RFC3339Nano)}, "lead": {q.Lead.String()}}
	if q.Date != "" {
		v.Set("date", q.Date)
	}
	if len(q.Status) > 0 {
		v.Set("status", strings.Join(q.Status, ","))
	}
	if len(q.Lifecycle) > 0 {
		v.Set("lifecycle", strings.Join(q.Lifecycle, ","))
	}
	if q.Owes {
		v.Set("owes", "true")
	}
	if q.AtRisk {
		v.Set("at_risk", "true")
	}
	if q.After != nil {
		v.Set("after", q.After.Date.String()+"."+q.After.Key.String())
	}
	return v
}

// ParseQueue reads the parameters of PathQueue (the instance's side).
func ParseQueue(v url.Values) (query.QueueQuery, error) {
	q := query.QueueQuery{Party: v.Get("party"), Date: v.Get("date"), Owes: v.Get("owes") == "true", AtRisk: v.Get("at_risk") == "true"}
	var err error
	if q.Limit, err = strconv.Atoi(v.Get("limit")); err != nil {
		return q, query.ErrBadQueue
	}
	if s := v.Get("status"); s != "" {
		q.Status = strings.Split(s, ",")
	}
	if s := v.Get("lifecycle"); s != "" {
		q.Lifecycle = strings.Split(s, ",")
	}
	if q.Now, err = time.Parse(time.RFC3339Nano, v.Get("now")); err != nil {
		return q, query.ErrBadQueue
	}
	if q.Lead, err = time.ParseDuration(v.Get("lead")); err != nil || q.Lead < 0 {
		return q, query.ErrBadQueue
	}
	if a := v.Get("after"); a != "" {
		ds, ks, _ := strings.Cut(a, ".")
		d, err := date.Parse(ds)
		k, ok := schemas.ParseTradeKey(ks)
		if err != nil || !ok {
			return q, query.ErrBadQueue
		}
		q.After = &query.QueuePos{Date: d, Key: k}
	}
	return q, nil
}

// Queue is a page of a participant's work queue (gateway.md v2 §4c): the
// first q.Limit of its trades after q.After that pass the filters, by
// TradeDate then trade key, asked of every instance owning match
// partitions (each answers the first q.Limit of its own) and merged. Only
// a whole answer is returned: when a partition has no trusted owner, or an
// owner does not answer or answers for partitions it does not own, the
// error says so and nothing is returned (a page missing some partitions
// would look complete).
func (c *Client) Queue(ctx context.Context, q query.QueueQuery) ([]query.QueueTrade, error) {
	if q.Party == "" || q.Limit < 1 || q.Limit > query.MaxQueueLimit {
		return nil, query.ErrBadQueue
	}
	fresh := false
	for attempt := 0; ; attempt++ {
		r, err := c.Routing(ctx, fresh)
		if err != nil {
			return nil, err
		}
		out, moved, err := c.queue(ctx, r, q)
		if moved && attempt == 0 {
			fresh = true // a partition moved since the routing was read
			continue
		}
		return out, err
	}
}

func (c *Client) queue(ctx context.Context, r *Routing, q query.QueueQuery) (_ []query.QueueTrade, moved bool, _ error) {
	for _, p := range r.Problems {
		if strings.HasPrefix(p, "no trusted owner") {
			return nil, false, fmt.Errorf("%w: %s", ErrNoOwner, p)
		}
	}
	v := QueueValues(q)
	type res struct {
		found []posTrade
		moved bool
		err   error
	}
	out := make([]res, len(r.Owners))
	var wg sync.WaitGroup
	for i, o := range r.Owners {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ans, err := c.askQueue(ctx, o, v)
			if err != nil {
				out[i].err = err
				return
			}
			for _, p := range o.Partitions {
				if !slices.Contains(ans.Owned, p) {
					out[i].moved = true
					out[i].err = fmt.Errorf("%w (instance %s no longer owns partition %d)", ErrNoOwner, o.ID, p)
				}
			}
			for _, f := range ans.Trades {
				// A trade is believed from the owner of its partition only,
				// and only as a trade of the party asking.
				if !slices.Contains(o.Partitions, f.Partition) || topics.PartitionOf(f.Trade.TradeKey, r.Partitions) != f.Partition {
					out[i].err = fmt.Errorf("%w: instance %s answered with a trade of partition %d", ErrAnswer, o.ID, f.Partition)
					continue
				}
				pos, ok := f.Trade.Pos()
				if !ok {
					out[i].err = fmt.Errorf("%w: instance %s answered with a trade of no position", ErrAnswer, o.ID)
					continue
				}
				out[i].found = append(out[i].found, posTrade{pos, f.Trade})
			}
		}()
	}
	wg.Wait()
	var found []posTrade
	var errs []error
	for _, x := range out {
		moved = moved || x.moved
		if x.err != nil {
			errs = append(errs, x.err)
		}
		found = append(found, x.found...)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, moved, err
	}
	// Each trade's position is read once, not at each comparison.
	slices.SortFunc(found, func(a, b posTrade) int { return a.pos.Compare(b.pos) })
	trades := make([]query.QueueTrade, 0, min(len(found), q.Limit))
	for _, f := range found[:min(len(found), q.Limit)] {
		trades = append(trades, f.trade)
	}
	return trades, false, nil
}

// posTrade is a queue trade and its position, read from it once.
type posTrade struct {
	pos   query.QueuePos
	trade query.QueueTrade
}

// askQueue asks owner o for PathQueue?q and decodes its 200 answer, whose
// "instance" must be o's id; a 503 is ErrRecovering. The answer is read
// once, into its type (it was read three times — as raw JSON, for its
// instance, then whole —, more than half of the gateway's CPU for a page).
func (c *Client) askQueue(ctx context.Context, o Owner, q url.Values) (api.QueueAnswer, error) {
	var ans api.QueueAnswer
	u := url.URL{Scheme: "http", Host: o.Addr, Path: PathQueue, RawQuery: q.Encode()}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return ans, err
	}
	Authorize(req, c.o.Token)
	resp, err := c.http.Do(req)
	if err != nil {
		return ans, fmt.Errorf("instance %s: %w", o.ID, err)
	}
	defer drained(resp.Body)
	switch resp.StatusCode {
	case http.StatusOK:
	case http.StatusServiceUnavailable:
		return ans, fmt.Errorf("instance %s: %w", o.ID, ErrRecovering)
	default:
		return ans, fmt.Errorf("instance %s: %s", o.ID, resp.Status)
	}
	if err := json.NewDecoder(Capped(resp.Body, MaxAnswer)).Decode(&ans); err != nil {
		return ans, fmt.Errorf("instance %s: %w: %v", o.ID, ErrAnswer, err)
	}
	if ans.Instance != o.ID {
		return ans, fmt.Errorf("%w: the lookup listener of instance %s answered as %q", ErrAnswer, o.ID, short(ans.Instance))
	}
	return ans, nil
}
