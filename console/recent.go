package console

import (
	"bytes"
	"context"
	"sort"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topology"
)

// The Trades page without a query lists the trades whose status changed
// last — each a link, and a key or TradeRef to search by — read from the
// STATUS records at the end of <ns>.outbound: an operator opening the page
// for the first time sees what there is to look at.

// recentTrade is one trade a recent STATUS named.
type recentTrade struct {
	TradeKey, TradeRef, Status string
	At                         time.Time
}

const (
	recentTrades   = 20  // listed
	recentPerPart  = 400 // outbound records read back per partition
	recentDeadline = 3 * time.Second
)

// recent reads the last STATUS records of every partition of <ns>.outbound
// and returns the latest of each trade, newest first; with status, only the
// trades whose latest is of that value.
func (c *collector) recent(ctx context.Context, status string) ([]recentTrade, error) {
	ctx, cancel := context.WithTimeout(ctx, recentDeadline)
	defer cancel()
	topic := topology.Names{NS: c.ns}.Outbound()
	ends, err := c.adm.ListEndOffsets(ctx, topic)
	if err != nil {
		return nil, err
	}
	starts, err := c.adm.ListStartOffsets(ctx, topic)
	if err != nil {
		return nil, err
	}
	from := map[int32]kgo.Offset{}
	left := map[int32]int64{}
	ends.Each(func(o kadm.ListedOffset) {
		s, _ := starts.Lookup(topic, o.Partition)
		if o.Err != nil || o.Offset <= s.Offset {
			return
		}
		at := max(s.Offset, o.Offset-recentPerPart)
		from[o.Partition], left[o.Partition] = kgo.NewOffset().At(at), o.Offset
	})
	if len(from) == 0 {
		return nil, nil
	}
	cl, err := topics.Client(c.kafka, kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: from}))
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	byKey := map[string]recentTrade{}
	for len(left) > 0 && ctx.Err() == nil {
		fs := cl.PollFetches(ctx)
		fs.EachRecord(func(r *kgo.Record) {
			if r.Offset+1 >= left[r.Partition] {
				delete(left, r.Partition)
			}
			t, ok := statusOfRecord(r.Value)
			if !ok {
				return
			}
			t.At = r.Timestamp.UTC()
			if old, ok := byKey[t.TradeKey]; !ok || !t.At.Before(old.At) {
				byKey[t.TradeKey] = t
			}
		})
	}
	out := make([]recentTrade, 0, len(byKey))
	for _, t := range byKey {
		if status == "" || t.Status == status {
			out = append(out, t)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].At.Equal(out[j].At) {
			return out[i].At.After(out[j].At)
		}
		return out[i].TradeKey < out[j].TradeKey
	})
	return out[:min(len(out), recentTrades)], nil
}

// statusOfRecord reads a STATUS output's trade key, TradeRef and status.
func statusOfRecord(v []byte) (recentTrade, bool) {
	if !bytes.Contains(v, []byte("<MsgType>STATUS</MsgType>")) {
		return recentTrade{}, false
	}
	t := recentTrade{TradeKey: element(v, "TradeKey"), TradeRef: element(v, "TradeRef"), Status: element(v, "Status")}
	return t, t.TradeKey != "" && t.Status != ""
}

// element is the text of the first <name> element of v ("" if none).
func element(v []byte, name string) string {
	_, after, ok := bytes.Cut(v, []byte("<"+name+">"))
	if !ok {
		return ""
	}
	text, _, ok := bytes.Cut(after, []byte("</"+name+">"))
	if !ok || len(text) > 64 {
		return ""
	}
	return string(text)
}
