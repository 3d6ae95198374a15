package lookup

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/ste-utility/ste/processors/query"
)

// readQueueEntry's pass over the bytes reads the position encoding/json
// reads, whatever else the entry holds, however it is spaced or ordered;
// what it cannot read plainly it leaves to encoding/json.
func TestReadQueueEntryAsDecoded(t *testing.T) {
	var raws []string
	for i := range 50 {
		tr := query.QueueTrade{TradeKey: fmt.Sprintf("%016x", uint64(i)*0x9e3779b97f4a7c15), TradeDate: fmt.Sprintf("2026-12-%02d", 1+i%28),
			TradeRef: `R"e}f]\,` + fmt.Sprint(i), ISIN: "<&>\u2028", CLSVersion: i, AtRisk: i%2 == 0,
			FailingCriteria: []int{i, 2}, Owes: []query.QueueOwed{{MsgType: "ALC", Account: `A"}`, Count: i}}}
		if i%3 == 0 {
			tr.Owes, tr.FailingCriteria = nil, []int{}
		}
		e, err := tr.Entry()
		if err != nil {
			t.Fatal(err)
		}
		var spaced bytes.Buffer
		json.Indent(&spaced, e.JSON, " ", "\t")
		raws = append(raws, string(e.JSON), spaced.String())
	}
	for _, raw := range raws { // the queue's own encoding, read by the pass
		if _, _, ok := queuePosFields([]byte(raw)); !ok {
			t.Fatalf("%s: left to encoding/json", raw)
		}
	}
	raws = append(raws,
		`{"cls_version":3,"trade_date":"2026-12-06","x":[{"a":"}"},-1.5e3,null,true],"trade_key":"0123456789abcdef"}`,
		`{"trade_key":"0123456789abcdef","trade_d\u0061te":"2026-12-06"}`, // an escape in a name
		`{"trade_key":"0123456789abcde\u0066","trade_date":"2026-12-06"}`, // in a value
		`{"TRADE_KEY":"0123456789abcdef","trade_date":"2026-12-06"}`,      // encoding/json's case folding
		`{"trade_key":"0123456789abcdef"}`,
		`{"trade_key":"0123456789abcdef","trade_date":"2026-13-06"}`,
		`[1,2]`, `{}`, `{"trade_key":1,"trade_date":"2026-12-06"}`)
	for _, raw := range raws {
		var p struct {
			TradeKey  string `json:"trade_key"`
			TradeDate string `json:"trade_date"`
		}
		err := json.Unmarshal([]byte(raw), &p)
		want, wantOK := (&query.QueueTrade{TradeKey: p.TradeKey, TradeDate: p.TradeDate}).Pos()
		wantOK = wantOK && err == nil
		got, ok := readQueueEntry(json.RawMessage(raw))
		if ok != wantOK || ok && (got.Pos != want || string(got.JSON) != raw) {
			t.Errorf("%s: got %v %v, want %v %v", raw, got.Pos, ok, want, wantOK)
		}
	}
}

// readQueueAnswer's walk reads what encoding/json's decoder reads, each
// trade as the same bytes; it reads the instances' own encoding itself.
func TestReadQueueAnswerAsDecoded(t *testing.T) {
	body, _ := cannedAnswer(t, "a", []int32{0, 1, 2, 3}, 40)
	var spaced bytes.Buffer
	json.Indent(&spaced, body, "", "  ")
	for _, b := range [][]byte{body, spaced.Bytes()} {
		if _, ok := readQueueAnswer(b); !ok {
			t.Fatalf("%.200s: left to the decoder", b)
		}
	}
	for _, b := range []string{string(body), spaced.String(),
		`{"instance":"a","owned":[1,2],"trades":null}`,
		`{"instance":"a","owned":null,"trades":[],"x":{"trades":[1]}}`,
		`{"instance":"a","owned":[1],"trades":[{"partition":1,"trade":{"trade_key":"k"},"p":[]}]}`,
		`{"instance":"a","trades":[{"partition":1,"trade":{}}],"trades":[{"partition":2,"trade":[]}]}`,
		`{"Instance":"b","instance":"a","owned":[1]}`,
		`{"inst\u0061nce":"a"}`, `{"instance":"\u0061"}`,
		`{"instance":"a","trades":[{"partition":1.5}]}`, `{"instance":"a"} x`, `[]`, `{`} {
		var want queueAnswer
		wantErr := json.NewDecoder(bytes.NewReader([]byte(b))).Decode(&want)
		got, ok := readQueueAnswer([]byte(b))
		if !ok {
			continue // the decoder reads it
		}
		if wantErr != nil {
			t.Errorf("%.200s: walked, the decoder refuses it: %v", b, wantErr)
			continue
		}
		gj, _ := json.Marshal(got)
		wj, _ := json.Marshal(want)
		if !bytes.Equal(gj, wj) {
			t.Errorf("%.200s:\n got %.300s\nwant %.300s", b, gj, wj)
		}
		for i := range min(len(got.Trades), len(want.Trades)) {
			if !bytes.Equal(got.Trades[i].Trade, want.Trades[i].Trade) {
				t.Errorf("%.200s: trade %d is %s, decoded %s", b, i, got.Trades[i].Trade, want.Trades[i].Trade)
			}
		}
	}
}
