package validation

import (
	"crypto/ed25519"
	"strings"
	"testing"
	"time"

	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/date"
	"github.com/ste-utility/ste/schemas/refdata"
)

const (
	broker  = "BRKASGSGXXX"
	invMgr  = "INVMSGSGXXX"
	cust    = "CUSTSGSGXXX"
	csd     = "CDPLSGSGXXX"
	both    = "UNIVSGSGXXX" // BROKER and CUSTODIAN
	dormant = "DORMSGSGXXX" // INACTIVE broker
	isin    = "SG1L01001701"
)

// testRef is a small reference data set written for these tests.
func testRef() *refdata.Set {
	s := refdata.NewSet()
	s.PutCurrency(refdata.Currency{Code: "SGD", MinorUnits: 2})
	s.PutCurrency(refdata.Currency{Code: "JPY", MinorUnits: 0})
	s.PutCurrency(refdata.Currency{Code: "USD", MinorUnits: 2})
	s.PutCountry(refdata.Country{Code: "SG", Name: "Singapore"})
	s.PutSecurity(refdata.Security{ISIN: isin, Name: "DBS", Currency: "SGD", Country: "SG", Status: refdata.Active})
	s.PutSecurity(refdata.Security{ISIN: "JP3633400001", Name: "Toyota", Currency: "JPY", Country: "SG", Status: refdata.Active})
	s.PutSecurity(refdata.Security{ISIN: "US0378331005", Name: "Apple", Currency: "USD", Country: "SG", Status: refdata.Suspended})
	for _, p := range []struct {
		bic    string
		roles  refdata.Role
		status refdata.Status
	}{
		{broker, refdata.RoleBroker, refdata.Active},
		{invMgr, refdata.RoleInvMgr, refdata.Active},
		{cust, refdata.RoleCustodian, refdata.Active},
		{csd, refdata.RoleCSD, refdata.Active},
		{both, refdata.RoleBroker | refdata.RoleCustodian, refdata.Active},
		{dormant, refdata.RoleBroker, refdata.Inactive},
	} {
		s.PutParticipant(refdata.Participant{BIC: p.bic, Name: p.bic, Roles: p.roles, Country: "SG", Status: p.status,
			Keys: []ed25519.PublicKey{refdata.DemoPublicKey(p.bic)}})
	}
	s.PutHoliday("SG", date.MustParse("2026-11-09")) // Deepavali, a Monday
	return s
}

var clock = func() time.Time { return time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC) }

func keyBody(side string) []schemas.Pair {
	return []schemas.Pair{kv("TradeRef", "T1"), kv("TradeDate", "2026-11-02"), kv("ISIN", isin), kv("Side", side),
		kv("Broker", broker), kv("InvMgr", invMgr)}
}

func noe() *schemas.Draft {
	return &schemas.Draft{MsgId: "M1", MsgType: "NOE", Function: "NEW", Sender: broker, Created: "2026-11-02T01:00:00Z",
		Body: append(keyBody("BUY"), kv("Quantity", "1000"), kv("Price", "10.5"),
			kv("TradeCcy", "SGD"), kv("SettleDate", "2026-11-04"), kv("Market", "XSES"),
			kv("ExecTime", "2026-11-02T00:59:00Z"))}
}

func alc() *schemas.Draft {
	return &schemas.Draft{MsgId: "M2", MsgType: "ALC", Function: "NEW", Sender: invMgr, Created: "2026-11-02T01:00:00Z",
		Body: append(keyBody("BUY"), kv("AllocCount", "1"), kv("Account", "A1"),
			kv("Quantity", "1000"), kv("Price", "10.5"), kv("TradeCcy", "SGD"),
			kv("Custodian", cust), kv("PSET", csd))}
}

func npr(side string) *schemas.Draft {
	net := "10506.29"
	if side == "SELL" {
		net = "10493.71"
	}
	return &schemas.Draft{MsgId: "M3", MsgType: "NPR", Function: "NEW", Sender: broker, Created: "2026-11-02T01:00:00Z",
		Body: append(keyBody(side), kv("Account", "A1"), kv("Quantity", "1000"),
			kv("Price", "10.5"), kv("TradeCcy", "SGD"), kv("GrossAmount", "10500"),
			kv("Commission", "5.04"), kv("Fees", "1.25"), kv("NetAmount", net),
			kv("SettleCcy", "SGD"), kv("SettleDate", "2026-11-04"))}
}

func set() *schemas.Draft {
	return &schemas.Draft{MsgId: "M4", MsgType: "SET", Function: "NEW", Sender: cust, Created: "2026-11-02T01:00:00Z",
		Body: append(keyBody("BUY"), kv("Account", "A1"), kv("Quantity", "1000"),
			kv("SettleDate", "2026-11-04"), kv("SettleCcy", "SGD"), kv("NetAmount", "10506.29"),
			kv("Custodian", cust), kv("PSET", csd), kv("SafekeepingAccount", "SK1"),
			kv("CashAccount", "CA1"))}
}

func with(d *schemas.Draft, f func(*schemas.Draft)) *schemas.Draft { f(d); return d }

// signed signs with the sender's demo key.
func signed(d *schemas.Draft) []byte { return d.AppendSigned(nil, refdata.DemoPrivateKey(d.Sender)) }

func TestRules(t *testing.T) {
	tests := []struct {
		name   string
		rec    []byte
		want   schemas.Reason // 0: valid
		detail string         // substring of the Detail
	}{
		{"valid NOE", signed(noe()), 0, ""},
		{"valid ALC", signed(alc()), 0, ""},
		{"valid NPR BUY", signed(npr("BUY")), 0, ""},
		{"valid NPR SELL", signed(npr("SELL")), 0, ""},
		{"valid SET", signed(set()), 0, ""},
		{"too large", signed(with(noe(), func(d *schemas.Draft) { d.Set("Pad", strings.Repeat("x", 65536)) })), schemas.TooLarge, "65536"},
		{"malformed", []byte("<Msg><Header></Msg>"), schemas.Malformed, "well-formed"},
		{"no Body", []byte("<Msg><Header/></Msg>"), schemas.Malformed, "<Body>"},
		{"quantity 100.0", signed(with(noe(), func(d *schemas.Draft) { d.Set("Quantity", "100.0") })), schemas.Schema, "Quantity"},
		{"price 7 decimals", signed(with(noe(), func(d *schemas.Draft) { d.Set("Price", "10.5000000") })), schemas.Schema, "6 decimals"},
		{"bad date", signed(with(noe(), func(d *schemas.Draft) { d.Set("SettleDate", "2026-02-30") })), schemas.Schema, "SettleDate"},
		{"AllocCount 0", signed(with(alc(), func(d *schemas.Draft) { d.Set("AllocCount", "0") })), schemas.Schema, "AllocCount"},
		{"unknown sender", signed(with(noe(), func(d *schemas.Draft) { d.Sender = "NOBKSGSGXXX" })), schemas.UnknownSender, "not a participant"},
		{"inactive sender", signed(with(noe(), func(d *schemas.Draft) { d.Sender = dormant; d.Set("Broker", dormant) })), schemas.UnknownSender, "INACTIVE"},
		{"wrong key", noe().AppendSigned(nil, refdata.DemoPrivateKey(invMgr)), schemas.Signature, "verify"},
		{"no signature", noe().AppendSigned(nil, nil), schemas.Signature, "missing"},
		{"NOE from the InvMgr", signed(with(noe(), func(d *schemas.Draft) { d.Sender = invMgr })), schemas.NotAuthorised, "Broker"},
		{"SET from another custodian", signed(with(set(), func(d *schemas.Draft) { d.Sender = both })), schemas.NotAuthorised, "Custodian"},
		{"CANCEL from another party", signed(&schemas.Draft{MsgId: "C1", MsgType: "NOE", Function: "CANCEL", Sender: invMgr,
			Created: "2026-11-02T01:00:00Z", RelatedMsgId: "M1", Body: keyBody("BUY")}), schemas.NotAuthorised, ""},
		{"custodian without the role", signed(with(alc(), func(d *schemas.Draft) { d.Set("Custodian", broker) })), schemas.UnknownParty, "CUSTODIAN"},
		{"PSET not a CSD", signed(with(alc(), func(d *schemas.Draft) { d.Set("PSET", cust) })), schemas.UnknownParty, "CSD"},
		{"inactive broker", signed(with(alc(), func(d *schemas.Draft) { d.Set("Broker", dormant) })), schemas.UnknownParty, "INACTIVE"},
		{"ISIN check digit", signed(with(noe(), func(d *schemas.Draft) { d.Set("ISIN", "SG1L01001702") })), schemas.UnknownSecurity, "check digit"},
		{"ISIN unknown", signed(with(noe(), func(d *schemas.Draft) { d.Set("ISIN", "GB0002634946") })), schemas.UnknownSecurity, "not in"},
		{"ISIN suspended", signed(with(noe(), func(d *schemas.Draft) { d.Set("ISIN", "US0378331005") })), schemas.UnknownSecurity, "SUSPENDED"},
		{"currency unknown", signed(with(noe(), func(d *schemas.Draft) { d.Set("TradeCcy", "QQQ") })), schemas.UnknownCurrency, "QQQ"},
		{"settle before trade", signed(with(noe(), func(d *schemas.Draft) { d.Set("SettleDate", "2026-10-30") })), schemas.BadDate, "before"},
		{"settle on Saturday", signed(with(noe(), func(d *schemas.Draft) { d.Set("SettleDate", "2026-11-07") })), schemas.BadDate, "Saturday"},
		{"settle on a holiday", signed(with(noe(), func(d *schemas.Draft) { d.Set("SettleDate", "2026-11-09") })), schemas.BadDate, "holiday"},
		{"same-day settlement", signed(with(noe(), func(d *schemas.Draft) { d.Set("SettleDate", "2026-11-02") })), 0, ""},
		{"trade date on a Sunday", signed(with(noe(), func(d *schemas.Draft) { d.Set("TradeDate", "2026-11-01") })), 0, ""},
		{"created 25h ahead", signed(with(noe(), func(d *schemas.Draft) { d.Created = "2026-11-30T13:00:01Z" })), schemas.BadDate, "24 h"},
		{"created 23h ahead", signed(with(noe(), func(d *schemas.Draft) { d.Created = "2026-11-30T11:00:00Z" })), 0, ""},
		{"old created", signed(with(noe(), func(d *schemas.Draft) { d.Created = "2020-01-01T00:00:00Z" })), 0, ""},
		// Issue 15, defect 1: past the range of int64 nanoseconds the time
		// wrapped around and passed the 24 h rule.
		{"created at the last nanosecond STE holds", signed(with(noe(), func(d *schemas.Draft) { d.Created = "2262-04-11T23:47:16Z" })), schemas.BadDate, "24 h"},
		{"created one second past it", signed(with(noe(), func(d *schemas.Draft) { d.Created = "2262-04-11T23:47:17Z" })), schemas.BadDate, "2262"},
		{"created 9999", signed(with(noe(), func(d *schemas.Draft) { d.Created = "9999-12-31T23:59:59Z" })), schemas.BadDate, "2262"},
		{"created 9999 with an offset", signed(with(noe(), func(d *schemas.Draft) { d.Created = "9999-12-31T23:59:59+14:00" })), schemas.BadDate, "2262"},
		{"created before 1678", signed(with(noe(), func(d *schemas.Draft) { d.Created = "0001-01-01T00:00:00Z" })), schemas.BadDate, "1677"},
		{"execution time in 9999 is held as the latest time", signed(with(noe(), func(d *schemas.Draft) { d.Set("ExecTime", "9999-12-31T23:59:59Z") })), 0, ""},
		{"negative quantity", signed(with(noe(), func(d *schemas.Draft) { d.Set("Quantity", "-5") })), schemas.BadAmount, "positive"},
		{"zero price", signed(with(noe(), func(d *schemas.Draft) { d.Set("Price", "0.00") })), schemas.BadAmount, "positive"},
		{"amount in half cents", signed(with(set(), func(d *schemas.Draft) { d.Set("NetAmount", "10506.295") })), schemas.BadAmount, "minor units"},
		{"1234.5 SGD fine", signed(with(set(), func(d *schemas.Draft) { d.Set("NetAmount", "1234.5") })), 0, ""},
		{"100.0 JPY fine", signed(with(set(), func(d *schemas.Draft) { d.Set("SettleCcy", "JPY"); d.Set("NetAmount", "100.0") })), 0, ""},
		{"100.5 JPY", signed(with(set(), func(d *schemas.Draft) { d.Set("SettleCcy", "JPY"); d.Set("NetAmount", "100.5") })), schemas.BadAmount, "JPY"},
		{"NPR FX", signed(with(npr("BUY"), func(d *schemas.Draft) { d.Set("SettleCcy", "USD") })), schemas.BadAmount, "SettleCcy"},
		{"NPR gross", signed(with(npr("BUY"), func(d *schemas.Draft) { d.Set("GrossAmount", "10500.01") })), schemas.BadAmount, "GrossAmount"},
		{"NPR net BUY as SELL", signed(with(npr("BUY"), func(d *schemas.Draft) { d.Set("NetAmount", "10493.71") })), schemas.BadAmount, "NetAmount"},
		{"NPR gross rounds half away", signed(with(npr("BUY"), func(d *schemas.Draft) {
			d.Set("Quantity", "3")
			d.Set("Price", "0.005")
			d.Set("GrossAmount", "0.02") // 0.015 -> 0.02
			d.Set("Commission", "0")
			d.Set("Fees", "0")
			d.Set("NetAmount", "0.02")
		})), 0, ""},
		// Rule order: the first failing rule gives the code.
		{"empty signature of a known sender", noe().AppendSigned(nil, nil), schemas.Signature, ""},
		{"schema beats unknown sender", signed(with(noe(), func(d *schemas.Draft) { d.Sender = "NOBKSGSGXXX"; d.Set("Quantity", "1.0") })), schemas.Schema, ""},
		{"signature beats not authorised", with(noe(), func(d *schemas.Draft) { d.Sender = invMgr }).AppendSigned(nil, refdata.DemoPrivateKey(broker)), schemas.Signature, ""},
		{"not authorised beats unknown party", signed(with(alc(), func(d *schemas.Draft) { d.Sender = broker; d.Set("PSET", cust) })), schemas.NotAuthorised, ""},
		{"unknown security beats bad date", signed(with(noe(), func(d *schemas.Draft) { d.Set("ISIN", "GB0002634946"); d.Set("SettleDate", "2026-11-07") })), schemas.UnknownSecurity, ""},
		{"bad date beats bad amount", signed(with(noe(), func(d *schemas.Draft) { d.Set("SettleDate", "2026-11-07"); d.Set("Quantity", "0") })), schemas.BadDate, ""},
	}
	v := New(testRef(), WithClock(clock))
	var dec schemas.Decoder
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vd := v.Inspect(&dec, tt.rec)
			var got schemas.Reason
			if vd.Rej != nil {
				got = vd.Rej.Reason
			}
			if got != tt.want {
				t.Fatalf("got %v (%v), want %v", got, vd.Rej, tt.want)
			}
			if vd.Rej != nil && !strings.Contains(vd.Rej.Detail, tt.detail) {
				t.Fatalf("detail %q lacks %q", vd.Rej.Detail, tt.detail)
			}
		})
	}
}

func TestCancelNeedsOnlyKeyFields(t *testing.T) {
	v := New(testRef(), WithClock(clock))
	var dec schemas.Decoder
	c := &schemas.Draft{MsgId: "C1", MsgType: "NPR", Function: "CANCEL", Sender: broker, Created: "2026-11-02T02:00:00Z",
		RelatedMsgId: "M3", Body: keyBody("BUY")}
	if vd := v.Inspect(&dec, signed(c)); vd.Rej != nil {
		t.Fatalf("NPR CANCEL with key fields only: %v", vd.Rej)
	}
	s := &schemas.Draft{MsgId: "C2", MsgType: "SET", Function: "CANCEL", Sender: cust, Created: "2026-11-02T02:00:00Z",
		RelatedMsgId: "M4", Body: keyBody("BUY")}
	if vd := v.Inspect(&dec, signed(s)); vd.Rej == nil || vd.Rej.Reason != schemas.Schema {
		t.Fatalf("SET CANCEL without Custodian: %v", vd.Rej)
	}
	s.Body = append(s.Body, kv("Custodian", cust))
	if vd := v.Inspect(&dec, signed(s)); vd.Rej != nil {
		t.Fatalf("SET CANCEL with Custodian: %v", vd.Rej)
	}
	r := with(npr("BUY"), func(d *schemas.Draft) { d.Function = "REPLACE"; d.MsgId = "R1" })
	if vd := v.Inspect(&dec, signed(r)); vd.Rej == nil || vd.Rej.Reason != schemas.Schema {
		t.Fatalf("REPLACE without RelatedMsgId: %v", vd.Rej)
	}
}

func TestDecide(t *testing.T) {
	v := New(testRef(), WithClock(clock))
	var dec schemas.Decoder
	good := v.Inspect(&dec, signed(noe()))
	other := v.Inspect(&dec, append(signed(noe()), ' '))
	bad := v.Inspect(&dec, signed(with(noe(), func(d *schemas.Draft) { d.Set("Quantity", "0") })))
	if d := good.Decide(good.Digest, true); d != Duplicate {
		t.Fatalf("same bytes: %v", d)
	}
	if d := other.Decide(good.Digest, true); d != Conflict || other.Rej.Reason != schemas.ConflictingDuplicate {
		t.Fatalf("other bytes: %v %v", d, other.Rej)
	}
	if d := bad.Decide(good.Digest, true); d != Reject || bad.Rej.Reason != schemas.BadAmount {
		t.Fatalf("earlier rule first: %v %v", d, bad.Rej)
	}
	if d := good.Decide(bad.Digest, false); d != Accept {
		t.Fatalf("new: %v", d)
	}
	// A duplicate of an accepted message is recognised before validation,
	// even if the reference data changed so that it would now be rejected.
	v.SetRefdata(refdata.NewSet())
	again := v.Inspect(&dec, signed(noe()))
	if again.Rej == nil || again.Decide(good.Digest, true) != Duplicate {
		t.Fatalf("duplicate after a refdata change: %v", again.Rej)
	}
}

func TestNACK(t *testing.T) {
	v := New(testRef(), WithClock(clock))
	var dec schemas.Decoder
	now := clock()
	vd := v.Inspect(&dec, signed(with(noe(), func(d *schemas.Draft) { d.Set("Quantity", "0") })))
	exc, nack := vd.Rejected("line-3", signed(noe()), -1, -1, now)
	if nack == nil || nack.MsgId != "NACK:"+broker+":M1:"+vd.Hash16 || nack.Receiver != broker || exc.NACK != nack.MsgId {
		t.Fatalf("nack %+v", nack)
	}
	if !strings.Contains(string(nack.Body), "<Reason>BAD_AMOUNT</Reason>") {
		t.Fatalf("body %s", nack.Body)
	}
	// No NACK for UNKNOWN_SENDER, MALFORMED, TOO_LARGE.
	for _, rec := range [][]byte{signed(with(noe(), func(d *schemas.Draft) { d.Sender = "NOBKSGSGXXX" })), []byte("<x"),
		signed(with(noe(), func(d *schemas.Draft) { d.Set("Pad", strings.Repeat("x", 70000)) }))} {
		vd := v.Inspect(&dec, rec)
		if _, nack := vd.Rejected("line-1", rec, -1, -1, now); nack != nil {
			t.Fatalf("%v got a NACK", vd.Rej)
		}
	}
	// A known sender of any status gets one, even for SCHEMA; a bad MsgId is "-".
	vd = v.Inspect(&dec, signed(with(noe(), func(d *schemas.Draft) { d.MsgId = "bad id!" })))
	if _, nack := vd.Rejected("line-1", nil, -1, -1, now); nack == nil || !strings.HasPrefix(nack.MsgId, "NACK:"+broker+":-:") {
		t.Fatalf("schema NACK %+v", nack)
	}
}

// Issue 15, defect 6: a NACK repeats at most 128 characters of a value of
// the record, in its RelatedMsgId and its Detail.
func TestNACKDoesNotAmplify(t *testing.T) {
	v := New(testRef(), WithClock(clock))
	var dec schemas.Decoder
	long := strings.Repeat("M", 63<<10)
	for _, rec := range [][]byte{
		signed(with(noe(), func(d *schemas.Draft) { d.MsgId = long })),
		signed(with(noe(), func(d *schemas.Draft) { d.Set("Quantity", long) })),
	} {
		vd := v.Inspect(&dec, rec)
		_, nack := vd.Rejected("line-1", rec, -1, -1, clock())
		if nack == nil || len(nack.Body) > 2*schemas.MaxEcho+200 || strings.Contains(string(nack.Body), long[:schemas.MaxEcho+1]) {
			t.Fatalf("%v: NACK body of %d bytes", vd.Rej, len(nack.Body))
		}
	}
}

func kv(name, value string) schemas.Pair { return schemas.Pair{Name: name, Value: value} }

// TestInspectAtJudgesCreatedAtTheGivenTime: the Created rule is the one
// rule that reads a clock; InspectAt sets it, so a replay decides at the
// time the message was received, not at the time of the replay.
func TestInspectAtJudgesCreatedAtTheGivenTime(t *testing.T) {
	v := New(testRef(), WithClock(clock))
	var dec schemas.Decoder
	rec := signed(noe()) // Created 2026-11-02T01:00Z or so
	m, _ := dec.Decode(rec)
	created := time.Unix(0, m.Created)
	if vd := v.InspectAt(&dec, rec, created.Add(-MaxAhead+time.Minute)); vd.Rej != nil {
		t.Fatalf("received 24 h less a minute before its Created: %v", vd.Rej)
	}
	if vd := v.InspectAt(&dec, rec, created.Add(-MaxAhead-time.Minute)); vd.Rej == nil || vd.Rej.Reason != schemas.BadDate {
		t.Fatalf("received 24 h and a minute before its Created: %v", vd.Rej)
	}
	if a, b := v.Inspect(&dec, rec), v.InspectAt(&dec, rec, clock()); a.Rej != b.Rej && (a.Rej == nil || b.Rej == nil || *a.Rej != *b.Rej) {
		t.Fatalf("Inspect %v, InspectAt the validator's clock %v", a.Rej, b.Rej)
	}
}
