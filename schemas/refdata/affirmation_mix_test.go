package refdata

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The contract's default stays: a generated set and the committed one hold
// affirmation.csv with its header and no row. The mixed choice writes a row
// for every investment manager, both modes present, the same mode for one
// BIC in a generated set and in the committed set mixed, and loads back.
func TestAffirmationChoices(t *testing.T) {
	small := GenOptions{Seed: 3, Securities: 100, Participants: 60}
	if n := len(Generate(small).Affirmations()); n != 0 {
		t.Fatalf("default generated set: %d affirmation rows, want none (messages.md §8)", n)
	}
	if n := len(Default().Affirmations()); n != 0 {
		t.Fatalf("committed set: %d affirmation rows", n)
	}
	small.Affirmation = AffirmationMixed
	mixed := Generate(small)
	invmgrs := append(mixed.ParticipantsWithRole(RoleInvMgr, true), mixed.ParticipantsWithRole(RoleInvMgr, false)...)
	rows := mixed.Affirmations()
	if len(rows) != len(invmgrs) || len(rows) == 0 {
		t.Fatalf("%d rows for %d investment managers", len(rows), len(invmgrs))
	}
	modes := map[AffirmMode]int{}
	for _, a := range rows {
		modes[a.Mode]++
		if a.Mode != MixedMode(a.InvMgr) {
			t.Fatalf("%s: %v", a.InvMgr, a.Mode)
		}
	}
	if modes[AffirmAuto] == 0 || modes[AffirmManual] == 0 || modes[AffirmAuto] < modes[AffirmManual] {
		t.Fatalf("modes %v: want both, AUTO the more common", modes)
	}
	dir := t.TempDir()
	if err := mixed.WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, AffirmationFile))
	if !strings.HasPrefix(string(b), "invmgr,mode\n") || !strings.Contains(string(b), ",AUTO\n") || !strings.Contains(string(b), ",MANUAL\n") {
		t.Fatalf("affirmation.csv:\n%s", b)
	}
	back, err := LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Affirmations()) != len(rows) {
		t.Fatal("the mixed rows do not load back")
	}
	d := WithAffirmation(Default(), AffirmationMixed)
	if d == Default() || len(Default().Affirmations()) != 0 {
		t.Fatal("WithAffirmation changed the committed set")
	}
	for _, p := range d.ParticipantsWithRole(RoleInvMgr, true) {
		if d.AffirmationMode(p.BIC) != MixedMode(p.BIC) {
			t.Fatalf("%s: %v", p.BIC, d.AffirmationMode(p.BIC))
		}
	}
	if WithAffirmation(Default(), AffirmationNone) != Default() {
		t.Fatal("none copies the set")
	}
	for _, s := range []string{"", "none", "mixed"} {
		if _, err := ParseAffirmationChoice(s); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ParseAffirmationChoice("auto"); err == nil {
		t.Fatal("auto accepted")
	}
}
