// Package fix holds the data dictionary of `ste fixgw` (docs/spec/adapters.md
// §4.2): quickfixgo v0.9.10's spec/FIX44.xml with its one documented change
// (Confirmation (AK) does not require the groups NoUnderlyings and NoLegs),
// shipped in the repository as FIX44-ste.xml, the diff in its header comment.
package fix

import (
	"bytes"
	_ "embed"
	"sync"

	"github.com/quickfixgo/quickfix/datadictionary"
)

// Dictionary is FIX44-ste.xml.
//
//go:embed FIX44-ste.xml
var Dictionary []byte

// FileName is the dictionary's name as shipped.
const FileName = "FIX44-ste.xml"

var parsed struct {
	once sync.Once
	dd   *datadictionary.DataDictionary
	err  error
}

// Parsed is the dictionary parsed once.
func Parsed() (*datadictionary.DataDictionary, error) {
	parsed.once.Do(func() { parsed.dd, parsed.err = datadictionary.ParseSrc(bytes.NewReader(Dictionary)) })
	return parsed.dd, parsed.err
}
