package schemas_test

import (
	"bytes"
	"reflect"
	"testing"
	"time"

	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/date"
	"github.com/ste-utility/ste/schemas/decimal"
)

// CLSBody and ParseCLSBody are one codec: a CLS NEW's content reads back
// as what was written, and writes again byte for byte.
func TestCLSBodyRoundTrip(t *testing.T) {
	k := schemas.Key{TradeRef: "T<1>&", TradeDate: "2026-11-27", ISIN: "SG1234567890", Side: "SELL", Broker: "BRKASGSGXXX", InvMgr: "INVMSGSGXXX"}
	c := &schemas.CLSContent{Key: k, TradeKey: k.TradeKey(), Version: 3, Quantity: 1500, Price: decimal.MustParse("101.125"),
		TradeCcy: "USD", SettleDate: date.MustParse("2026-12-01"), MatchedAt: time.Date(2026, 11, 29, 9, 0, 0, 123e6, time.UTC).UnixNano(),
		Legs: []schemas.Leg{
			{Account: "ACC-1", Quantity: 1000, NetAmount: decimal.MustParse("101125.5"), NetUnits: 2, SettleCcy: "USD",
				Custodian: "CUSTSGSGXXX", PSET: "CDPLSGSGXXX", SafekeepingAccount: "SK-1", CashAccount: "CA-1"},
			{Account: "ACC-2", Quantity: 500, NetAmount: decimal.MustParse("50562"), NetUnits: 0, SettleCcy: "JPY",
				Custodian: "CUSTSGSGXXX", PSET: "CDPLSGSGXXX", SafekeepingAccount: "SK-2", CashAccount: "CA-2"},
		}}
	body := schemas.CLSBody(c)
	got, err := schemas.ParseCLSBody(body)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, c) {
		t.Fatalf("read back\n got %+v\nwant %+v", got, c)
	}
	if again := schemas.CLSBody(got); !bytes.Equal(again, body) {
		t.Fatalf("written again:\n%s\n%s", again, body)
	}
	for _, bad := range []string{"<Quantity>1.5</Quantity>", "<TradeKey>XYZ</TradeKey>", "<Leg><NetAmount>1e3</NetAmount></Leg>",
		"<MatchedAt>yesterday</MatchedAt>", "<SettleDate>2026-02-30</SettleDate>", "<Price>"} {
		if _, err := schemas.ParseCLSBody([]byte(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}
