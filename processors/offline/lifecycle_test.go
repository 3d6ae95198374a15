package offline

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ste-utility/ste/processors/matching"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/workload"
)

// The summary's contract fields come first, in the order of cli.md.
func TestSummaryFields(t *testing.T) {
	b, _ := json.Marshal(Summary{})
	want := `{"messages":0,"cls":0,"mismatched":0,"locked":0,"cancelled":0,"exceptions":0,"seconds":0,`
	if !strings.HasPrefix(string(b), want) {
		t.Fatalf("%s", b)
	}
}

// Allegements are computed once after the last line and written after
// every other record: the incomplete trades of a realistic set are alleged
// what they lack, and nothing else is.
func TestAllegementsAfterTheLastLine(t *testing.T) {
	recs, _, plans := generate(t, 300, workload.Realistic, 5)
	r := run(t, recs)
	first := -1
	alleged := map[string]bool{}
	for i, b := range r.out {
		o, err := schemas.ParseOutput(b)
		if err != nil {
			t.Fatal(err)
		}
		if o.MsgType != "ALG" {
			if first >= 0 {
				t.Fatalf("record %d (%s) after the first ALG (%d)", i, o.MsgId, first)
			}
			continue
		}
		if first < 0 {
			first = i
		}
		if o.Function != "NEW" || !bytes.Contains(o.Body, []byte("<Owed msgType=")) {
			t.Fatalf("ALG %s: %s", o.MsgId, o.Body)
		}
		alleged[o.TradeKey] = true
	}
	incomplete := 0
	for _, p := range plans {
		if p.Outcome == workload.OutcomeIncomplete {
			incomplete++
		}
		// A trade incomplete by construction owes something; a matched one
		// nothing. (A mismatched one may: an NPR of the wrong account.)
		if got := alleged[p.TradeKey]; p.Outcome == workload.OutcomeIncomplete && !got && p.Scenario != "incomplete_noe_cancelled" ||
			p.Outcome == workload.OutcomeMatched && got {
			t.Errorf("%s (%s, %s): alleged %v", p.TradeRef, p.Scenario, p.Outcome, got)
		}
	}
	if incomplete == 0 || first < 0 {
		t.Fatalf("%d incomplete trades, first ALG at %d", incomplete, first)
	}
}

// autoRefdata is the default reference data with every investment manager
// AUTO (affirmation.csv), for the engine and for validation, which
// authorises the utility's AFF by the same mode.
func autoRefdata() *refdata.Set {
	ref := refdata.Default().Clone()
	for _, p := range ref.ParticipantsWithRole(refdata.RoleInvMgr, true) {
		ref.PutAffirmation(refdata.Affirmation{InvMgr: p.BIC, Mode: refdata.AffirmAuto})
	}
	return ref
}

// For an AUTO investment manager `ste match` processes the utility's AFF
// right after the line that made the trade match: its ACK to the utility
// follows that line's outputs and comes before the next line's; it is not
// counted in messages; the trade ends locked.
func TestAutoAffirmationAfterItsLine(t *testing.T) {
	recs, _, _ := generate(t, 2, workload.Standard, 9)
	ref := autoRefdata()
	r := runWithRef(t, recs, matching.NewBook(matching.WithConfig(EngineConfig("STEUTLSGXXX", ref))), ref)
	var order []string
	for _, b := range r.out {
		o, _ := schemas.ParseOutput(b)
		order = append(order, o.MsgId)
	}
	if r.sum.Messages != len(recs) || r.sum.Auto != 2 || r.sum.Locked != 2 || r.sum.Exceptions != 0 {
		t.Fatalf("summary %+v", r.sum)
	}
	acks := 0
	for i, id := range order {
		if strings.HasPrefix(id, "ACK:STEUTLSGXXX:AUTO:") {
			acks++
			// Before it, the CNFs (and BLKs) of the line that matched; after
			// it, the AFFIRMED.
			if key := strings.Split(id, ":")[3]; !strings.Contains(order[i-1], key) || strings.HasPrefix(order[i-1], "ACK:") ||
				!strings.HasPrefix(order[i+1], "ST:"+key) {
				t.Fatalf("around %s: %s", id, strings.Join(order[max(0, i-3):min(len(order), i+3)], " "))
			}
		}
	}
	if acks != 2 {
		t.Fatalf("%d ACKs to the utility", acks)
	}
}
