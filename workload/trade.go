// Package workload generates signed message sets like the source benchmark's
// stored test sets: `standard` trades of 1 NOE + 2 ALC + 2 NPR + 2 SET, and a
// `realistic` mix with other allocation counts, duplicates, cancels, replaces,
// mismatches, incomplete trades and invalid messages of every rejection code,
// and the lifecycle after the match (lifecycle.go: affirmations, rejections,
// amendments both principals affirm, cancellation requests with and without
// answers, for AUTO and MANUAL investment managers as affirmation.csv says).
// Its manifest says what each trade was built to be — taken from how it was
// built, never from running the matcher — so that tests can hold the matcher
// to it.
package workload

import (
	"crypto/ed25519"
	"strconv"
	"time"

	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/date"
	"github.com/ste-utility/ste/schemas/decimal"
	"github.com/ste-utility/ste/schemas/refdata"
)

// trade is the agreed economics of one block trade, from which every
// message of it is written.
type trade struct {
	ref       string
	tradeDate date.Date
	sec       refdata.Security
	ccy       refdata.Currency
	side      string
	broker    string
	invMgr    string
	price     decimal.Dec
	settle    date.Date
	market    string
	base      time.Time // Created of the NOE; the rest follow
	allocs    []alloc
}

type alloc struct {
	account     string
	qty         int64
	custodian   string
	pset        string
	safekeeping string
	cash        string
	gross       decimal.Dec
	commission  decimal.Dec
	fees        decimal.Dec
	net         decimal.Dec
}

func (t *trade) block() int64 {
	var q int64
	for _, a := range t.allocs {
		q += a.qty
	}
	return q
}

func (t *trade) key() schemas.Key {
	return schemas.Key{TradeRef: t.ref, TradeDate: t.tradeDate.String(), ISIN: t.sec.ISIN, Side: t.side,
		Broker: t.broker, InvMgr: t.invMgr}
}

// item is one record to write: a draft signed with key, or raw bytes.
type item struct {
	draft *schemas.Draft
	key   ed25519.PrivateKey
	post  func([]byte) []byte // applied after signing (tampering outside or inside the signed range)
	raw   []byte
}

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

func (t *trade) header(msgId, typ, fn, sender string, at time.Duration) *schemas.Draft {
	d := &schemas.Draft{MsgId: msgId, MsgType: typ, Function: fn, Sender: sender, Created: stamp(t.base.Add(at))}
	k := t.key()
	d.Body = append(d.Body,
		schemas.Pair{Name: "TradeRef", Value: k.TradeRef}, schemas.Pair{Name: "TradeDate", Value: k.TradeDate},
		schemas.Pair{Name: "ISIN", Value: k.ISIN}, schemas.Pair{Name: "Side", Value: k.Side},
		schemas.Pair{Name: "Broker", Value: k.Broker}, schemas.Pair{Name: "InvMgr", Value: k.InvMgr})
	return d
}

func (t *trade) amount(d decimal.Dec) string { return d.Fixed(t.ccy.MinorUnits) }

func (t *trade) noe(msgId string, at time.Duration) *schemas.Draft {
	d := t.header(msgId, "NOE", "NEW", t.broker, at)
	d.Body = append(d.Body,
		schemas.Pair{Name: "Quantity", Value: strconv.FormatInt(t.block(), 10)},
		schemas.Pair{Name: "Price", Value: t.price.String()},
		schemas.Pair{Name: "TradeCcy", Value: t.ccy.Code},
		schemas.Pair{Name: "SettleDate", Value: t.settle.String()},
		schemas.Pair{Name: "Market", Value: t.market},
		schemas.Pair{Name: "ExecTime", Value: stamp(t.base.Add(-3 * time.Minute))})
	return d
}

func (t *trade) alc(i int, msgId string, at time.Duration) *schemas.Draft {
	a := &t.allocs[i]
	d := t.header(msgId, "ALC", "NEW", t.invMgr, at)
	d.Body = append(d.Body,
		schemas.Pair{Name: "AllocCount", Value: strconv.Itoa(len(t.allocs))},
		schemas.Pair{Name: "Account", Value: a.account},
		schemas.Pair{Name: "Quantity", Value: strconv.FormatInt(a.qty, 10)},
		schemas.Pair{Name: "Price", Value: t.price.String()},
		schemas.Pair{Name: "TradeCcy", Value: t.ccy.Code},
		schemas.Pair{Name: "Custodian", Value: a.custodian},
		schemas.Pair{Name: "PSET", Value: a.pset})
	return d
}

func (t *trade) npr(i int, msgId string, at time.Duration) *schemas.Draft {
	a := &t.allocs[i]
	d := t.header(msgId, "NPR", "NEW", t.broker, at)
	d.Body = append(d.Body,
		schemas.Pair{Name: "Account", Value: a.account},
		schemas.Pair{Name: "Quantity", Value: strconv.FormatInt(a.qty, 10)},
		schemas.Pair{Name: "Price", Value: t.price.String()},
		schemas.Pair{Name: "TradeCcy", Value: t.ccy.Code},
		schemas.Pair{Name: "GrossAmount", Value: t.amount(a.gross)},
		schemas.Pair{Name: "Commission", Value: t.amount(a.commission)},
		schemas.Pair{Name: "Fees", Value: t.amount(a.fees)},
		schemas.Pair{Name: "NetAmount", Value: t.amount(a.net)},
		schemas.Pair{Name: "SettleCcy", Value: t.ccy.Code},
		schemas.Pair{Name: "SettleDate", Value: t.settle.String()})
	return d
}

func (t *trade) set(i int, msgId string, at time.Duration) *schemas.Draft {
	a := &t.allocs[i]
	d := t.header(msgId, "SET", "NEW", a.custodian, at)
	d.Body = append(d.Body,
		schemas.Pair{Name: "Account", Value: a.account},
		schemas.Pair{Name: "Quantity", Value: strconv.FormatInt(a.qty, 10)},
		schemas.Pair{Name: "SettleDate", Value: t.settle.String()},
		schemas.Pair{Name: "SettleCcy", Value: t.ccy.Code},
		schemas.Pair{Name: "NetAmount", Value: t.amount(a.net)},
		schemas.Pair{Name: "Custodian", Value: a.custodian},
		schemas.Pair{Name: "PSET", Value: a.pset},
		schemas.Pair{Name: "SafekeepingAccount", Value: a.safekeeping},
		schemas.Pair{Name: "CashAccount", Value: a.cash})
	return d
}

// cancel is the CANCEL of d: the key fields (and a SET's Custodian) only.
func cancel(d *schemas.Draft, msgId, created string) *schemas.Draft {
	c := &schemas.Draft{MsgId: msgId, MsgType: d.MsgType, Function: "CANCEL", Sender: d.Sender,
		Created: created, RelatedMsgId: d.MsgId}
	c.Body = append(c.Body, d.Body[:6]...)
	if d.MsgType == "SET" {
		c.Body = append(c.Body, schemas.Pair{Name: "Custodian", Value: d.Get("Custodian")})
	}
	return c
}

// replace is a REPLACE of d carrying body (a full body).
func replace(d *schemas.Draft, body *schemas.Draft, msgId, created string) *schemas.Draft {
	r := body.Clone()
	r.MsgId, r.Function, r.RelatedMsgId, r.Created = msgId, "REPLACE", d.MsgId, created
	return r
}

// messages are the standard messages of the trade, with their MsgIds.
func (t *trade) messages() []*schemas.Draft {
	ds := []*schemas.Draft{t.noe(t.ref+"-NOE", 0)}
	for i := range t.allocs {
		n := strconv.Itoa(i + 1)
		ds = append(ds,
			t.alc(i, t.ref+"-ALC"+n, time.Duration(2+i)*time.Minute),
			t.npr(i, t.ref+"-NPR"+n, time.Duration(15+i)*time.Minute),
			t.set(i, t.ref+"-SET"+n, time.Duration(40+3*i)*time.Minute))
	}
	return ds
}
