package query

import (
	"bytes"
	"testing"
)

// The page of entries is the page encoding/json writes from the trades.
func TestAppendQueuePage(t *testing.T) {
	trades := []QueueTrade{{TradeKey: "0123456789abcdef", TradeDate: "2026-12-06", TradeRef: "<&>"},
		{TradeKey: "1123456789abcdef", TradeDate: "2026-12-07", Owes: []QueueOwed{{MsgType: "SET"}}}}
	for n := range len(trades) + 1 {
		es, err := QueueEntries(trades[:n])
		if err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		NewQueueEncoder(&want).Encode(struct {
			Trades []QueueTrade `json:"trades"`
			Next   string       `json:"next"`
		}{trades[:n], "MQ"})
		if got := AppendQueuePage(nil, es, "MQ"); !bytes.Equal(got, want.Bytes()) {
			t.Errorf("got %s\nwant %s", got, want.Bytes())
		}
	}
}
