package schemas

import (
	"bytes"
	"testing"

	"crypto/ed25519"
	"crypto/sha256"
)

// ParseDraft reads back what AppendSigned wrote: signed again with the same
// key, the bytes are the same.
func TestParseDraftRoundTrip(t *testing.T) {
	seed := sha256.Sum256([]byte("ste-demo-key:BRKASGSGXXX"))
	key := ed25519.NewKeyFromSeed(seed[:])
	d := &Draft{MsgId: "M-1", MsgType: "NOE", Function: "REPLACE", Sender: "BRKASGSGXXX", Created: "2026-11-02T01:00:00.000Z",
		RelatedMsgId: "M-0", Body: []Pair{{"TradeRef", "T &amp; 1"}, {"ISIN", "SG1L01001701"}, {"Remarks", ""}}}
	raw := d.AppendSigned(nil, key)
	back, err := ParseDraft(raw)
	if err != nil {
		t.Fatal(err)
	}
	if again := back.AppendSigned(nil, key); !bytes.Equal(again, raw) {
		t.Fatalf("round trip:\n%s\n%s", raw, again)
	}
	if _, err := ParseDraft([]byte("<Msg><Header/></Msg>")); err == nil {
		t.Fatal("a message without a body parsed")
	}
}
