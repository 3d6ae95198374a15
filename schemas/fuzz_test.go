package schemas_test

import (
	"math"
	"testing"
	"unicode/utf8"

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
	f.Add(raw("<Created>2026-11-29T09:30:00.123Z</Created>", "<Created>9999-12-31T23:59:59Z</Created>"))
	f.Add([]byte{})
	var d schemas.Decoder
	f.Fuzz(func(t *testing.T, rec []byte) {
		m, rej := d.Decode(rec)
		if rej != nil {
			switch rej.Reason {
			case schemas.TooLarge, schemas.Malformed, schemas.Schema:
			default:
				t.Fatalf("decoding gave %v", rej.Reason)
			}
			if rej.Detail == "" || !utf8.ValidString(rej.Detail) && utf8.Valid(rec) {
				t.Fatalf("rejection detail %q", rej.Detail)
			}
			return
		}
		if m == nil || !schemas.IsMsgId(m.MsgId) || !schemas.IsBIC(m.Sender) || m.Type < schemas.NOE || m.Type > schemas.SET {
			t.Fatalf("decoded an invalid header: %+v", m)
		}
		if m.SignedStart >= 0 && (m.SignedEnd <= m.SignedStart || m.SignedEnd > len(rec)) {
			t.Fatalf("signed range %d..%d of %d", m.SignedStart, m.SignedEnd, len(rec))
		}
		if m.CreatedOutOfRange && m.Created != math.MaxInt64 && m.Created != math.MinInt64 {
			t.Fatalf("Created %d (out of range: %v)", m.Created, m.CreatedOutOfRange)
		}
		if m.Function != schemas.NEW && !schemas.IsMsgId(m.RelatedMsgId) {
			t.Fatal("CANCEL/REPLACE without a RelatedMsgId")
		}
		_ = m.Key.TradeKey().String()
	})
}
