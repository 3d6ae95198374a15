package refdata

import (
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the committed default set from the generator")

// The committed files are the generator's output byte for byte, so neither
// can drift from the other.
func TestDefaultSetMatchesGenerator(t *testing.T) {
	gen := Generate(DefaultGenOptions())
	if *update {
		if err := gen.WriteDir("default"); err != nil {
			t.Fatal(err)
		}
		t.Skip("default/ rewritten; run the tests again to check the embedded copy")
	}
	dir := t.TempDir()
	if err := gen.WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	for _, f := range append(slices.Clone(Files), OptionalFiles...) {
		want, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		got, err := defaultFS.ReadFile("default/" + f)
		if err != nil {
			t.Fatalf("committed %s: %v", f, err)
		}
		if string(got) != string(want) {
			t.Errorf("committed default/%s differs from Generate(DefaultGenOptions()); run go test -run %s -update", f, t.Name())
		}
	}
	assertEqualSets(t, Default(), gen)
}

func TestGenerateDeterministic(t *testing.T) {
	o := GenOptions{Seed: 42, Securities: 800, Participants: 90}
	a, b := Generate(o), Generate(o)
	if !reflect.DeepEqual(a.Records(), b.Records()) {
		t.Fatal("same options, different sets")
	}
	c := Generate(GenOptions{Seed: 43, Securities: 800, Participants: 90})
	if reflect.DeepEqual(a.Securities(), c.Securities()) || reflect.DeepEqual(a.Participants(), c.Participants()) {
		t.Error("another seed gave the same set")
	}
	// Separate streams: the securities count does not reshuffle participants.
	d := Generate(GenOptions{Seed: 42, Securities: 1200, Participants: 90})
	if !reflect.DeepEqual(a.Participants(), d.Participants()) {
		t.Error("participants depend on the securities count")
	}
	if got := Generate(GenOptions{Seed: 42}); len(got.Securities()) != DefaultSecurities || len(got.Participants()) != DefaultParticipants+3 {
		t.Error("zero counts should mean the defaults")
	}
}

func TestDefaultSetContent(t *testing.T) {
	s := Default()
	checkGenerated(t, s, DefaultSecurities, DefaultParticipants)
	if n := len(s.Countries()); n != 249 {
		t.Errorf("%d countries, want 249", n)
	}
	if n := len(s.Currencies()); n < 150 {
		t.Errorf("%d currencies", n)
	}
	susp := len(s.SecuritiesIn("", Suspended))
	if susp*100 < DefaultSecurities || susp*100 > 2*DefaultSecurities {
		t.Errorf("%d of %d securities suspended, want 1–2 %%", susp, DefaultSecurities)
	}
}

func TestGenerateOtherSizes(t *testing.T) {
	checkGenerated(t, Generate(GenOptions{Seed: 5, Securities: 1, Participants: 1}), MinSecurities, MinParticipants)
	checkGenerated(t, Generate(GenOptions{Seed: 6, Securities: 20000, Participants: 1000}), 20000, 1000)
	other := Generate(GenOptions{Seed: 6, Securities: 100, Participants: 40, UtilityBIC: "MATCHSG1"})
	if p, ok := other.Participant("MATCHSG1"); !ok || p.Roles != RoleUtility {
		t.Errorf("custom utility BIC: %+v %v", p, ok)
	}
	if _, ok := other.Participant(DefaultUtilityBIC); ok {
		t.Error("default utility present beside the custom one")
	}
}

// checkGenerated asserts what users of generated data rely on.
func checkGenerated(t *testing.T, s *Set, securities, participants int) {
	t.Helper()
	if err := s.Check(); err != nil {
		t.Errorf("dangling references: %v", err)
	}
	secs := s.Securities()
	if len(secs) < securities || len(secs) > securities+len(markets)*8 {
		t.Errorf("%d securities, want about %d", len(secs), securities)
	}
	for _, x := range secs {
		m, ok := MarketOf(x.Country)
		if !ok || !ISINCheckDigitValid(x.ISIN) || x.ISIN[:2] != x.Country || x.Currency != m.Currency || x.Name == "" {
			t.Errorf("bad security %+v", x)
		}
	}
	for _, m := range markets {
		if n := len(s.SecuritiesIn(m.Country, Active)); n < 2 {
			t.Errorf("%s: %d active securities", m.Country, n)
		}
		if n := len(s.SecuritiesIn(m.Country, Suspended)); n < 1 {
			t.Errorf("%s: no suspended security", m.Country)
		}
		if p, ok := s.Participant(m.CSD); !ok || p.Roles != RoleCSD || p.Status != Active || p.Country != m.Country {
			t.Errorf("%s CSD %s: %+v", m.Country, m.CSD, p)
		}
		for y := 2025; y <= 2027; y++ {
			n := 0
			for _, h := range s.Holidays() {
				if yy, _, _ := h.Date.Civil(); h.Country == m.Country && yy == y {
					n++
				}
			}
			if n < 3 {
				t.Errorf("%s %d: %d holidays", m.Country, y, n)
			}
		}
	}
	ps := s.Participants()
	if len(ps) != participants+3 {
		t.Errorf("%d participants, want %d, the utility and the adapters' two signers", len(ps), participants)
	}
	for _, bic := range AdapterSigners() {
		// messages.md §8: role SIGNER, ACTIVE, the demo key; listed by every
		// broker, investment manager and custodian.
		if p, ok := s.Participant(bic); !ok || p.Roles != RoleSigner || p.Status != Active || len(p.Keys) != 1 ||
			!p.HasKey(DemoPublicKey(bic)) || len(p.Signers) != 0 || p.KeepSigners {
			t.Errorf("signer row %s: %+v", bic, p)
		}
	}
	for _, p := range ps {
		lists := p.HasSigner(FIXSignerBIC) && p.HasSigner(ISOSignerBIC) && len(p.Signers) == 2
		if want := p.Roles&(RoleBroker|RoleInvMgr|RoleCustodian) != 0; lists != want || p.KeepSigners {
			t.Errorf("%s (%s) signers %v", p.BIC, p.Roles, p.Signers)
		}
	}
	if len(s.Affirmations()) != 0 {
		t.Errorf("generated affirmation rows: %v", s.Affirmations())
	}
	seen8 := map[string]bool{}
	names := map[string]bool{}
	multi := 0
	for _, p := range ps {
		if !ValidBIC(p.BIC) || !upper(p.BIC[:4]) || (p.Roles != RoleUtility && !upper(p.BIC[4:6])) {
			t.Errorf("unrealistic BIC %s", p.BIC)
		}
		if p.Roles == RoleSigner {
			continue // the utility's adapters: the utility's head office
		}
		if seen8[p.BIC[:8]] || names[p.Name] {
			t.Errorf("duplicate BIC head office or name: %+v", p)
		}
		seen8[p.BIC[:8]], names[p.Name] = true, true
		if len(p.Keys) != 1 || !p.HasKey(DemoPublicKey(p.BIC)) {
			t.Errorf("%s: public key is not the demo key", p.BIC)
		}
		if p.Roles&(p.Roles-1) != 0 {
			multi++
		}
	}
	if multi < 3 {
		t.Errorf("%d participants with several roles", multi)
	}
	for _, r := range []Role{RoleBroker, RoleInvMgr, RoleCustodian} {
		if len(s.ParticipantsWithRole(r, true)) < 3 {
			t.Errorf("role %v: too few active", r)
		}
		var susp, inact int
		for _, p := range s.ParticipantsWithRole(r, false) {
			if p.Status == Suspended {
				susp++
			} else if p.Status == Inactive {
				inact++
			}
		}
		if susp == 0 || inact == 0 {
			t.Errorf("role %v: %d suspended, %d inactive", r, susp, inact)
		}
	}
}
