package lookup

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

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

// QueuePage is a page of a participant's work queue (gateway.md v2 §4c):
// the first q.Limit of its trades after q.After that pass the filters, by
// TradeDate then trade key, asked of every instance owning match
// partitions (each answers the first q.Limit of its own) and merged. Each
// trade is its JSON as its instance wrote it (query.QueueEntry), with its
// position: only what the merge needs is decoded. Only a whole answer is
// returned: when a partition has no trusted owner, or an owner does not
// answer or answers for partitions it does not own, the error says so and
// nothing is returned (a page missing some partitions would look complete).
func (c *Client) QueuePage(ctx context.Context, q query.QueueQuery) ([]query.QueueEntry, error) {
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

// Queue is QueuePage with each trade decoded.
func (c *Client) Queue(ctx context.Context, q query.QueueQuery) ([]query.QueueTrade, error) {
	es, err := c.QueuePage(ctx, q)
	if err != nil {
		return nil, err
	}
	out := make([]query.QueueTrade, 0, len(es))
	for _, e := range es {
		t, err := e.Trade()
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

func (c *Client) queue(ctx context.Context, r *Routing, q query.QueueQuery) (_ []query.QueueEntry, moved bool, _ error) {
	for _, p := range r.Problems {
		if strings.HasPrefix(p, "no trusted owner") {
			return nil, false, fmt.Errorf("%w: %s", ErrNoOwner, p)
		}
	}
	v := QueueValues(q)
	type res struct {
		found []query.QueueEntry
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
			out[i].found, out[i].moved, out[i].err = ans.entries(o, r.Partitions)
		}()
	}
	wg.Wait()
	var lists [][]query.QueueEntry
	var errs []error
	for _, x := range out {
		moved = moved || x.moved
		if x.err != nil {
			errs = append(errs, x.err)
		}
		lists = append(lists, x.found)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, moved, err
	}
	return mergeQueue(lists, q.Limit), false, nil
}

// mergeQueue is the first limit of the owners' entries, by position (read
// once, not at each comparison).
func mergeQueue(lists [][]query.QueueEntry, limit int) []query.QueueEntry {
	found := slices.Concat(lists...)
	slices.SortFunc(found, func(a, b query.QueueEntry) int { return a.Pos.Compare(b.Pos) })
	n := min(len(found), limit)
	return found[:n:n]
}

// entries are the trades of owner o's answer, each with its position,
// read from its JSON (the rest of it is not decoded). A trade is believed
// from the owner of its partition only, and only as a trade of the party
// asking; moved is whether o no longer owns one of its partitions.
func (ans *queueAnswer) entries(o Owner, partitions int32) (found []query.QueueEntry, moved bool, err error) {
	for _, p := range o.Partitions {
		if !slices.Contains(ans.Owned, p) {
			moved = true
			err = fmt.Errorf("%w (instance %s no longer owns partition %d)", ErrNoOwner, o.ID, p)
		}
	}
	found = make([]query.QueueEntry, 0, len(ans.Trades))
	for _, f := range ans.Trades {
		e, ok := readQueueEntry(f.Trade)
		if !ok {
			err = fmt.Errorf("%w: instance %s answered with a trade of no position", ErrAnswer, o.ID)
			continue
		}
		if !slices.Contains(o.Partitions, f.Partition) || topics.PartitionOf(e.Pos.Key.String(), partitions) != f.Partition {
			err = fmt.Errorf("%w: instance %s answered with a trade of partition %d", ErrAnswer, o.ID, f.Partition)
			continue
		}
		found = append(found, e)
	}
	return found, moved, err
}

// queueAnswer is api.QueueAnswer as the gateway reads it: each trade kept
// as its JSON, to be copied into the page.
type queueAnswer struct {
	Instance string           `json:"instance"`
	Owned    []int32          `json:"owned"`
	Trades   []queueFoundJSON `json:"trades"`
}

// queueFoundJSON is api.QueueFound, its trade as its JSON.
type queueFoundJSON struct {
	Partition int32           `json:"partition"`
	Trade     json.RawMessage `json:"trade"`
}

// askQueue asks owner o for PathQueue?q and decodes its 200 answer, whose
// "instance" must be o's id; a 503 is ErrRecovering. The answer is read
// once (it was read three times — as raw JSON, for its instance, then
// whole —, more than half of the gateway's CPU for a page), its trades
// kept as their JSON (decodeQueueAnswer).
func (c *Client) askQueue(ctx context.Context, o Owner, q url.Values) (queueAnswer, error) {
	var ans queueAnswer
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
	return decodeQueueAnswer(Capped(resp.Body, MaxAnswer), o)
}

// decodeQueueAnswer reads owner o's answer, whose "instance" must be o's id.
// Read plainly (readQueueAnswer), each trade is its bytes in the answer's:
// one pass of encoding/json's scanner, where its decoder made two and
// copied each trade.
func decodeQueueAnswer(r io.Reader, o Owner) (queueAnswer, error) {
	body, err := io.ReadAll(r)
	if err != nil {
		return queueAnswer{}, fmt.Errorf("instance %s: %w: %v", o.ID, ErrAnswer, err)
	}
	ans, ok := readQueueAnswer(body)
	if !ok {
		ans = queueAnswer{}
		if err := json.NewDecoder(bytes.NewReader(body)).Decode(&ans); err != nil {
			return ans, fmt.Errorf("instance %s: %w: %v", o.ID, ErrAnswer, err)
		}
	}
	if ans.Instance != o.ID {
		return ans, fmt.Errorf("%w: the lookup listener of instance %s answered as %q", ErrAnswer, o.ID, short(ans.Instance))
	}
	return ans, nil
}
