package schemas

import (
	"slices"
	"strings"
	"testing"
)

// A MATCHED's list is written as <Tolerance> elements, a MISMATCHED's as
// <Discrepancy>, and StatusTolerances reads the former back from a body.
func TestStatusBodyTolerance(t *testing.T) {
	ds := []Discrepancy{{7, []string{"B:1", "I:2"}}, {15, []string{"B:3", "C:4"}}}
	m := string(StatusBody(1, "R", Matched, ds))
	want := `<Status>MATCHED</Status><Tolerance criterion="7">B:1 I:2</Tolerance><Tolerance criterion="15">B:3 C:4</Tolerance>`
	if !strings.HasSuffix(m, want) {
		t.Fatalf("%s", m)
	}
	if got := StatusTolerances([]byte(m)); !slices.Equal(got, []int{7, 15}) {
		t.Fatalf("StatusTolerances = %v", got)
	}
	x := string(StatusBody(1, "R", Mismatched, ds[1:]))
	if !strings.HasSuffix(x, `<Discrepancy criterion="15">B:3 C:4</Discrepancy>`) || StatusTolerances([]byte(x)) != nil {
		t.Fatalf("%s", x)
	}
}
