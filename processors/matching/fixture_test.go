package matching

import (
	"crypto/sha256"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ste-utility/ste/schemas"
)

// fixture is a hand-written standard trade (1 NOE + 2 ALC + 2 NPR + 2 SET)
// whose messages tests mutate. Values are chosen so that every criterion holds.
type fixture struct {
	t        testing.TB
	book     *Book
	dec      schemas.Decoder
	outs     []schemas.Output
	rejected []*schemas.Rejection // KEY_COLLISIONs
	autos    []*schemas.Draft     // the utility's AFFs, processed as they came
}

const (
	broker = "BRKASGSGXXX"
	invMgr = "INVMSGSGXXX"
	cust1  = "CUSTSGSGXXX"
	cust2  = "CUSTHKHHXXX"
	csd    = "CDPLSGSGXXX"
	base   = "2026-11-02T01:00:00.000Z"
)

func newFixture(t testing.TB, opts ...BookOption) *fixture {
	return &fixture{t: t, book: NewBook(opts...)}
}

func at(minutes int) string {
	tm, _ := time.Parse(time.RFC3339, base)
	return tm.Add(time.Duration(minutes) * time.Minute).UTC().Format("2006-01-02T15:04:05.000Z")
}

func keyPairs(ref string) []schemas.Pair {
	return []schemas.Pair{kv("TradeRef", ref), kv("TradeDate", "2026-11-02"), kv("ISIN", "SG1L01001701"),
		kv("Side", "BUY"), kv("Broker", broker), kv("InvMgr", invMgr)}
}

func draft(id, typ, sender string, minutes int, ref string, body ...schemas.Pair) *schemas.Draft {
	return &schemas.Draft{MsgId: id, MsgType: typ, Function: "NEW", Sender: sender, Created: at(minutes),
		Body: append(keyPairs(ref), body...)}
}

// standard returns the seven messages of trade ref: accounts A1 (600) and A2 (400) at 10.5.
func standard(ref string) []*schemas.Draft {
	return []*schemas.Draft{
		draft(ref+"-NOE", "NOE", broker, 0, ref, kv("Quantity", "1000"), kv("Price", "10.50"),
			kv("TradeCcy", "SGD"), kv("SettleDate", "2026-11-04"), kv("Market", "XSES"),
			kv("ExecTime", at(-5))),
		alc(ref, 1, "A1", "600", cust1), alc(ref, 2, "A2", "400", cust2),
		npr(ref, 1, "A1", "600", "6300.00", "5.04", "1.25", "6306.29"),
		npr(ref, 2, "A2", "400", "4200.00", "3.36", "1.25", "4204.61"),
		set(ref, 1, "A1", "600", "6306.29", cust1), set(ref, 2, "A2", "400", "4204.61", cust2),
	}
}

func alc(ref string, n int, acct, qty, cust string) *schemas.Draft {
	return draft(ref+"-ALC"+strconv.Itoa(n), "ALC", invMgr, 2+n, ref, kv("AllocCount", "2"),
		kv("Account", acct), kv("Quantity", qty), kv("Price", "10.5"),
		kv("TradeCcy", "SGD"), kv("Custodian", cust), kv("PSET", csd))
}

func npr(ref string, n int, acct, qty, gross, comm, fees, net string) *schemas.Draft {
	return draft(ref+"-NPR"+strconv.Itoa(n), "NPR", broker, 10+n, ref, kv("Account", acct),
		kv("Quantity", qty), kv("Price", "10.5"), kv("TradeCcy", "SGD"),
		kv("GrossAmount", gross), kv("Commission", comm), kv("Fees", fees),
		kv("NetAmount", net), kv("SettleCcy", "SGD"), kv("SettleDate", "2026-11-04"))
}

func set(ref string, n int, acct, qty, net, cust string) *schemas.Draft {
	return draft(ref+"-SET"+strconv.Itoa(n), "SET", cust, 20+n, ref, kv("Account", acct),
		kv("Quantity", qty), kv("SettleDate", "2026-11-04"), kv("SettleCcy", "SGD"),
		kv("NetAmount", net), kv("Custodian", cust), kv("PSET", csd),
		kv("SafekeepingAccount", "SK-"+acct), kv("CashAccount", "CA-"+acct))
}

func cancelOf(d *schemas.Draft, id string, minutes int) *schemas.Draft {
	c := &schemas.Draft{MsgId: id, MsgType: d.MsgType, Function: "CANCEL", Sender: d.Sender, Created: at(minutes),
		RelatedMsgId: d.MsgId, Body: append([]schemas.Pair(nil), d.Body[:6]...)}
	if d.MsgType == "SET" {
		c.Body = append(c.Body, kv("Custodian", d.Get("Custodian")))
	}
	return c
}

func replaceOf(d *schemas.Draft, id string, minutes int, mutate func(*schemas.Draft)) *schemas.Draft {
	r := d.Clone()
	r.MsgId, r.Function, r.RelatedMsgId, r.Created = id, "REPLACE", d.MsgId, at(minutes)
	if mutate != nil {
		mutate(r)
	}
	return r
}

// send feeds a draft the way `ste match` does (identity memory first) and
// returns the outputs it caused.
func (f *fixture) send(d *schemas.Draft) []schemas.Output {
	f.t.Helper()
	rec := d.AppendSigned(nil, nil)
	m, rej := decodeDraft(&f.dec, d, rec)
	if rej != nil {
		f.t.Fatalf("fixture message %s does not decode: %v", d.MsgId, rej)
	}
	dg := digestOfRecord(rec)
	var out []schemas.Output
	if known, ok := f.book.Known(m.ID()); ok {
		if known != dg {
			f.t.Fatalf("%s: conflicting duplicate in fixture", d.MsgId)
		}
		out = f.book.Duplicate(m.ID())
	} else {
		units := 0
		if m.SettleCcy == "SGD" || m.SettleCcy == "USD" {
			units = 2
		}
		if rej := f.book.KeyCollision(m); rej != nil {
			f.rejected = append(f.rejected, rej)
			return nil
		}
		out = f.book.Accept(&Inbound{Msg: m, Digest: dg, NetUnits: units})
		for _, auto := range f.book.AutoAffirmations() {
			f.autos = append(f.autos, auto)
			out = append(out, f.send(auto)...)
		}
	}
	f.outs = append(f.outs, out...)
	return out
}

// allege is the allegement step (`ste match` after its last line).
func (f *fixture) allege() []schemas.Output {
	out := f.book.Allege()
	f.outs = append(f.outs, out...)
	return out
}

func (f *fixture) sendAll(ds []*schemas.Draft) []schemas.Output {
	var out []schemas.Output
	for _, d := range ds {
		out = append(out, f.send(d)...)
	}
	return out
}

// ids lists the MsgIds of the version 2 outputs (ACK, NACK, STATUS, CLS),
// for compact comparisons: version 3 keeps them, their order among
// themselves included, and adds CNF, BLK and ALG records (allIDs).
func ids(out []schemas.Output) string {
	var s []string
	for _, o := range out {
		if o.Type <= schemas.CLS {
			s = append(s, o.MsgId)
		}
	}
	return strings.Join(s, " ")
}

// allIDs lists the MsgIds of every output.
func allIDs(out []schemas.Output) string {
	var s []string
	for _, o := range out {
		s = append(s, o.MsgId)
	}
	return strings.Join(s, " ")
}

// only keeps outputs of one type.
func only(out []schemas.Output, t schemas.MsgType) []schemas.Output {
	var r []schemas.Output
	for _, o := range out {
		if o.Type == t {
			r = append(r, o)
		}
	}
	return r
}

func tradeKey(ref string) schemas.TradeKey {
	k := schemas.Key{TradeRef: ref, TradeDate: "2026-11-02", ISIN: "SG1L01001701", Side: "BUY", Broker: broker, InvMgr: invMgr}
	return k.TradeKey()
}

func kv(name, value string) schemas.Pair { return schemas.Pair{Name: name, Value: value} }

// inForce is the view of the trade's messages in force (section 5a step 7).
func inForce(t *Trade, tol Tolerances) *view {
	return newView(assess(t, tol).inForce, tol)
}

func digestOfRecord(rec []byte) Digest {
	sum := sha256.Sum256(rec)
	var dg Digest
	copy(dg[:], sum[:])
	return dg
}
