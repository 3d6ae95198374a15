package msgid

import (
	"errors"
	"strings"
	"testing"
)

// The examples of docs/spec/adapters.md §3.2.
func TestContractExamples(t *testing.T) {
	if got := MustMake(FIXAllocation, "ALLOC/2026/77", "ACC1"); got != "J1:ALLOC_2F2026_2F77:ACC1" {
		t.Errorf("direct form: %s", got)
	}
	if got := MustMake(FIXAllocation, strings.Repeat("A", 40), "ACCOUNT-WITH-A-LONG-NAME-0001"); got != "J1::ae4951269595621a3c13242739b5b6030a4a246c" {
		t.Errorf("hash form: %s", got)
	}
	if got := MustMake(ISOInstruction, "CUST/2026/000123"); got != "S1:CUST_2F2026_2F000123" {
		t.Errorf("sese.023: %s", got)
	}
	for in, want := range map[string]string{"/": "_2F", "_": "_5F", ":": "_3A", " ": "_20", "é": "_C3_A9", "a.b-C9": "a.b-C9"} {
		if got := Esc(in); got != want {
			t.Errorf("esc(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestDirectFormParsesBack(t *testing.T) {
	for _, parts := range [][]string{{"CUST/2026/000123"}, {"a:b", "c_d"}, {"ü ß", "x"}, {""}, {strings.Repeat("x", 61)}} {
		id := MustMake(ISOInstruction, parts...)
		p, ok := Parse(id)
		if !ok || p.Hashed || p.Prefix != ISOInstruction || strings.Join(p.Parts, "\x00") != strings.Join(parts, "\x00") {
			t.Errorf("%q -> %s -> %+v %v", parts, id, p, ok)
		}
	}
	// 62 characters escape past 64: the hash form, which only the journal maps back.
	id := MustMake(ISOInstruction, strings.Repeat("x", 62))
	if p, ok := Parse(id); !ok || !p.Hashed || len(id) != 44 {
		t.Errorf("%s: %+v %v", id, p, ok)
	}
	for _, bad := range []string{"S1", "native-1", "S1:a_2f", "S1:a_41", "S1:a:b:c", "S1::abc", "s1:x", "S1:a b"} {
		if p, ok := Parse(bad); ok {
			t.Errorf("%q parsed as %+v", bad, p)
		}
	}
}

func TestControlCharactersAreRefused(t *testing.T) {
	var ce *ControlError
	if _, err := Make(ISOInstruction, "a\x00b"); !errors.As(err, &ce) || ce.Part != 0 {
		t.Errorf("NUL: %v", err)
	}
	if _, err := Make(FIXAllocation, "a", "b\tc"); !errors.As(err, &ce) || ce.Part != 1 {
		t.Errorf("TAB in the second part: %v", err)
	}
}
