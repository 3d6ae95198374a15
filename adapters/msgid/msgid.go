// Package msgid is the MsgId transform of docs/spec/adapters.md §3.2: an STE
// MsgId made from a standard identifier (a FIX AllocID, an ISO TxId, …) by a
// translation prefix, in its direct form (P:esc(a)[:esc(b)], reversible by
// parsing) or, past 64 characters, its hash form (P::40 hex digits of
// SHA-256, reversible only through the journal).
package msgid

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// MaxLen is the longest MsgId (docs/spec/messages.md §2); a direct form
// longer than this takes the hash form.
const MaxLen = 64

// The translation prefixes of docs/spec/adapters.md §3.2. A change of a
// translation that alters its bytes takes a new digit (§2).
const (
	FIXAllocation   = "J1" // AllocID(70), AllocAccount(79)
	FIXTradeReport  = "E1" // TradeReportID(571)
	FIXConfirmation = "K1" // ConfirmID(664)
	FIXConfirmAck   = "U1" // ConfirmID(664) of the AK answered, AffirmStatus(940)
	ISOInstruction  = "S1" // sese.023 TxId
	ISOCancellation = "X1" // sese.020 referenced TxId
)

// Esc is esc(s) of §3.2: A–Z, a–z, 0–9, '.' and '-' kept; every other byte of
// s's UTF-8 as '_' and two upper-case hex digits. Its output is in the MsgId
// alphabet and never holds ':'.
func Esc(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if kept(c) {
			b.WriteByte(c)
			continue
		}
		const hexdig = "0123456789ABCDEF"
		b.WriteByte('_')
		b.WriteByte(hexdig[c>>4])
		b.WriteByte(hexdig[c&0xf])
	}
	return b.String()
}

func kept(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-'
}

// Unesc reverses Esc; false when e is not an output of Esc (a byte Esc
// would have escaped, or an escape that is not '_' and two upper-case hex
// digits, or one Esc would not have made).
func Unesc(e string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(e); i++ {
		c := e[i]
		if kept(c) {
			b.WriteByte(c)
			continue
		}
		if c != '_' || i+2 >= len(e) {
			return "", false
		}
		hi, ok1 := upperHex(e[i+1])
		lo, ok2 := upperHex(e[i+2])
		if !ok1 || !ok2 || kept(hi<<4|lo) {
			return "", false
		}
		b.WriteByte(hi<<4 | lo)
		i += 2
	}
	return b.String(), true
}

func upperHex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// ControlError: an identifier holds a C0 control character (0x00–0x1F),
// which cannot be represented (a 0x00 would make the hash input ambiguous):
// an adapter rejection (§4.6, §5.3).
type ControlError struct{ Part int }

func (e *ControlError) Error() string {
	return fmt.Sprintf("identifier %d holds a control character", e.Part+1)
}

// Make is MsgId(P, a[, b]) of §3.2 over parts (one or two): the direct form
// when it is at most MaxLen characters, else the hash form.
func Make(prefix string, parts ...string) (string, error) {
	if len(parts) == 0 || len(parts) > 2 {
		panic("msgid: one or two parts")
	}
	for i, p := range parts {
		for j := 0; j < len(p); j++ {
			if p[j] < 0x20 {
				return "", &ControlError{Part: i}
			}
		}
	}
	direct := prefix
	for _, p := range parts {
		direct += ":" + Esc(p)
	}
	if len(direct) <= MaxLen {
		return direct, nil
	}
	h := sha256.New()
	h.Write([]byte(prefix))
	for _, p := range parts {
		h.Write([]byte{0})
		h.Write([]byte(p))
	}
	return prefix + "::" + hex.EncodeToString(h.Sum(nil))[:40], nil
}

// MustMake is Make for identifiers known to hold no control character.
func MustMake(prefix string, parts ...string) string {
	id, err := Make(prefix, parts...)
	if err != nil {
		panic(err)
	}
	return id
}

// Parsed is a MsgId read back.
type Parsed struct {
	Prefix string
	// Parts are the identifiers of a direct form; nil for a hash form,
	// which only the journal maps back (keyed by participant and MsgId).
	Parts  []string
	Hashed bool
}

// Parse reads a MsgId of the adapters' forms; false when id is not one
// (another participant's native MsgId, say).
func Parse(id string) (Parsed, bool) {
	prefix, rest, ok := strings.Cut(id, ":")
	if !ok || len(prefix) != 2 || prefix[0] < 'A' || prefix[0] > 'Z' || prefix[1] < '1' || prefix[1] > '9' {
		return Parsed{}, false
	}
	if h, ok := strings.CutPrefix(rest, ":"); ok {
		if len(h) != 40 || strings.Trim(h, "0123456789abcdef") != "" {
			return Parsed{}, false
		}
		return Parsed{Prefix: prefix, Hashed: true}, true
	}
	var parts []string
	for _, e := range strings.Split(rest, ":") {
		p, ok := Unesc(e)
		if !ok || len(parts) == 2 {
			return Parsed{}, false
		}
		parts = append(parts, p)
	}
	return Parsed{Prefix: prefix, Parts: parts}, true
}
