package iso20022

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ste-utility/ste/adapters/iso20022/xsdcheck"
)

// produced collects every ISO document the package's tests produce; the
// last test of the package (TestZZEveryOutputIsSchemaValid) validates them
// all against the pinned XSDs.
var produced struct {
	sync.Mutex
	docs []string
}

func keep(docs ...string) {
	produced.Lock()
	produced.docs = append(produced.docs, docs...)
	produced.Unlock()
}

func example(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(xsdcheck.Dir(), "examples", name))
	if err != nil {
		t.Fatal(err)
	}
	// The examples carry one trailing newline (adapters.md §5.7).
	return strings.TrimSuffix(string(b), "\n")
}

const tk = "ea6dfb599eb7ba5a"

var exampleId = StatusId{AcctOwnrTxId: "CUST/2026/000123", AcctSvcrTxId: "S1:CUST_2F2026_2F000123", MktInfrstrctrTxId: tk}

// The reference forms of adapters.md §5.7, byte for byte.
func TestOutputsAreTheReferenceForms(t *testing.T) {
	rece := &SttlmTxId{TxId: "CUST/2026/000123", Mvmnt: "RECE", Pmt: "APMT"}
	for name, got := range map[string]string{
		"sese.024-out-ACK.xml":       Sese024(exampleId, Status024{Processing: "AckdAccptd"}),
		"sese.024-out-MATCHED.xml":   Sese024(exampleId, Status024{Matching: "Mtchd"}),
		"sese.024-out-EXPIRED.xml":   Sese024(exampleId, Status024{Processing: "Canc", Reasons: []Reason{{"CANS", "STE EXPIRED"}}}),
		"sese.024-out-UNMATCHED.xml": Sese024(exampleId, Status024{Matching: "Umtchd", Unmatched: []Reason{{"CMIS", "STE UNMATCHED"}}}),
		"sese.024-out-MISMATCHED.xml": Sese024(exampleId, Status024{Matching: "Umtchd",
			Unmatched: []Reason{{"DMON", "STE criterion 15"}, {"DEPT", "STE criterion 17"}}}),
		"sese.024-out-NACK.xml": Sese024(exampleId, Status024{Processing: "Rjctd",
			Reasons: []Reason{{"DSEC", "UNKNOWN_SECURITY: ISIN SG1A01315179 not ACTIVE"}}}),
		"sese.024-out-REJECT-422.xml": Sese024(StatusId{AcctOwnrTxId: "CUST/2026/000124"}, Status024{Processing: "Rjctd",
			Reasons: []Reason{rowP7, rowP11}}),
		"sese.027-out-CANCEL-ACK.xml": Sese027("CUST/2026/000123",
			&CancelId{AcctSvcrTxId: "X1:CUST_2F2026_2F000123", MktInfrstrctrTxId: tk, Owner: rece}, "Canc", []Reason{{Code: "CANI"}}),
		"sese.027-out-CANCEL-REJECT.xml": Sese027("CUST/2026/000999",
			&CancelId{Owner: &SttlmTxId{TxId: "CUST/2026/000999", Mvmnt: "RECE", Pmt: "APMT"}}, "Rjctd", []Reason{{"NRGN", "unknown TxId"}}),
		"sese.028-out-ALG-v3.xml": Sese028(Allegement{TxId: tk + "-3", Mvmnt: "RECE", TradeKey: tk, TradeRef: "BT-20261127-0001",
			TradeDate: "2026-11-27", SettleDate: "2026-11-30", ISIN: "SG1A01315179", Quantity: "6000", InvMgr: "AQGOSGSG", Account: "ACC1"}),
		"sese.029-out-ALG-CANCEL-v3.xml": Sese029(SttlmTxId{TxId: tk + "-3", Mvmnt: "RECE", Pmt: "APMT"}),
	} {
		if want := example(t, name); got != want {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want)
		}
		keep(got)
	}
}

// The adapters.md §5.7 ACK, written out in the contract's text.
func TestContractACKBytes(t *testing.T) {
	const want = `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:sese.024.001.12"><SctiesSttlmTxStsAdvc><TxId><AcctOwnrTxId>CUST/2026/000123</AcctOwnrTxId><AcctSvcrTxId>S1:CUST_2F2026_2F000123</AcctSvcrTxId><MktInfrstrctrTxId>ea6dfb599eb7ba5a</MktInfrstrctrTxId></TxId><PrcgSts><AckdAccptd><NoSpcfdRsn>NORE</NoSpcfdRsn></AckdAccptd></PrcgSts></SctiesSttlmTxStsAdvc></Document>`
	if got := Sese024(exampleId, Status024{Processing: "AckdAccptd"}); got != want {
		t.Fatalf("got %s", got)
	}
}

// Text is escaped as §3.1 says, AddtlRsnInf cut to 210 characters, and a
// MsgId over 35 characters is left out of AcctSvcrTxId.
func TestOutputTextRules(t *testing.T) {
	long := strings.Repeat("é", 300)
	got := Sese024(StatusId{AcctOwnrTxId: "A&B<C>\rD", AcctSvcrTxId: "S1::" + strings.Repeat("a", 40), MktInfrstrctrTxId: tk},
		Status024{Processing: "Rjctd", Reasons: []Reason{{"OTHR", long}}})
	if !strings.Contains(got, "<AcctOwnrTxId>A&amp;B&lt;C&gt;&#13;D</AcctOwnrTxId><MktInfrstrctrTxId>") {
		t.Errorf("escaping or AcctSvcrTxId: %s", got)
	}
	if !strings.Contains(got, "<AddtlRsnInf>"+strings.Repeat("é", 210)+"</AddtlRsnInf>") {
		t.Errorf("AddtlRsnInf not cut to 210 characters")
	}
	keep(got, Sese024(exampleId, Status024{Processing: "CxlReqd", Matching: "Mtchd"}),
		Sese027("T1", &CancelId{AcctSvcrTxId: "X1:T1", MktInfrstrctrTxId: tk, Owner: &SttlmTxId{"T1", "DELI", "APMT"}}, "PdgCxl", nil),
		Sese027("T1", nil, "Rjctd", []Reason{{"NRGN", "unknown TxId"}}),
		Sese028(Allegement{TxId: tk + "-2-1", Mvmnt: "DELI", TradeKey: tk, TradeRef: "R&D", TradeDate: "2026-11-27",
			SettleDate: "2026-11-30", ISIN: "SG1A01315179", Quantity: "10", InvMgr: "AQGOSGSG", Account: strings.Repeat("x", 36)}))
}
