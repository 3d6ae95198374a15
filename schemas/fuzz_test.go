package schemas_test

import (
	"testing"

	"github.com/ste-utility/ste/schemas"
)

// FuzzDecode: any input decodes or is rejected with a code of the decoding
// rules, never panics, and what decodes satisfies the model's invariants.
func FuzzDecode(f *testing.F) {
	f.Add(raw())
	f.Add(raw("<Side>BUY</Side>", "<Side>SELL</Side>", "<TradeRef>T1</TradeRef>", "<TradeRef><![CDATA[a&b]]></TradeRef>"))
	f.Add(raw("<Function>NEW</Function>", "<Function>CANCEL</Function><RelatedMsgId>X</RelatedMsgId>"))
	f.Add(raw()[:200])
	f.Add([]byte("<Msg><Header/><Body/></Msg>"))
	var d schemas.Decoder
	f.Fuzz(func(t *testing.T, rec []byte) {
		m, rej := d.Decode(rec)
		if rej != nil {
			switch rej.Reason {
			case schemas.TooLarge, schemas.Malformed, schemas.Schema:
			default:
				t.Fatalf("decoding gave %v", rej.Reason)
			}
			if rej.Detail == "" {
				t.Fatal("rejection without a detail")
			}
			return
		}
		if m == nil || !schemas.IsMsgId(m.MsgId) || !schemas.IsBIC(m.Sender) || m.Type < schemas.NOE || m.Type > schemas.SET {
			t.Fatalf("decoded an invalid header: %+v", m)
		}
		if m.SignedStart >= 0 && (m.SignedEnd <= m.SignedStart || m.SignedEnd > len(rec)) {
			t.Fatalf("signed range %d..%d of %d", m.SignedStart, m.SignedEnd, len(rec))
		}
		if m.Function != schemas.NEW && !schemas.IsMsgId(m.RelatedMsgId) {
			t.Fatal("CANCEL/REPLACE without a RelatedMsgId")
		}
		_ = m.Key.TradeKey().String()
	})
}
