package schemas

import (
	"fmt"
	"strconv"

	"github.com/ste-utility/ste/schemas/date"
	"github.com/ste-utility/ste/schemas/decimal"
	"github.com/ste-utility/ste/schemas/xmltext"
)

// ParseCLSBody reads the content of a CLS NEW (Received.Body: the bytes
// inside <Body>) back into what CLSBody wrote, so that consumers of the
// cls topic (analytics, tests) read it with the codec that writes it. Each
// leg's NetUnits is the number of fraction digits its NetAmount is written
// with. A field that is absent stays zero; one that is present but does
// not read is an error.
func ParseCLSBody(body []byte) (*CLSContent, error) {
	// The content is the inner bytes of <Body>: wrap it to get a document.
	doc := make([]byte, 0, len(body)+7)
	doc = append(append(append(doc, "<B>"...), body...), "</B>"...)
	var d xmltext.Document
	if err := d.Parse(doc); err != nil {
		return nil, fmt.Errorf("CLS body: %w", err)
	}
	var bad error
	text := func(parent int, name string) string {
		if i := d.Child(parent, name); i >= 0 {
			return string(trim(d.Elements[i].Text))
		}
		return ""
	}
	check := func(name string, err error) {
		if err != nil && bad == nil {
			bad = fmt.Errorf("CLS body %s: %w", name, err)
		}
	}
	integer := func(parent int, name string) int64 {
		s := text(parent, name)
		if s == "" {
			return 0
		}
		n, err := strconv.ParseInt(s, 10, 64)
		check(name, err)
		return n
	}
	dec := func(parent int, name string) (decimal.Dec, int) {
		s := text(parent, name)
		if s == "" {
			return decimal.Dec{}, 0
		}
		v, written, err := decimal.Parse(s)
		check(name, err)
		return v, written
	}
	day := func(name string) date.Date {
		s := text(0, name)
		if s == "" {
			return 0
		}
		v, err := date.Parse(s)
		check(name, err)
		return v
	}
	c := &CLSContent{Key: Key{TradeRef: text(0, "TradeRef"), TradeDate: text(0, "TradeDate"), ISIN: text(0, "ISIN"),
		Side: text(0, "Side"), Broker: text(0, "Broker"), InvMgr: text(0, "InvMgr")}}
	if s := text(0, "TradeKey"); s != "" {
		var ok bool
		if c.TradeKey, ok = ParseTradeKey(s); !ok {
			check("TradeKey", fmt.Errorf("%q is not 16 lower-case hex digits", Echo(s)))
		}
	}
	c.Version = int(integer(0, "Version"))
	c.Quantity = integer(0, "Quantity")
	c.Price, _ = dec(0, "Price")
	c.TradeCcy = text(0, "TradeCcy")
	c.SettleDate = day("SettleDate")
	if s := text(0, "MatchedAt"); s != "" {
		var err error
		c.MatchedAt, err = ParseTimestamp(s)
		check("MatchedAt", err)
	}
	for _, i := range d.Children(nil, 0) {
		if string(d.Elements[i].Name) != "Leg" {
			continue
		}
		l := Leg{Account: text(i, "Account"), Quantity: integer(i, "Quantity"), SettleCcy: text(i, "SettleCcy"),
			Custodian: text(i, "Custodian"), PSET: text(i, "PSET"), SafekeepingAccount: text(i, "SafekeepingAccount"),
			CashAccount: text(i, "CashAccount")}
		l.NetAmount, l.NetUnits = dec(i, "NetAmount")
		c.Legs = append(c.Legs, l)
	}
	if bad != nil {
		return nil, bad
	}
	return c, nil
}
