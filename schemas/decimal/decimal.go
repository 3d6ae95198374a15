// Package decimal is the exact decimal arithmetic of the wire contract. Prices
// and amounts are compared by value ("100.5" equals "100.50") and amounts are
// checked against a currency's minor units, so binary floating point would give
// wrong answers: a Dec is an integer coefficient and a power-of-ten scale.
package decimal

import (
	"errors"
	"math/big"
	"math/bits"
	"strconv"
)

// MaxDigits bounds the significant digits a Dec holds. Quantities, prices and
// amounts of real trades fit easily; larger values are refused rather than
// silently rounded.
const MaxDigits = 18

var (
	// ErrSyntax: not of the form [+-]digits[.digits].
	ErrSyntax = errors.New("not a decimal number")
	// ErrRange: more than MaxDigits significant digits.
	ErrRange = errors.New("decimal number out of range")
)

// Dec is coef × 10^-scale, kept canonical (no trailing zeros in the fraction)
// so that equal values have equal representations and == compares by value.
type Dec struct {
	coef  int64
	scale uint8
}

// Parse reads [+-]digits[.digits]. It does not accept exponents, a leading or
// trailing dot, or spaces: the contract's decimal strings are plain. The number
// of fraction digits as written is returned too, because "prices up to 6
// decimals" is a rule about the text, not the value.
func Parse(s string) (d Dec, written int, err error) {
	i := 0
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	intStart := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	intEnd := i
	fracStart, fracEnd := i, i
	if i < len(s) && s[i] == '.' {
		i++
		fracStart = i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		fracEnd = i
		if fracEnd == fracStart {
			return Dec{}, 0, ErrSyntax
		}
	}
	if i != len(s) || intEnd == intStart {
		return Dec{}, 0, ErrSyntax
	}
	written = fracEnd - fracStart
	// Drop trailing fraction zeros and leading integer zeros before counting digits.
	fe := fracEnd
	for fe > fracStart && s[fe-1] == '0' {
		fe--
	}
	is := intStart
	for is < intEnd && s[is] == '0' {
		is++
	}
	if (intEnd-is)+(fe-fracStart) > MaxDigits {
		return Dec{}, written, ErrRange
	}
	var c int64
	for j := is; j < intEnd; j++ {
		c = c*10 + int64(s[j]-'0')
	}
	for j := fracStart; j < fe; j++ {
		c = c*10 + int64(s[j]-'0')
	}
	if neg {
		c = -c
	}
	sc := fe - fracStart
	if c == 0 {
		sc = 0
	}
	return Dec{coef: c, scale: uint8(sc)}, written, nil
}

// MustParse is Parse for literals; it panics on bad input.
func MustParse(s string) Dec {
	d, _, err := Parse(s)
	if err != nil {
		panic(s + ": " + err.Error())
	}
	return d
}

// FromInt is n as a Dec.
func FromInt(n int64) Dec { return Dec{coef: n} }

// New is coef × 10^-scale, canonicalised.
func New(coef int64, scale int) Dec {
	for scale > 0 && coef%10 == 0 {
		coef /= 10
		scale--
	}
	if coef == 0 {
		scale = 0
	}
	return Dec{coef: coef, scale: uint8(scale)}
}

// Of is the Dec whose Coef and Scale are coef and scale, as a Dec holds
// them: it reads back what Coef and Scale gave (schemas' compact message
// form), where New would canonicalise.
func Of(coef int64, scale uint8) Dec { return Dec{coef: coef, scale: scale} }

// Sign is -1, 0 or +1.
func (d Dec) Sign() int {
	switch {
	case d.coef < 0:
		return -1
	case d.coef > 0:
		return 1
	}
	return 0
}

// Scale is the number of significant fraction digits (trailing zeros excluded).
func (d Dec) Scale() int { return int(d.scale) }

// Coef is the canonical coefficient.
func (d Dec) Coef() int64 { return d.coef }

// IsZero reports d == 0.
func (d Dec) IsZero() bool { return d.coef == 0 }

// FitsUnits reports whether d is a whole number of minor units when a currency
// has the given number of them: 1234.5 fits 2, 100.0 fits 0, 100.5 does not.
func (d Dec) FitsUnits(units int) bool { return int(d.scale) <= units }

// Cmp compares by value.
func (d Dec) Cmp(e Dec) int {
	if d.scale == e.scale {
		return cmp64(d.coef, e.coef)
	}
	return d.big().Cmp(e.big())
}

func cmp64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

var pow10 = func() (p [19]int64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return
}()

// big is d as a rational with denominator 10^18, exact for every Dec.
func (d Dec) big() *big.Int {
	b := big.NewInt(d.coef)
	return b.Mul(b, big.NewInt(pow10[MaxDigits-int(d.scale)]))
}

// Add is d + e; ok is false on overflow.
func Add(d, e Dec) (Dec, bool) {
	s := d.scale
	if e.scale > s {
		s = e.scale
	}
	a, ok1 := rescale(d.coef, int(s-d.scale))
	b, ok2 := rescale(e.coef, int(s-e.scale))
	if !ok1 || !ok2 {
		return Dec{}, false
	}
	sum := a + b
	if (a > 0 && b > 0 && sum < 0) || (a < 0 && b < 0 && sum >= 0) {
		return Dec{}, false
	}
	return New(sum, int(s)), true
}

// Neg is -d.
func (d Dec) Neg() Dec { return Dec{coef: -d.coef, scale: d.scale} }

// Sub is d - e; ok is false on overflow.
func Sub(d, e Dec) (Dec, bool) { return Add(d, e.Neg()) }

func rescale(c int64, by int) (int64, bool) {
	if by == 0 {
		return c, true
	}
	if by >= len(pow10) {
		return 0, c == 0
	}
	hi, lo := bits.Mul64(uint64(abs(c)), uint64(pow10[by]))
	if hi != 0 || lo > 1<<63-1 {
		return 0, false
	}
	if c < 0 {
		return -int64(lo), true
	}
	return int64(lo), true
}

func abs(c int64) int64 {
	if c < 0 {
		return -c
	}
	return c
}

// MulRound is q × p rounded half away from zero to the given number of
// fraction digits — the contract's GrossAmount rule. ok is false if the result
// does not fit a Dec.
func MulRound(q int64, p Dec, units int) (Dec, bool) {
	prod := new(big.Int).Mul(big.NewInt(q), big.NewInt(p.coef))
	scale := int(p.scale)
	if scale > units {
		div := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale-units)), nil)
		neg := prod.Sign() < 0
		prod.Abs(prod)
		quo, rem := new(big.Int).QuoRem(prod, div, new(big.Int))
		// Half away from zero: round up when rem*2 >= div.
		if rem.Lsh(rem, 1).Cmp(div) >= 0 {
			quo.Add(quo, big.NewInt(1))
		}
		if neg {
			quo.Neg(quo)
		}
		prod, scale = quo, units
	}
	if !prod.IsInt64() {
		return Dec{}, false
	}
	r := New(prod.Int64(), scale)
	if digits(r.coef) > MaxDigits {
		return Dec{}, false
	}
	return r, true
}

func digits(c int64) int {
	n := 1
	for c = abs(c); c >= 10; c /= 10 {
		n++
	}
	return n
}

// String writes d without trailing zeros ("100.5", "7", "-0.25"): the
// contract's form for prices in output bodies.
func (d Dec) String() string { return string(d.Append(nil, -1)) }

// Fixed writes d with exactly units fraction digits ("1234.50"), the form of
// amounts in output bodies. units must be >= d.Scale() for an exact result;
// a smaller units is raised to d.Scale() rather than losing digits.
func (d Dec) Fixed(units int) string { return string(d.Append(nil, units)) }

// Append writes d to b with the given number of fraction digits, or with its
// own scale when units < 0.
func (d Dec) Append(b []byte, units int) []byte {
	sc := int(d.scale)
	if units < sc {
		units = sc
	}
	c := d.coef
	if c < 0 {
		b = append(b, '-')
		c = -c
	}
	var tmp [24]byte
	digitsStr := strconv.AppendInt(tmp[:0], c, 10)
	// Pad with leading zeros so there is at least one integer digit.
	for len(digitsStr) <= sc {
		digitsStr = append([]byte{'0'}, digitsStr...)
	}
	intPart := digitsStr[:len(digitsStr)-sc]
	frac := digitsStr[len(digitsStr)-sc:]
	b = append(b, intPart...)
	if units > 0 {
		b = append(b, '.')
		b = append(b, frac...)
		for i := sc; i < units; i++ {
			b = append(b, '0')
		}
	}
	return b
}
