package refdata

import "testing"

// Real ISINs, check digits as published.
var realISINs = []string{
	"US0378331005", // Apple
	"SG1L01001701", // DBS
	"GB0002634946", // BAE Systems
	"JP3633400001", // Toyota
	"DE0007164600", // SAP
	"AU000000BHP4", // BHP
	"HK0000069689", // AIA
	"US5949181045", // Microsoft
	"US02079K3059", // Alphabet: a letter inside the CUSIP
	"GB00B03MLX29", // Royal Dutch Shell A (a SEDOL with letters)
	"DE000BASF111", // BASF
	"FR0000120271", // TotalEnergies
}

func TestISINCheckDigitReal(t *testing.T) {
	for _, isin := range realISINs {
		if !ISINCheckDigitValid(isin) {
			t.Errorf("%s: valid ISIN rejected", isin)
		}
		if got := ISINWithCheckDigit(isin[:11]); got != isin {
			t.Errorf("ISINWithCheckDigit(%s) = %s, want %s", isin[:11], got, isin)
		}
		// Every other last digit is wrong.
		for c := byte('0'); c <= '9'; c++ {
			if c != isin[11] && ISINCheckDigitValid(isin[:11]+string(c)) {
				t.Errorf("%s accepted with check digit %c", isin, c)
			}
		}
	}
}

func TestISINCheckDigitRejects(t *testing.T) {
	for _, s := range []string{
		"", "US037833100", "US03783310055", "us0378331005", "US037833100A", "US-378331005", "US0378331005 ",
		"US0378331006", // wrong check digit
		"US0387331005", // transposed digits
	} {
		if ISINCheckDigitValid(s) {
			t.Errorf("%q accepted", s)
		}
	}
	for _, p := range []string{"", "US03783310", "US037833100X", "us037833100", "US03783310!"} {
		if got := ISINWithCheckDigit(p); got != "" {
			t.Errorf("ISINWithCheckDigit(%q) = %q, want empty", p, got)
		}
	}
}

func TestNationalCheckDigits(t *testing.T) {
	if got := cusip("03783310"); got != "037833100" {
		t.Errorf("cusip = %s", got)
	}
	if got := cusip("02079K30"); got != "02079K305" {
		t.Errorf("cusip = %s", got)
	}
	if got := sedol("026349"); got != "0263494" {
		t.Errorf("sedol = %s", got)
	}
	if got := sedol("B03MLX"); got != "B03MLX2" {
		t.Errorf("sedol = %s", got)
	}
}

func BenchmarkISINCheckDigitValid(b *testing.B) {
	for b.Loop() {
		ISINCheckDigitValid("US0378331005")
	}
}
