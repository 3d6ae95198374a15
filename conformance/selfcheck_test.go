package conformance

import (
	"strings"
	"testing"
)

// TestSuiteSelfCheck checks the suite's own helpers against known values so
// that a failure elsewhere is the product's, not the suite's.
func TestSuiteSelfCheck(t *testing.T) {
	for _, isin := range []string{"US0378331005", "AU000000ACC5", "US25799N1019", "GB0002634946"} {
		if got := mkISIN(isin[:11]); got != isin {
			t.Errorf("ISIN check digit of %s: got %s", isin, got)
		}
	}
	// FNV-1a 64 of the empty string is the offset basis.
	if got := tradeKey("", "", "", "", "", ""); got == "" || len(got) != 16 {
		t.Errorf("trade key length: %q", got)
	}
	if got := mulRound(1, "10.125", 2); got != "10.13" {
		t.Errorf("mulRound half away: %s", got)
	}
	if got := mulRound(1, "100.5", 0); got != "101" {
		t.Errorf("mulRound JPY: %s", got)
	}
	if got := mulRound(3, "0.3333", 2); got != "1.00" {
		t.Errorf("mulRound: %s", got)
	}
	tr := stdTrade("SELF-1")
	if tr.Net(0) != "12356.50" || tr.Net(1) != "6178.25" {
		t.Errorf("net amounts %s %s", tr.Net(0), tr.Net(1))
	}
	l := tr.NOE().Line()
	if !strings.HasPrefix(l, "<Msg><Header><MsgId>SELF-1-NOE</MsgId>") {
		t.Errorf("line: %s", l)
	}
}
