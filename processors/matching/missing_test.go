package matching

import (
	"reflect"
	"testing"

	"github.com/ste-utility/ste/schemas"
)

// Missing follows docs/spec/gateway.md §4's four rules in their order, from the
// messages in force only: parties from the key fields, the ALC shortfall by
// AllocCount, then NPR and SET per ALC account in byte order, the SET owed by
// the Custodian of the account's first ALC by MsgId.
func TestMissing(t *testing.T) {
	m := standard("T1") // NOE, ALC1 (A1, cust1), ALC2 (A2, cust2), NPR1, NPR2, SET1, SET2
	owed := func(ds ...*schemas.Draft) []Owed {
		t.Helper()
		f := newFixture(t)
		f.sendAll(ds)
		tr := f.book.Trade(tradeKey("T1"))
		got := tr.Missing()
		if v := tr.View(); !reflect.DeepEqual(v.Missing, got) {
			t.Fatalf("the view's missing %+v differs from Missing %+v", v.Missing, got)
		}
		return got
	}
	cases := []struct {
		name string
		msgs []*schemas.Draft
		want []Owed
	}{
		{"complete", m, []Owed{}},
		{"only a SET", m[5:6], []Owed{{MsgType: "NOE", From: broker}, {MsgType: "ALC", From: invMgr}}},
		{"one ALC of two", []*schemas.Draft{m[0], m[2]}, []Owed{
			{MsgType: "ALC", From: invMgr, Count: 1},
			{MsgType: "NPR", Account: "A2", From: broker, Quantity: 400},
			{MsgType: "SET", Account: "A2", From: cust2, Quantity: 400}}},
		{"no NOE, SETs missing", []*schemas.Draft{m[1], m[2], m[3], m[4]}, []Owed{
			{MsgType: "NOE", From: broker},
			{MsgType: "SET", Account: "A1", From: cust1, Quantity: 600},
			{MsgType: "SET", Account: "A2", From: cust2, Quantity: 400}}},
		{"a cancelled NPR is owed again", append(append([]*schemas.Draft{}, m...), cancelOf(m[3], "T1-NPR1-C", 40)), []Owed{
			{MsgType: "NPR", Account: "A1", From: broker, Quantity: 600}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := owed(c.msgs...); !reflect.DeepEqual(got, c.want) {
				t.Fatalf("missing %+v, want %+v", got, c.want)
			}
		})
	}

	// Complete by count yet missing: ALCs of A1 and A2, NPRs of A1 and A3.
	npr3 := npr("T1", 3, "A3", "400", "4200.00", "3.36", "1.25", "4204.61")
	got := owed(m[0], m[1], m[2], m[3], npr3, m[5], m[6])
	if want := []Owed{{MsgType: "NPR", Account: "A2", From: broker, Quantity: 400}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("complete by count: missing %+v, want %+v", got, want)
	}

	// Two ALCs of one account: the SET is owed by the first's Custodian by MsgId.
	a1b := alc("T1", 0, "A1", "400", "CUSTZZSGXXX") // MsgId T1-ALC0 sorts before T1-ALC1
	got = owed(m[0], a1b, m[1])
	want := []Owed{{MsgType: "NPR", Account: "A1", From: broker, Quantity: 400}, {MsgType: "SET", Account: "A1", From: "CUSTZZSGXXX", Quantity: 400}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("two ALCs of one account: missing %+v, want %+v", got, want)
	}
}
