package conformance

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// §6 ACK: MsgId ACK:<Sender>:<MsgId>, to the Sender, RelatedMsgId in the
// Header and the Body, Function NEW, Sender the utility, signed.
func TestOutput_ACKFormat(t *testing.T) {
	tr := stdTrade("ACK-1")
	ms := tr.All()
	r := runMatch(t, lines(ms...))
	for _, m := range ms {
		id := "ACK:" + m.Sender() + ":" + m.ID()
		acks := r.ByID(id)
		if len(acks) != 1 {
			t.Errorf("want one %s, got %d", id, len(acks))
			continue
		}
		a := acks[0]
		if a.H("MsgType") != "ACK" || a.H("Function") != "NEW" || a.H("Receiver") != m.Sender() || a.H("Sender") != utilityBIC {
			t.Errorf("%s header: MsgType %q Function %q Sender %q Receiver %q", id, a.H("MsgType"), a.H("Function"), a.H("Sender"), a.H("Receiver"))
		}
		if a.H("RelatedMsgId") != m.ID() || a.B("RelatedMsgId") != m.ID() {
			t.Errorf("%s: RelatedMsgId header %q body %q, want %q in both", id, a.H("RelatedMsgId"), a.B("RelatedMsgId"), m.ID())
		}
	}
	// exactly 7 ACKs + 4 STATUS, nothing else on outbound
	if len(r.Out) != 11 {
		t.Errorf("%d outbound records, want 11", len(r.Out))
	}
}

// §6 CLS NEW formatting: prices without trailing zeros, amounts with exactly
// the currency's minor units, MatchedAt the latest Created in UTC with
// milliseconds (an offset Created is converted), legs ordered by Account in
// byte order.
func TestOutput_CLSFormatting_SGD(t *testing.T) {
	tr := stdTrade("FMT-1")
	tr.Price = "12.5000"
	tr.Allocs = []Alloc{
		{Acct: "b-acct", Qty: 100, Cust: CUSA, PSET: CSD, Comm: "1", Fees: "0.5"},
		{Acct: "ACC9", Qty: 200, Cust: CUSB, PSET: CSD, Comm: "2.0", Fees: "0.25"},
		{Acct: "ACC10", Qty: 300, Cust: CUSA, PSET: CSD2, Comm: "3.00", Fees: "0"},
	}
	ms := tr.All()
	// amounts written with fewer decimals in the inbound messages
	ms[5].Set("GrossAmount", "2500").Set("NetAmount", "2502.25") // NPR ACC9: 200*12.5=2500
	ms[7].Set("NetAmount", "1251.5")                             // SET b-acct: 1250+1+0.5
	// latest Created given with an offset, 17:55+08:00 = 09:55Z
	ms[9].Set("Created", "2026-03-02T17:55:00.5+08:00")
	r := runMatch(t, lines(ms...))
	cls := r.CLSFor(tr.Key())
	if len(cls) != 1 {
		t.Fatalf("not matched: %v\n%s", r.CLSIDs(tr.Key()), r.dump())
	}
	c := cls[0]
	if c.B("Price") != "12.5" {
		t.Errorf("CLS Price %q, want 12.5", c.B("Price"))
	}
	if c.B("MatchedAt") != "2026-03-02T09:55:00.500Z" {
		t.Errorf("CLS MatchedAt %q, want 2026-03-02T09:55:00.500Z", c.B("MatchedAt"))
	}
	legs := c.Body.KidsNamed("Leg")
	wantAcct := []string{"ACC10", "ACC9", "b-acct"}
	wantNet := []string{"3753.00", "2502.25", "1251.50"}
	if len(legs) != 3 {
		t.Fatalf("%d legs", len(legs))
	}
	for i, l := range legs {
		if l.T("Account") != wantAcct[i] || l.T("NetAmount") != wantNet[i] {
			t.Errorf("leg %d: Account %q NetAmount %q, want %q %q", i+1, l.T("Account"), l.T("NetAmount"), wantAcct[i], wantNet[i])
		}
	}
	// field order of the CLS body as listed in §6 (informational: checked
	// strictly because consumers may stream-parse)
	var names []string
	for _, k := range c.Body.Kids {
		names = append(names, k.Name)
	}
	want := "TradeRef TradeDate ISIN Side Broker InvMgr TradeKey Version Quantity Price TradeCcy SettleDate MatchedAt Leg Leg Leg"
	if strings.Join(names, " ") != want {
		t.Logf("note: CLS body element order %q differs from the listing in §6 %q", strings.Join(names, " "), want)
	}
}

// §6: JPY amounts have no decimals in output (1234), prices keep their
// significant decimals.
func TestOutput_CLSFormatting_JPY(t *testing.T) {
	tr := jpTrade("FMTJ-1")
	tr.Price = "1234.50"
	tr.Allocs[0].Qty = 10
	tr.Allocs[0].Comm = "10.0"
	tr.Allocs[0].Fees = "0"
	ms := tr.All() // gross 12345, net 12355
	ms[3].Set("NetAmount", "12355.0")
	r := runMatch(t, lines(ms...))
	cls := r.CLSFor(tr.Key())
	if len(cls) != 1 {
		t.Fatalf("not matched: %v\n%s", r.CLSIDs(tr.Key()), r.dump())
	}
	c := cls[0]
	if c.B("Price") != "1234.5" {
		t.Errorf("CLS Price %q, want 1234.5", c.B("Price"))
	}
	if l := c.Body.Kid("Leg"); l == nil || l.T("NetAmount") != "12355" {
		t.Errorf("CLS leg NetAmount %q, want 12355 (JPY: 0 minor units)", l.T("NetAmount"))
	}
	if c.B("TradeCcy") != "JPY" {
		t.Errorf("TradeCcy %q", c.B("TradeCcy"))
	}
}

// §6: CLS text values are XML-escaped correctly (a TradeRef and accounts with
// markup characters round-trip).
func TestOutput_EscapingRoundTrip(t *testing.T) {
	tr := stdTrade("ESC-1")
	tr.IDPrefix = "ESC-1"
	tr.Ref = "ESC<&>'\"1"
	tr.Allocs[0].Acct = "A&B<1>"
	r := runMatch(t, lines(tr.All()...))
	cls := r.CLSFor(tr.Key())
	if len(cls) != 1 {
		t.Fatalf("not matched: %v", r.CLSIDs(tr.Key()))
	}
	checkCLSNew(t, cls[0], tr, 1)
	for _, o := range r.Statuses(tr.Key()) {
		if o.B("TradeRef") != tr.Ref {
			t.Errorf("STATUS TradeRef %q, want %q", o.B("TradeRef"), tr.Ref)
		}
	}
}

// §6: MatchedAt is the latest Created among the messages in force, not the
// wall clock and not the last processed message's Created.
func TestOutput_MatchedAtIsLatestCreatedInForce(t *testing.T) {
	tr := stdTrade("MAT-1")
	ms := tr.All()
	// the latest Created is on the NOE, which is processed first
	ms[0].Set("Created", "2026-03-02T11:11:11.111Z")
	r := runMatch(t, lines(ms...))
	cls := r.CLSFor(tr.Key())
	if len(cls) != 1 {
		t.Fatalf("not matched")
	}
	if got := cls[0].B("MatchedAt"); got != "2026-03-02T11:11:11.111Z" {
		t.Errorf("MatchedAt %q, want 2026-03-02T11:11:11.111Z", got)
	}
}

// §6: every output is one line; the output files exist even when empty.
func TestOutput_EmptyInput(t *testing.T) {
	r := runMatch(t, []string{"", ""})
	if len(r.Out) != 0 || len(r.CLS) != 0 || len(r.Exc) != 0 {
		t.Errorf("outputs for an input of empty lines")
	}
	if r.num("messages") != 0 || r.num("cls") != 0 || r.num("mismatched") != 0 || r.num("exceptions") != 0 {
		t.Errorf("summary %s, want all zero", r.Stdout)
	}
}

// docs/spec/cli.md: `ste match` without --refdata uses the committed default set; a
// `ste gen` standard set matches completely, and its messages carry
// signatures that verify with the demo-key rule against the default data.
func TestOutput_DefaultRefdataWithGeneratedSet(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "set.txt")
	g := execSte(t, "gen", "--trades", "3", "--out", f, "--seed", "11")
	if g.code != 0 {
		t.Fatalf("ste gen: %d %s", g.code, g.stderr)
	}
	raw, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	in := splitLines(string(raw))
	if len(in) != 21 {
		t.Errorf("standard set of 3 trades has %d lines, want 21", len(in))
	}
	// independent signature check with the default participants' keys
	keys := map[string]string{}
	pf, _ := os.Open(filepath.Join("..", "schemas", "refdata", "default", "participants.csv"))
	recs, _ := csv.NewReader(pf).ReadAll()
	pf.Close()
	for _, rec := range recs {
		if len(rec) >= 6 {
			keys[rec[0]] = rec[5]
		}
	}
	for i, l := range in {
		s := reSender.FindStringSubmatch(l)
		if s == nil {
			t.Errorf("gen line %d: no Sender", i+1)
			continue
		}
		region, _ := signedRegion(l)
		o, err := parseOut(l)
		if err != nil || o.Root.Kid("Sig") == nil {
			t.Errorf("gen line %d unparsable", i+1)
			continue
		}
		sig, _ := base64.StdEncoding.DecodeString(strings.TrimSpace(o.Root.Kid("Sig").Text))
		pk, _ := base64.StdEncoding.DecodeString(keys[s[1]])
		if len(pk) != ed25519.PublicKeySize || !ed25519.Verify(pk, []byte(region), sig) {
			t.Errorf("gen line %d: signature does not verify with %s's key in the default data", i+1, s[1])
		}
		if string(pk) != string(demoPub(s[1])) {
			t.Errorf("default participants.csv key of %s is not its demo key", s[1])
		}
	}
	r := runMatch(t, in, withRefdata("-"))
	if r.num("cls") != 3 || r.num("exceptions") != 0 || r.num("mismatched") != 0 {
		t.Errorf("summary %s, want cls 3", r.Stdout)
	}
	_ = time.Now
}
