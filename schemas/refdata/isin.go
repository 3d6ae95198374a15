package refdata

// ISO 6166 check digit: letters become numbers (A=10 … Z=35), the resulting
// digit string gets the Luhn algorithm, doubling from the rightmost digit.
// It is done in place, without building the digit string, because validation
// checks it for every message.

// ISINCheckDigitValid reports whether isin is 12 of [A-Z0-9] whose last
// character is the check digit of the first eleven.
func ISINCheckDigitValid(isin string) bool {
	if !ValidISIN(isin) {
		return false
	}
	c, ok := isinCheckDigit(isin[:11])
	return ok && isin[11] == c
}

// ISINWithCheckDigit appends the check digit to an 11-character prefix of
// [A-Z0-9]; it returns "" for anything else, so a bad prefix cannot turn into
// a plausible-looking ISIN.
func ISINWithCheckDigit(prefix11 string) string {
	c, ok := isinCheckDigit(prefix11)
	if !ok {
		return ""
	}
	return prefix11 + string(c)
}

func isinCheckDigit(p string) (byte, bool) {
	if len(p) != 11 || !alnumUpper(p) {
		return 0, false
	}
	// luhn[d] is d doubled with its digits summed.
	luhn := [10]int{0, 2, 4, 6, 8, 1, 3, 5, 7, 9}
	sum := 0
	double := true // the rightmost digit of the expansion is doubled
	for i := len(p) - 1; i >= 0; i-- {
		c := p[i]
		if c <= '9' {
			d := int(c - '0')
			if double {
				d = luhn[d]
			}
			sum += d
			double = !double
			continue
		}
		v := int(c-'A') + 10 // two digits: the units come first from the right
		lo, hi := v%10, v/10
		if double {
			sum += luhn[lo] + hi
		} else {
			sum += lo + luhn[hi]
		}
	}
	return byte('0' + (10-sum%10)%10), true
}
