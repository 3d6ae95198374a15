package iso20022

import (
	"errors"
	"testing"

	"github.com/ste-utility/ste/adapters/iso20022/xsdcheck"
	"github.com/ste-utility/ste/testgate"
)

func TestPinnedSchemas(t *testing.T) {
	if err := xsdcheck.VerifyPinned(); err != nil {
		t.Fatal(err)
	}
}

// TestZZEveryOutputIsSchemaValid validates every ISO document this
// package's tests produced (outputs, 422 bodies) with xmllint --schema
// against the pinned XSDs. It runs last (go test runs a file's tests in
// order, files by name); run alone it validates the reference forms.
func TestZZEveryOutputIsSchemaValid(t *testing.T) {
	if !xsdcheck.Available() {
		testgate.Need(t, "xmllint (make system-packages installs libxml2-utils)", errors.New("xmllint is not installed"))
	}
	produced.Lock()
	docs := append([]string(nil), produced.docs...)
	produced.Unlock()
	if len(docs) == 0 {
		t.Skip("run with the other tests of the package: nothing produced")
	}
	if err := xsdcheck.Validate(docs...); err != nil {
		t.Fatal(err)
	}
	// The check can fail: the same ACK with its TxId after PrcgSts is refused.
	bad := `<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<Document xmlns="` + NSSese024 + `"><SctiesSttlmTxStsAdvc><PrcgSts><AckdAccptd><NoSpcfdRsn>NORE</NoSpcfdRsn></AckdAccptd></PrcgSts><TxId><AcctOwnrTxId>T</AcctOwnrTxId></TxId></SctiesSttlmTxStsAdvc></Document>`
	if err := xsdcheck.Validate(bad); err == nil {
		t.Fatal("a document out of XSD order passed the validation")
	}
	t.Logf("%d ISO 20022 documents valid against the pinned schemas", len(docs))
}

func TestExampleInstructionIsTheContracts(t *testing.T) {
	if got := string(exampleDoc(t, "sese.023-in-SET-NEW.xml")); got != ExampleInstruction {
		t.Fatal("ExampleInstruction differs from the contract's example")
	}
}
