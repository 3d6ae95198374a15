package conformance

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Version 3 (messages.md §5 attached SETs, §5a early information, §6 CNF,
// BLK, ALG), for sets of version 2 messages: what `ste match` adds beside
// the version 2 records, checked from the contract alone (the MatchDigest
// is recomputed here from §6's text).

// matchDigest is §6's MatchDigest of a trade's standard messages, computed
// from the suite's own values (legs by Account, tokens in byte order).
func matchDigest(tr *Trade, ms []*Msg, matchedAt string) string {
	esc := func(v string) string {
		var b strings.Builder
		for i := 0; i < len(v); i++ {
			c := v[i]
			if c == '%' || c == '|' || c < 0x20 || c == 0x7f {
				b.WriteString("%" + strings.ToUpper(hex.EncodeToString([]byte{c})))
				continue
			}
			b.WriteByte(c)
		}
		return b.String()
	}
	price := strings.TrimRight(strings.TrimRight(tr.Price, "0"), ".")
	lines := []string{"STE-MATCH-3", "TradeKey=" + tr.Key(), "TradeRef=" + esc(tr.Ref), "TradeDate=" + tr.TDate,
		"ISIN=" + tr.ISIN, "Side=" + tr.Side, "Broker=" + tr.Broker, "InvMgr=" + tr.InvMgr,
		"Quantity=" + itoa(tr.BlockQty()), "Price=" + price, "TradeCcy=" + tr.Ccy, "SettleDate=" + tr.Settle,
		"MatchedAt=" + matchedAt}
	allocs := append([]Alloc(nil), tr.Allocs...)
	sort.Slice(allocs, func(i, j int) bool { return allocs[i].Acct < allocs[j].Acct })
	for _, a := range allocs {
		i := 0
		for j := range tr.Allocs {
			if tr.Allocs[j].Acct == a.Acct {
				i = j
			}
		}
		lines = append(lines, "Leg="+strings.Join([]string{esc(a.Acct), itoa(a.Qty), tr.Net(i), tr.Ccy, a.Cust, a.PSET,
			esc("SK-" + a.Acct), esc("CA-" + a.Acct)}, "|"))
	}
	var toks []string
	for _, m := range ms {
		toks = append(toks, tok(m))
	}
	sort.Strings(toks)
	for _, t := range toks {
		lines = append(lines, "Msg="+t)
	}
	sum := sha256.Sum256([]byte(strings.Join(lines, "\n") + "\n"))
	return hex.EncodeToString(sum[:])
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// §6 CNF: with the CLS NEW, a CNF NEW to each party, CNF:<TradeKey>:<c>:<Receiver>
// with one c shared by all receivers; the Broker's and the InvMgr's carry
// every leg and the Messages in force; a Custodian's only its legs and no
// Messages; the MatchDigest is §6's.
func TestV3_CNFWithTheCLS(t *testing.T) {
	tr := stdTrade("CNF-1")
	ms := tr.All()
	r := runMatch(t, lines(ms...))
	key := tr.Key()
	digest := matchDigest(tr, ms, tr.LatestCreated())
	var toks []string
	for _, m := range ms {
		toks = append(toks, tok(m))
	}
	sort.Strings(toks)
	for _, p := range []string{BRK, INV, CUSA, CUSB} {
		id := "CNF:" + key + ":1:" + p
		got := r.ByID(id)
		if len(got) != 1 {
			t.Fatalf("want one %s\n%s", id, r.dump())
		}
		o := got[0]
		if o.H("MsgType") != "CNF" || o.H("Function") != "NEW" || o.H("Receiver") != p || o.B("MatchDigest") != digest ||
			o.B("TradeKey") != key || o.B("MatchedAt") != tr.LatestCreated() || o.B("Version") != "" {
			t.Errorf("%s: %s (want digest %s)", id, o.RawBody, digest)
		}
		legs := o.Body.KidsNamed("Leg")
		switch p {
		case BRK, INV:
			if len(legs) != 2 || strings.Join(strings.Fields(o.B("Messages")), " ") != strings.Join(toks, " ") {
				t.Errorf("%s: legs %d, Messages %q", id, len(legs), o.B("Messages"))
			}
		default:
			if len(legs) != 1 || legs[0].T("Custodian") != p || o.Body.Kid("Messages") != nil {
				t.Errorf("%s: a custodian's CNF: %s", id, o.RawBody)
			}
		}
	}
	// The CNF's legs are the CLS's.
	cls := r.CLSFor(key)[0]
	if b := r.ByID("CNF:" + key + ":1:" + BRK)[0]; !strings.Contains(cls.RawBody, strings.Join(legTexts(b), "")) {
		t.Errorf("CNF legs differ from the CLS's:\n%s\n%s", b.RawBody, cls.RawBody)
	}
}

func legTexts(o *OutMsg) []string {
	var out []string
	raw := o.RawBody
	for {
		i := strings.Index(raw, "<Leg>")
		if i < 0 {
			return out
		}
		j := strings.Index(raw[i:], "</Leg>")
		out = append(out, raw[i:i+j+len("</Leg>")])
		raw = raw[i+j:]
	}
}

// §5 (version 3): a SET whose Custodian no ALC in force names for its
// Account is parked: a matched trade stays matched (CLS standing, no CNF
// CANCEL), its Custodian gets nothing but its ACK.
func TestV3_RogueSETChangesNothing(t *testing.T) {
	tr := stdTrade("ROG-1")
	ms := tr.All()
	rogue := tr.SET(0).Set("MsgId", "ROG-1-SETX").Set("Custodian", CUSC).Set("Sender", CUSC).
		Set("Created", ts(tr.Base.Add(time.Hour)))
	r := runMatch(t, lines(append(ms, rogue)...))
	key := tr.Key()
	if ids := r.CLSIDs(key); len(ids) != 1 || r.num("cls") != 1 {
		t.Fatalf("CLS %v, summary %s", ids, r.Stdout)
	}
	expectStatusRound(t, r, key, 1, "MATCHED", BRK, INV, CUSA, CUSB)
	if len(r.StatusRounds(key)) != 1 {
		t.Errorf("a status after the rogue SET:\n%s", statusSummary(r, key))
	}
	for _, o := range r.All {
		if o.H("Receiver") == CUSC && o.ID() != "ACK:"+CUSC+":ROG-1-SETX" {
			t.Errorf("the rogue custodian received %s", o.ID())
		}
		if o.H("Function") == "CANCEL" {
			t.Errorf("%s after a rogue SET", o.ID())
		}
	}
}

// §5a "Early information": block status to the Broker and the InvMgr as
// soon as the block is complete; allegements after the last line, written
// after every other record, each receiver its items in rule order.
func TestV3_BlockStatusAndAllegements(t *testing.T) {
	tr := stdTrade("ALG-1")
	ms := tr.All()
	r := runMatch(t, lines(ms[0], ms[1], ms[2], ms[3])) // NOE, both ALCs, NPR1
	key := tr.Key()
	for _, p := range []string{BRK, INV} {
		b := r.ByID("BLK:" + key + ":1:" + p)
		if len(b) != 1 || b[0].B("Status") != "BLOCK_MATCHED" || b[0].B("TradeRef") != "ALG-1" {
			t.Fatalf("BLK to %s: %v\n%s", p, b, r.dump())
		}
	}
	var algs []*OutMsg
	seenALG := false
	for _, o := range r.All {
		if o.H("MsgType") == "ALG" {
			seenALG = true
			algs = append(algs, o)
		} else if seenALG {
			t.Errorf("%s after an ALG: allegements come after every other record", o.ID())
		}
	}
	owed := map[string]string{}
	for _, o := range algs {
		var items []string
		for _, it := range o.Body.KidsNamed("Owed") {
			items = append(items, it.Attr["msgType"]+"/"+it.Attr["account"]+"/"+it.Attr["quantity"])
		}
		owed[o.H("Receiver")] = strings.Join(items, " ")
		if o.ID() != "ALG:"+key+":1:"+o.H("Receiver") || o.H("Function") != "NEW" || o.B("SettleDate") != tr.Settle {
			t.Errorf("ALG %s: %s", o.ID(), o.RawBody)
		}
	}
	want := map[string]string{BRK: "NPR/ACCB002/500", CUSA: "SET/ACCA001/1000", CUSB: "SET/ACCB002/500"}
	if len(owed) != len(want) {
		t.Errorf("allegements %v, want %v", owed, want)
	}
	for p, w := range want {
		if owed[p] != w {
			t.Errorf("%s owes %q, want %q", p, owed[p], w)
		}
	}
	// Complete: nothing owed, no ALG at all.
	r = runMatch(t, lines(ms...))
	if len(r.ByID("ALG:"+key+":1:"+BRK)) != 0 {
		t.Error("an ALG for a matched trade")
	}
}
