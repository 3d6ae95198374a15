package conformance

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/analytics/report"
	"github.com/ste-utility/ste/analytics/rows"
	"github.com/ste-utility/ste/analytics/store"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topology"
)

// testLifecycle: contract version 3's outputs (STATUS with lifecycle values,
// CNF, ALG) go through the ingest into outbound with their lifecycle facts
// (schema 4), and the timeliness report's affirmation metric and the
// allegements report give the numbers of a small known dataset:
//
//   - four trades of XNYS, cutoff t0+1h, each with one message sent at t0;
//   - T1 matched at t0+1m and AFFIRMED at t0+10m: affirmed by the cutoff;
//   - T2 matched, first locked (CHANGE_PENDING) at t0+2h: affirmed late;
//   - T3 matched, AFFIRMED at t0+5m, then CANCELLED (CLS CANCEL): not
//     counted for the affirmation share, nor past cutoff unmatched;
//   - T4 matched, never affirmed;
//   - allegements: CUS1 on T4 alleged at t0+2m, withdrawn at t0+30m; IM1
//     on T2 at t0+5m, withdrawn at t0+90m (after the cutoff); BRK1 on T4
//     at t0+3m, alleged again (new items) at t0+4m, still outstanding
//     (past the cutoff).
func (s *suite) testLifecycle(t *testing.T) {
	st, _ := s.open(t, store.Options{})
	ns := s.name("life")
	s.topicsFor(t, ns)
	ctx := ctxFor(t, 2*time.Minute)
	t0 := time.Now().UTC().Add(-3 * time.Hour).Truncate(time.Minute)
	cut := t0.Add(time.Hour)
	const brk, im, cus, mkt = "BRKASGSGXXX", "IMGRSGSGXXX", "CUSASGSGXXX", "XNYS"
	signer := &schemas.Signer{BIC: refdata.DefaultUtilityBIC, Key: refdata.DemoPrivateKey(refdata.DefaultUtilityBIC)}
	names := topology.Names{NS: ns}
	key := func(i int) schemas.TradeKey { return schemas.TradeKey(0xa0 + uint64(i)) }
	k := func(i int) schemas.Key {
		return schemas.Key{TradeRef: fmt.Sprintf("T%d", i), TradeDate: t0.Format(time.DateOnly), ISIN: "US0378331005", Side: "BUY", Broker: brk, InvMgr: im}
	}
	d := func(c byte) string { return strings.Repeat(string(c), 64) }

	var audit []rows.Audit
	var cls []rows.CLS
	var recs []*kgo.Record
	out := func(o *schemas.Output, at time.Time) {
		recs = append(recs, &kgo.Record{Topic: names.Outbound(), Key: []byte(o.Receiver), Value: signer.Encode(o), Timestamp: at})
	}
	status := func(i, n int, st schemas.Status, v *schemas.StatusV3, at time.Time) {
		for _, r := range []string{brk, im} {
			out(&schemas.Output{Type: schemas.STATUS, MsgId: schemas.StatusId(key(i), n, r), Receiver: r,
				Body: schemas.StatusBodyV3(key(i), k(i).TradeRef, st, nil, v)}, at)
		}
	}
	for i := 1; i <= 4; i++ {
		tk := key(i).String()
		sender := brk
		if i == 2 {
			sender = im // T2's one message is the investment manager's: a participant of its own
		}
		audit = append(audit, rows.Audit{Source: rows.Source{Namespace: ns, Offset: int64(i), Time: t0}, Step: 0, Steps: 1,
			At: t0, Stage: "match", Event: "applied", Outcome: "accepted", TradeKey: tk, Sender: sender, MsgId: fmt.Sprintf("N%d", i),
			MsgType: "NOE", Function: "NEW", InboundAt: t0, Market: mkt, Cutoff: cut})
		cls = append(cls, rows.CLS{Source: rows.Source{Namespace: ns, Offset: int64(i), Time: t0.Add(time.Minute)},
			MsgId: schemas.CLSId(key(i), 1), Function: "NEW", TradeKey: tk, Version: 1})
		status(i, 1, schemas.Matched, nil, t0.Add(time.Minute))
		c := &schemas.CLSContent{Key: k(i), TradeKey: key(i), Quantity: 100}
		out(&schemas.Output{Type: schemas.CNF, MsgId: schemas.CNFId(key(i), 1, im), Receiver: im,
			Body: schemas.CNFBody(c, d('c'), "", []string{brk + ":N"})}, t0.Add(time.Minute))
	}
	status(1, 2, schemas.Affirmed, &schemas.StatusV3{MatchDigest: d('1')}, t0.Add(10*time.Minute))
	status(2, 2, schemas.ChangePending, &schemas.StatusV3{MatchDigest: d('2'), HasPending: true, Pending: []string{cus + ":S-R"},
		Proposal: &schemas.Proposal{Digest: d('3'), Tokens: []string{brk + ":N"}}}, t0.Add(2*time.Hour))
	status(3, 2, schemas.Affirmed, &schemas.StatusV3{MatchDigest: d('4')}, t0.Add(5*time.Minute))
	status(3, 3, schemas.Cancelled, &schemas.StatusV3{HasCancelledBy: true, CancelledBy: []string{brk + ":X", im + ":A"}}, t0.Add(20*time.Minute))
	cls = append(cls, rows.CLS{Source: rows.Source{Namespace: ns, Offset: 9, Time: t0.Add(20 * time.Minute)},
		MsgId: schemas.CLSCancelId(key(3), 1), Function: "CANCEL", TradeKey: key(3).String(), Version: 1})
	alg := func(i, n int, r string, cancel bool, at time.Time) {
		kk := k(i)
		o := &schemas.Output{Type: schemas.ALG, MsgId: schemas.ALGId(key(i), n, r), Receiver: r,
			Body: schemas.ALGBody(&kk, key(i), 0, []schemas.Owed{{MsgType: "SET", Account: "A1", Quantity: 100}})}
		if cancel {
			o.Function, o.RelatedMsgId, o.Body = schemas.CANCEL, schemas.ALGId(key(i), n-1, r), schemas.ALGCancelBody(key(i), kk.TradeRef)
		}
		out(o, at)
	}
	alg(4, 1, cus, false, t0.Add(2*time.Minute))
	alg(4, 2, cus, true, t0.Add(30*time.Minute))
	alg(2, 1, im, false, t0.Add(5*time.Minute))
	alg(2, 2, im, true, t0.Add(90*time.Minute))
	alg(4, 1, brk, false, t0.Add(3*time.Minute))
	alg(4, 2, brk, false, t0.Add(4*time.Minute))
	for _, err := range []error{st.InsertAudit(ctx, "", audit), st.InsertCLS(ctx, "", cls), st.TouchNamespace(ctx, ns, time.Now())} {
		if err != nil {
			t.Fatal(err)
		}
	}
	s.produce(t, recs)
	in := s.startIngest(t, ctx, st, ns, nil)
	if err := in.CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	if err := in.Stop(); err != nil {
		t.Fatal(err)
	}

	// The lifecycle facts, as stored.
	var digest, proposal, ref string
	var pending []string
	if err := st.Conn().QueryRow(ctx, "SELECT match_digest, proposal_digest, trade_ref, pending FROM "+st.Table("outbound")+
		" WHERE namespace = ? AND msg_type = 'STATUS' AND status = 'CHANGE_PENDING' LIMIT 1", ns).Scan(&digest, &proposal, &ref, &pending); err != nil {
		t.Fatal(err)
	}
	if digest != d('2') || proposal != d('3') || ref != "T2" || !reflect.DeepEqual(pending, []string{cus + ":S-R"}) {
		t.Errorf("CHANGE_PENDING row: digest %s, proposal %s, ref %s, pending %v", digest, proposal, ref, pending)
	}
	var by []string
	if err := st.Conn().QueryRow(ctx, "SELECT cancelled_by FROM "+st.Table("outbound")+
		" WHERE namespace = ? AND status = 'CANCELLED' LIMIT 1", ns).Scan(&by); err != nil || len(by) != 2 {
		t.Errorf("CANCELLED row: %v %v", by, err)
	}
	if n := count(t, st, "SELECT count() FROM {db}.outbound WHERE namespace = ? AND msg_type = 'CNF' AND inv_mgr = ? AND match_digest = ?", ns, im, d('c')); n != 4 {
		t.Errorf("%d CNF rows with their InvMgr and digest, want 4", n)
	}
	if n := count(t, st, "SELECT count() FROM {db}.outbound WHERE namespace = ? AND msg_type = 'ALG' AND function = 'NEW' AND owed = ['SET A1']", ns); n != 4 {
		t.Errorf("%d ALG NEW rows with their item, want 4", n)
	}

	// Timeliness: DTCC's metric.
	res, err := report.Run(ctx, st, "timeliness", report.Params{Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	tl := res.(*report.TimelinessResult)
	want := report.TimelinessMarket{Market: mkt, Trades: 4, Matched: 3, InTime: 3, PastCutoff: 0, Cancelled: 1, Affirmed: 2, AffirmedInTime: 1}
	if len(tl.Markets) != 1 {
		t.Fatalf("markets %+v", tl.Markets)
	}
	got := tl.Markets[0]
	if got.Market != want.Market || got.Trades != want.Trades || got.Matched != want.Matched || got.InTime != want.InTime ||
		got.PastCutoff != want.PastCutoff || got.Cancelled != want.Cancelled || got.Affirmed != want.Affirmed ||
		got.AffirmedInTime != want.AffirmedInTime || !near(got.AffirmedShare, 1.0/3) {
		t.Errorf("timeliness %+v, want %+v and a third affirmed by the cutoff", got, want)
	}
	// Median first message to first lock: T1 10 min, T2 2 h.
	if !near(got.MedianToAffirm, (600+7200)/2) {
		t.Errorf("median to affirm %v s", got.MedianToAffirm)
	}
	// Per participant: the broker's trades T1, T3, T4 (T1 affirmed in
	// time, T3 cancelled), the investment manager's T2 (affirmed late).
	if p := tl.Participants; len(p) != 2 || p[0].Participant != brk || p[0].Trades != 3 || p[0].Affirmed != 1 || p[0].AffirmedInTime != 1 ||
		!near(p[0].AffirmedShare, 0.5) || p[1].Participant != im || p[1].Trades != 1 || p[1].Affirmed != 1 || p[1].AffirmedInTime != 0 {
		t.Errorf("participants %+v", p)
	}
	var b strings.Builder
	if err := tl.WriteText(&b); err != nil || !strings.Contains(b.String(), "share affirmed by cutoff") || !strings.Contains(b.String(), "33.3%") {
		t.Errorf("timeliness text:\n%s", b.String())
	}

	// Allegements: the latest answerers first.
	res, err = report.Run(ctx, st, "allegements", report.Params{Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	al := res.(*report.AllegementsResult)
	type row struct {
		who                                            string
		alleged, answered, outstanding, lateA, lateOut uint64
		median                                         float64
	}
	var rs []row
	for _, x := range al.Rows {
		if x.Market != mkt {
			t.Errorf("market %q", x.Market)
		}
		rs = append(rs, row{x.Participant, x.Alleged, x.Answered, x.Outstanding, x.AnsweredLate, x.OutstandingLate, x.MedianAnswer})
	}
	wantRows := []row{{im, 1, 1, 0, 1, 0, 85 * 60}, {brk, 1, 0, 1, 0, 1, 0}, {cus, 1, 1, 0, 0, 0, 28 * 60}}
	if !reflect.DeepEqual(rs, wantRows) {
		t.Errorf("allegements %+v\nwant %+v", rs, wantRows)
	}
	if o := al.Rows[1].OldestOutstanding; o < time.Since(t0.Add(4*time.Minute)).Seconds()-60 || o > time.Since(t0.Add(3*time.Minute)).Seconds()+60 {
		t.Errorf("BRK1's allegement outstanding %v s, first sent %v ago", o, time.Since(t0.Add(3*time.Minute)))
	}
	if al.Total.Alleged != 3 || al.Total.Late != 2 {
		t.Errorf("total %+v", al.Total)
	}
	b.Reset()
	if err := al.WriteText(&b); err != nil || !strings.Contains(b.String(), im) || !strings.Contains(b.String(), "outstanding past cutoff") {
		t.Errorf("allegements text:\n%s", b.String())
	}
}
