package lookup

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/ste-utility/ste/processors/query"
)

// The gateway's side of the work queue's pass-through (query.QueueEntry):
// an instance's answer read in one pass of encoding/json's scanner (its
// check) and one light walk that takes each trade's partition, position
// and bytes, decoding nothing else. Whatever the walk does not read
// plainly is left to encoding/json, as before.

// readQueueEntry reads an entry's position from its JSON (a queue trade
// object, valid JSON: the answer's decoder checked it): trade_date and
// trade_key only, in one pass over the bytes that decodes nothing else
// (json.Unmarshal of the two fields was most of the gateway's CPU for a
// page); what that pass does not read plainly (an escape in a name or in
// those values, a field missing) is left to encoding/json. raw is kept,
// not copied.
func readQueueEntry(raw json.RawMessage) (query.QueueEntry, bool) {
	key, day, ok := queuePosFields(raw)
	if !ok {
		var p struct {
			TradeKey  string `json:"trade_key"`
			TradeDate string `json:"trade_date"`
		}
		if err := json.Unmarshal(raw, &p); err != nil {
			return query.QueueEntry{}, false
		}
		key, day = []byte(p.TradeKey), []byte(p.TradeDate)
	}
	t := query.QueueTrade{TradeKey: string(key), TradeDate: string(day)}
	pos, ok := t.Pos()
	return query.QueueEntry{Pos: pos, JSON: raw}, ok
}

// queuePosFields is the values of trade_key and trade_date in the JSON
// object b (valid JSON), skipping the other members' values unread; ok is
// false when it cannot say plainly (an escape in a member's name or in
// those values, either missing, b not an object).
func queuePosFields(b []byte) (key, day []byte, ok bool) {
	i := jsonSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, nil, false
	}
	for i++; ; {
		i = jsonSpace(b, i)
		if i >= len(b) {
			return nil, nil, false
		}
		switch b[i] {
		case '}':
			return key, day, key != nil && day != nil
		case ',':
			i++
			continue
		}
		name, j, plain := jsonPlainString(b, i)
		if !plain {
			return nil, nil, false
		}
		if i = jsonSpace(b, j); i >= len(b) || b[i] != ':' {
			return nil, nil, false
		}
		i = jsonSpace(b, i+1)
		switch string(name) {
		case "trade_key", "trade_date":
			v, j, plain := jsonPlainString(b, i)
			if !plain {
				return nil, nil, false
			}
			if string(name) == "trade_key" {
				key = v
			} else {
				day = v
			}
			i = j
		default:
			if i = jsonSkipValue(b, i); i < 0 {
				return nil, nil, false
			}
		}
	}
}

func jsonSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// jsonPlainString is the string at b[i] without its quotes and the index
// past it; plain is false when it is not a string or holds an escape.
func jsonPlainString(b []byte, i int) (s []byte, next int, plain bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, i, false
	}
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			return nil, j, false
		case '"':
			return b[i+1 : j], j + 1, true
		}
	}
	return nil, len(b), false
}

// jsonSkipValue is the index past the value at b[i] (-1: b ends in it).
func jsonSkipValue(b []byte, i int) int {
	depth := 0
	for ; i < len(b); i++ {
		switch c := b[i]; c {
		case '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
			if i >= len(b) {
				return -1
			}
			if depth == 0 {
				return i + 1
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return i // the end of the object holding a literal
			}
			if depth--; depth == 0 {
				return i + 1
			}
		case ',', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return i // past a number or a literal
			}
		}
	}
	return -1
}

// readQueueAnswer reads an instance's answer, b (api.QueueAnswer's JSON):
// checked whole by encoding/json's scanner, then walked, each trade kept as
// its bytes in b. ok is false when the walk cannot read it plainly; the
// decoder reads it then.
func readQueueAnswer(b []byte) (ans queueAnswer, ok bool) {
	if !json.Valid(b) {
		return ans, false
	}
	ok = jsonMembers(b, func(name, v []byte) bool {
		switch string(name) {
		case "instance":
			s, _, plain := jsonPlainString(v, 0)
			ans.Instance = string(s)
			return plain
		case "owned":
			return json.Unmarshal(v, &ans.Owned) == nil
		case "trades":
			if ans.Trades = nil; string(v) == "null" {
				return true
			}
			ans.Trades = make([]queueFoundJSON, 0, 128)
			return jsonElems(v, func(e []byte) bool {
				var f queueFoundJSON
				ok := jsonMembers(e, func(name, v []byte) bool {
					switch string(name) {
					case "partition":
						p, err := strconv.ParseInt(string(v), 10, 32)
						f.Partition = int32(p)
						return err == nil
					case "trade":
						f.Trade = v
						return true
					}
					return !foldsTo(name, "partition", "trade")
				})
				ans.Trades = append(ans.Trades, f)
				return ok
			})
		}
		return !foldsTo(name, "instance", "owned", "trades")
	})
	return ans, ok
}

// foldsTo: encoding/json would read name as one of names (its names match
// without regard to case); the walk leaves such an answer to it.
func foldsTo(name []byte, names ...string) bool {
	for _, n := range names {
		if bytes.EqualFold(name, []byte(n)) {
			return true
		}
	}
	return false
}

// jsonMembers calls f with each member of the object b (valid JSON) and
// its value's bytes, while f is true; false when b is not an object, a
// name holds an escape, or f said false.
func jsonMembers(b []byte, f func(name, v []byte) bool) bool {
	return jsonItems(b, '{', '}', func(i int) int {
		name, j, plain := jsonPlainString(b, i)
		if !plain {
			return -1
		}
		if i = jsonSpace(b, j); i >= len(b) || b[i] != ':' {
			return -1
		}
		i = jsonSpace(b, i+1)
		end := jsonSkipValue(b, i)
		if end < 0 || !f(name, b[i:end]) {
			return -1
		}
		return end
	})
}

// jsonElems calls f with each element of the array b (valid JSON) while f
// is true; false when b is not an array or f said false.
func jsonElems(b []byte, f func(e []byte) bool) bool {
	return jsonItems(b, '[', ']', func(i int) int {
		end := jsonSkipValue(b, i)
		if end < 0 || !f(b[i:end]) {
			return -1
		}
		return end
	})
}

// jsonItems walks the object or array b (valid JSON) that opens with opens
// and closes with closes: item reads the member or element at i and says
// where it ends (< 0: stop, false). False when b does not open with opens.
func jsonItems(b []byte, opens, closes byte, item func(i int) int) bool {
	i := jsonSpace(b, 0)
	if i >= len(b) || b[i] != opens {
		return false
	}
	for i++; ; {
		i = jsonSpace(b, i)
		if i >= len(b) {
			return false
		}
		switch b[i] {
		case closes:
			return true
		case ',':
			i++
			continue
		}
		if i = item(i); i < 0 {
			return false
		}
	}
}
