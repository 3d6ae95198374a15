package schemas_test

import (
	"bytes"
	"encoding/binary"
	"reflect"
	"testing"

	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/decimal"
	"github.com/ste-utility/ste/workload"
)

// decoded is what the compact form keeps of a decoded message: all but the
// record and its signature.
func decoded(m *schemas.Message) schemas.Message {
	c := *m
	c.Raw, c.SignedStart, c.SignedEnd, c.HasSig, c.Sig, c.SigAlg, c.HasSigAlg = nil, 0, 0, false, "", "", false
	return c
}

func checkCompact(t *testing.T, m *schemas.Message) {
	t.Helper()
	b := m.AppendCompact(nil)
	got, err := schemas.DecodeCompact(b)
	if err != nil {
		t.Fatalf("%s: %v", m.MsgId, err)
	}
	if want := decoded(m); !reflect.DeepEqual(*got, want) {
		t.Fatalf("compact round trip of %s:\n got %+v\nwant %+v", m.MsgId, *got, want)
	}
	for n := range b { // every truncation is an error, never a panic
		if _, err := schemas.DecodeCompact(b[:n]); err == nil {
			t.Fatalf("%s cut to %d of %d bytes decoded", m.MsgId, n, len(b))
		}
	}
}

func TestCompactRoundTrip(t *testing.T) {
	var d schemas.Decoder
	n := 0
	_, err := workload.Generate(workload.Options{Trades: 40, Mix: "realistic"}, func(rec []byte) error {
		m, rej := d.Decode(rec)
		if rej != nil {
			return nil // the realistic mix has broken records; those never travel compact
		}
		checkCompact(t, m)
		n++
		return nil
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n < 200 {
		t.Fatalf("only %d messages checked", n)
	}
	m, rej := d.Decode(raw("<Quantity>1000</Quantity>", "<Quantity>1234567890123456789012</Quantity>"))
	if rej != nil || m.OutOfRange == 0 {
		t.Fatalf("want an out-of-range quantity, got %v %+v", rej, m)
	}
	checkCompact(t, m)
}

// appendCompactV1 is AppendCompact of the release before contract version 3
// (layout version 1), frozen here as it was.
func appendCompactV1(m *schemas.Message, b []byte) []byte {
	var flags byte
	if m.CreatedOutOfRange {
		flags |= 1
	}
	b = append(b, 1, byte(m.Type), byte(m.Function), byte(m.Side), flags)
	b = binary.AppendVarint(b, m.Created)
	b = binary.AppendVarint(b, int64(m.TradeDate))
	b = binary.AppendUvarint(b, uint64(m.Has))
	b = binary.AppendUvarint(b, uint64(m.OutOfRange))
	b = binary.AppendVarint(b, m.Quantity)
	b = binary.AppendVarint(b, int64(m.SettleDate))
	b = binary.AppendVarint(b, m.ExecTime)
	b = binary.AppendVarint(b, int64(m.AllocCount))
	for _, d := range [...]decimal.Dec{m.Price, m.GrossAmount, m.Commission, m.Fees, m.NetAmount} {
		b = binary.AppendVarint(b, d.Coef())
		b = append(b, byte(d.Scale()))
	}
	strs := [...]string{m.MsgId, m.Sender, m.RelatedMsgId,
		m.Key.TradeRef, m.Key.TradeDate, m.Key.ISIN, m.Key.Side, m.Key.Broker, m.Key.InvMgr,
		m.TradeCcy, m.Market, m.Account, m.Custodian, m.PSET, m.SettleCcy, m.SafekeepingAccount, m.CashAccount}
	for _, s := range strs {
		b = binary.AppendUvarint(b, uint64(len(s)))
	}
	for _, s := range strs {
		b = append(b, s...)
	}
	return b
}

// A message of a version 2 set is written in layout version 1, byte for
// byte as the previous release wrote it (a match stage not yet upgraded
// reads it), and what that release wrote reads back whole.
func TestCompactVersion1Frozen(t *testing.T) {
	var d schemas.Decoder
	n := 0
	_, err := workload.Generate(workload.Options{Trades: 20, Mix: "realistic", Seed: 3}, func(rec []byte) error {
		m, rej := d.Decode(rec)
		if rej != nil || !m.Type.IsContent() {
			return nil // the realistic mix holds version 3 messages too (AFF, CXL, CXA, CXJ): layout 2's
		}
		old := appendCompactV1(m, nil)
		if now := m.AppendCompact(nil); !bytes.Equal(now, old) {
			t.Fatalf("%s: compact form changed for a version 2 message:\n got %x\nwant %x", m.MsgId, now, old)
		}
		got, err := schemas.DecodeCompact(old)
		if err != nil || !reflect.DeepEqual(*got, decoded(m)) {
			t.Fatalf("%s: layout 1 reads back as %+v, %v", m.MsgId, got, err)
		}
		n++
		return nil
	}, nil)
	if err != nil || n < 100 {
		t.Fatalf("%d messages, %v", n, err)
	}
}

// Version 3's fields travel in layout version 2; every one round-trips.
func TestCompactLifecycle(t *testing.T) {
	var d schemas.Decoder
	rej := aff("Amends", digestB, "RejectReason", "PRICE SSI ACCOUNT")
	rej.Set("Decision", "REJECT")
	cxl := lifecycle("CXL", "BRKASGSGXXX", "CancelReason", "DUPLICATE")
	cxj := lifecycle("CXJ", "INVMSGSGXXX", "CancelReason", "OTHER")
	cxj.RelatedMsgId = "CXL:1"
	delegated := noe()
	delegated.Signer = "STEUTLSGFIX"
	one := aff()
	one.Set("Affirms", "BRKASGSGXXX:N1")
	for _, dr := range []*schemas.Draft{aff(), rej, cxl, cxj, delegated, one} {
		m, r := d.Decode(signedRaw(dr))
		if r != nil {
			t.Fatal(r)
		}
		if b := m.AppendCompact(nil); b[0] != 2 {
			t.Fatalf("%s %s written in layout %d", m.Type, m.MsgId, b[0])
		}
		checkCompact(t, m)
	}
	// An Affirms join with an empty token is corrupt, not nil.
	m, _ := d.Decode(signedRaw(aff()))
	b := m.AppendCompact(nil)
	i := bytes.Index(b, []byte("BRKASGSGXXX:N1 INVMSGSGXXX:A1"))
	b[i+len("BRKASGSGXXX:N1 ")] = ' '
	if _, err := schemas.DecodeCompact(b); err == nil {
		t.Fatal("two spaces in a compact Affirms decoded")
	}
}

// FuzzCompact: whatever decodes round-trips through the compact form, and
// no bytes make DecodeCompact panic.
func FuzzCompact(f *testing.F) {
	f.Add(raw())
	f.Add(raw("<Price>10.50</Price>", "<Price>-0.000100</Price>"))
	f.Add(raw()[:300])
	f.Add(signedRaw(aff("Amends", digestB)))
	f.Add(signedRaw(aff("RejectReason", "PRICE SSI"), "<Decision>AFFIRM", "<Decision>REJECT"))
	f.Add(signedRaw(lifecycle("CXL", "BRKASGSGXXX", "CancelReason", "ERROR")))
	f.Add(signedRaw(noe(), "</Sender>", "</Sender><Signer>STEUTLSGFIX</Signer>"))
	var d schemas.Decoder
	f.Fuzz(func(t *testing.T, rec []byte) {
		schemas.DecodeCompact(rec)
		if m, rej := d.Decode(rec); rej == nil || rej.Reason > schemas.Schema {
			if m != nil {
				checkCompact(t, m)
			}
		}
	})
}
