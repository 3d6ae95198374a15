package fixtest

import (
	"time"

	"github.com/quickfixgo/quickfix"
)

// Builders of the application messages a broker or an investment manager
// sends, with quickfixgo's own field maps and repeating groups (each entry
// begins with its group's first field, the dictionary's order).

func msg(t string) *quickfix.Message {
	m := quickfix.NewMessage()
	m.Header.SetString(35, t)
	return m
}

func set(fm *quickfix.FieldMap, tag int, v string) {
	if v != "" {
		fm.SetString(quickfix.Tag(tag), v)
	}
}

func tmpl(tags ...int) quickfix.GroupTemplate {
	t := make(quickfix.GroupTemplate, len(tags))
	for i, tag := range tags {
		t[i] = quickfix.GroupElement(quickfix.Tag(tag))
	}
	return t
}

// Parties is the Parties block: (PartyID, PartyRole) pairs, source B.
func Parties(pairs ...[2]string) *quickfix.RepeatingGroup {
	g := quickfix.NewRepeatingGroup(453, tmpl(448, 447, 452))
	for _, p := range pairs {
		e := g.Add()
		e.SetString(448, p[0])
		e.SetString(447, "B")
		e.SetString(452, p[1])
	}
	return g
}

// Now is a FIX UTCTimestamp of now.
func Now() string { return time.Now().UTC().Format("20060102-15:04:05.000") }

// Alloc is one allocation of a J.
type Alloc struct{ Account, Qty, Price, Custodian, PSET string }

// J is an AllocationInstruction.
type J struct {
	AllocID, TransType, RefAllocID, AllocType string
	ClOrdID, OrderID, Side, ISIN, Quantity    string
	AvgPx, Currency, Broker, InvMgr           string
	TradeDate, TransactTime                   string
	Allocs                                    []Alloc
}

// Message is the J as quickfixgo writes it.
func (j J) Message() *quickfix.Message {
	m := msg("J")
	b := &m.Body.FieldMap
	set(b, 70, j.AllocID)
	set(b, 71, or(j.TransType, "0"))
	set(b, 72, j.RefAllocID)
	set(b, 626, or(j.AllocType, "2"))
	set(b, 857, "1")
	orders := quickfix.NewRepeatingGroup(73, tmpl(11, 37))
	o := orders.Add()
	o.SetString(11, or(j.ClOrdID, "ORD-"+j.OrderID))
	o.SetString(37, j.OrderID)
	m.Body.SetGroup(orders)
	set(b, 54, j.Side)
	set(b, 55, "[N/A]")
	set(b, 48, j.ISIN)
	set(b, 22, "4")
	set(b, 53, j.Quantity)
	set(b, 6, j.AvgPx)
	set(b, 15, j.Currency)
	m.Body.SetGroup(Parties([2]string{j.Broker, "1"}, [2]string{j.InvMgr, "13"}))
	set(b, 75, j.TradeDate)
	set(b, 60, or(j.TransactTime, Now()))
	nested := quickfix.NewRepeatingGroup(539, tmpl(524, 525, 538))
	allocs := quickfix.NewRepeatingGroup(78, quickfix.GroupTemplate{quickfix.GroupElement(79), quickfix.GroupElement(366),
		quickfix.GroupElement(80), nested})
	for _, a := range j.Allocs {
		e := allocs.Add()
		e.SetString(79, a.Account)
		if a.Price != "" {
			e.SetString(366, a.Price)
		}
		e.SetString(80, a.Qty)
		n := quickfix.NewRepeatingGroup(539, tmpl(524, 525, 538))
		for _, p := range [][2]string{{a.Custodian, "28"}, {a.PSET, "10"}} {
			if p[0] == "" {
				continue
			}
			x := n.Add()
			x.SetString(524, p[0])
			x.SetString(525, "B")
			x.SetString(538, p[1])
		}
		e.SetGroup(n)
	}
	if len(j.Allocs) > 0 {
		m.Body.SetGroup(allocs)
	}
	return m
}

// AE is a TradeCaptureReport.
type AE struct {
	TradeReportID, TransType, RefID         string
	ISIN, LastQty, LastPx, LastMkt          string
	TradeDate, SettlDate, TransactTime      string
	Side, OrderID, Currency, Broker, InvMgr string
}

// Message is the AE as quickfixgo writes it.
func (a AE) Message() *quickfix.Message {
	m := msg("AE")
	b := &m.Body.FieldMap
	set(b, 571, a.TradeReportID)
	set(b, 487, a.TransType)
	set(b, 572, a.RefID)
	set(b, 570, "N")
	set(b, 55, "[N/A]")
	set(b, 48, a.ISIN)
	set(b, 22, "4")
	set(b, 32, a.LastQty)
	set(b, 31, a.LastPx)
	set(b, 30, a.LastMkt)
	set(b, 75, a.TradeDate)
	set(b, 64, a.SettlDate)
	set(b, 60, or(a.TransactTime, Now()))
	parties := Parties([2]string{a.Broker, "1"}, [2]string{a.InvMgr, "13"})
	sides := quickfix.NewRepeatingGroup(552, quickfix.GroupTemplate{quickfix.GroupElement(54), quickfix.GroupElement(37),
		quickfix.GroupElement(11), parties, quickfix.GroupElement(15)})
	s := sides.Add()
	s.SetString(54, a.Side)
	s.SetString(37, a.OrderID)
	s.SetGroup(parties)
	if a.Currency != "" {
		s.SetString(15, a.Currency)
	}
	m.Body.SetGroup(sides)
	return m
}

// AK is a Confirmation from the broker.
type AK struct {
	ConfirmID, TransType, RefID               string
	ISIN, OrderID, ClOrdID, Side              string
	Broker, InvMgr, TradeDate, TransactTime   string
	Account, Qty, AvgPx, Currency             string
	Gross, NetMoney, SettlCurrency, SettlDate string
	Commission                                string
	Fees                                      []string
}

// Message is the AK as quickfixgo writes it.
func (a AK) Message() *quickfix.Message {
	m := msg("AK")
	b := &m.Body.FieldMap
	set(b, 664, a.ConfirmID)
	set(b, 666, or(a.TransType, "0"))
	set(b, 772, a.RefID)
	set(b, 773, "2")
	set(b, 665, "1")
	m.Body.SetGroup(Parties([2]string{a.Broker, "1"}, [2]string{a.InvMgr, "13"}))
	orders := quickfix.NewRepeatingGroup(73, tmpl(11, 37))
	o := orders.Add()
	o.SetString(11, or(a.ClOrdID, "ORD-"+a.OrderID))
	o.SetString(37, a.OrderID)
	m.Body.SetGroup(orders)
	set(b, 60, or(a.TransactTime, Now()))
	set(b, 75, a.TradeDate)
	set(b, 55, "[N/A]")
	set(b, 48, a.ISIN)
	set(b, 22, "4")
	set(b, 80, a.Qty)
	set(b, 54, a.Side)
	set(b, 15, a.Currency)
	caps := quickfix.NewRepeatingGroup(862, tmpl(528, 529, 863))
	c := caps.Add()
	c.SetString(528, "A")
	c.SetString(863, a.Qty)
	m.Body.SetGroup(caps)
	set(b, 79, a.Account)
	set(b, 6, a.AvgPx)
	set(b, 381, a.Gross)
	set(b, 118, a.NetMoney)
	set(b, 120, a.SettlCurrency)
	set(b, 64, a.SettlDate)
	if a.Commission != "" {
		set(b, 12, a.Commission)
		set(b, 13, "3")
	}
	if len(a.Fees) > 0 {
		fees := quickfix.NewRepeatingGroup(136, tmpl(137, 138, 139))
		for _, f := range a.Fees {
			e := fees.Add()
			e.SetString(137, f)
		}
		m.Body.SetGroup(fees)
	}
	return m
}

// AU is a ConfirmationAck from the investment manager.
type AU struct{ ConfirmID, AffirmStatus, RejReason, TradeDate, TransactTime string }

// Message is the AU as quickfixgo writes it.
func (a AU) Message() *quickfix.Message {
	m := msg("AU")
	b := &m.Body.FieldMap
	set(b, 664, a.ConfirmID)
	set(b, 75, a.TradeDate)
	set(b, 60, or(a.TransactTime, Now()))
	set(b, 940, a.AffirmStatus)
	set(b, 774, a.RejReason)
	return m
}

func or(v, def string) string {
	if v == "" {
		return def
	}
	return v
}
