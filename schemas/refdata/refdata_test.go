package refdata

import (
	"encoding/base64"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/ste-utility/ste/schemas/date"
)

func TestRoles(t *testing.T) {
	r, err := ParseRoles("CUSTODIAN;BROKER")
	if err != nil || r != RoleBroker|RoleCustodian {
		t.Fatalf("ParseRoles = %v, %v", r, err)
	}
	if r.String() != "BROKER;CUSTODIAN" {
		t.Errorf("String = %q", r.String())
	}
	if !r.Has(RoleBroker) || !r.Has(RoleCustodian) || !r.Has(RoleBroker|RoleCustodian) {
		t.Error("Has misses a role")
	}
	if r.Has(RoleInvMgr) || r.Has(RoleBroker|RoleCSD) || r.Has(0) {
		t.Error("Has reports a missing role")
	}
	all, err := ParseRoles("SIGNER;BROKER;INVMGR;CUSTODIAN;CSD;UTILITY")
	if err != nil || all != roleAll || all.String() != "BROKER;INVMGR;CUSTODIAN;CSD;UTILITY;SIGNER" {
		t.Errorf("all roles: %v %q %v", all, all.String(), err)
	}
	for _, bad := range []string{"", " ", "BROKER;;CSD", "BANK", "Broker"} {
		if _, err := ParseRoles(bad); err == nil {
			t.Errorf("ParseRoles(%q) accepted", bad)
		}
	}
}

func TestLookups(t *testing.T) {
	s := Default()
	for code, mu := range map[string]int{"SGD": 2, "JPY": 0, "KRW": 0, "BHD": 3, "KWD": 3, "USD": 2, "EUR": 2, "HKD": 2, "AUD": 2, "GBP": 2, "CHF": 2, "CLF": 4} {
		c, ok := s.Currency(code)
		if !ok || c.MinorUnits != mu {
			t.Errorf("currency %s = %+v, %v; want minor units %d", code, c, ok, mu)
		}
	}
	for _, code := range []string{"XAU", "XXX", "HRK", "SGP", ""} {
		if _, ok := s.Currency(code); ok {
			t.Errorf("currency %q found", code)
		}
	}
	if c, ok := s.Country("SG"); !ok || c.Name != "Singapore" {
		t.Errorf("SG = %+v", c)
	}
	if c, ok := s.Country("GB"); !ok || c.Name != "United Kingdom" {
		t.Errorf("GB = %+v", c)
	}
	if x, ok := s.Security("US0378331005"); !ok || x.Name != "Apple Inc" || x.Currency != "USD" || x.Country != "US" || x.Status != Active {
		t.Errorf("Apple = %+v %v", x, ok)
	}
	if _, ok := s.Security("US0378331006"); ok {
		t.Error("unknown ISIN found")
	}
	u, ok := s.Participant(DefaultUtilityBIC)
	if !ok || u.Roles != RoleUtility || u.Status != Active || !u.HasKey(DemoPublicKey(DefaultUtilityBIC)) {
		t.Errorf("utility = %+v", u)
	}
	if p, ok := s.Participant("CDPLSGSGXXX"); !ok || !p.Roles.Has(RoleCSD) {
		t.Errorf("CDP = %+v %v", p, ok)
	}
	if _, ok := s.Participant("CDPLSGSG"); ok {
		t.Error("an 8-character BIC matched its XXX form: BICs are compared as written")
	}
}

func TestHolidaySpotChecks(t *testing.T) {
	s := Default()
	for _, h := range []struct {
		country, day string
	}{
		{"SG", "2026-02-17"}, {"SG", "2026-02-18"}, // Chinese New Year
		{"SG", "2026-05-27"}, // Hari Raya Haji
		{"SG", "2026-11-09"}, // Deepavali, observed
		{"SG", "2025-03-31"}, // Hari Raya Puasa
		{"SG", "2025-05-12"}, // Vesak Day
		{"HK", "2026-02-19"}, // third day of Lunar New Year
		{"HK", "2026-04-07"}, // day following Easter Monday
		{"US", "2026-11-26"}, // Thanksgiving
		{"US", "2026-07-03"}, // Independence Day observed
		{"US", "2027-12-24"}, // Christmas observed
		{"US", "2025-01-09"}, // national day of mourning
		{"GB", "2026-12-28"}, // substitute Boxing Day
		{"GB", "2027-12-27"}, {"GB", "2027-12-28"},
		{"JP", "2026-05-06"}, // substitute holiday
		{"JP", "2026-09-22"}, // citizens' holiday
		{"JP", "2027-01-01"}, {"JP", "2026-12-31"},
		{"DE", "2026-12-24"}, {"DE", "2026-12-31"},
		{"FR", "2026-04-06"}, // Easter Monday
		{"AU", "2026-01-26"}, {"AU", "2025-04-25"},
	} {
		d := date.MustParse(h.day)
		if !s.IsHoliday(h.country, d) || s.IsBusinessDay(h.country, d) {
			t.Errorf("%s %s should be a holiday", h.country, h.day)
		}
	}
	for _, h := range []struct {
		country, day string
	}{
		{"SG", "2026-02-19"}, // SG has two days of Chinese New Year
		{"US", "2026-10-12"}, // Columbus Day: NYSE open
		{"US", "2026-11-11"}, // Veterans Day: NYSE open
		{"FR", "2026-07-14"}, // Bastille Day: Euronext open
		{"DE", "2026-10-03"}, // a Saturday anyway; Unity Day is a trading day
		{"DE", "2026-05-25"}, // Whit Monday: Xetra open
		{"GB", "2026-12-24"},
		{"SG", "2026-11-08"}, // Deepavali on a Sunday: the Monday is listed
	} {
		d := date.MustParse(h.day)
		if s.IsHoliday(h.country, d) {
			t.Errorf("%s %s should not be a holiday", h.country, h.day)
		}
	}
	if s.IsHoliday("XX", date.MustParse("2026-12-25")) || s.IsHoliday("", date.MustParse("2026-12-25")) {
		t.Error("unknown country has holidays")
	}
	// Weekends are not listed but are not business days.
	sat := date.MustParse("2026-11-28")
	if s.IsHoliday("SG", sat) || s.IsBusinessDay("SG", sat) || !s.IsBusinessDay("SG", date.MustParse("2026-11-30")) {
		t.Error("weekend handling")
	}
	// No holiday is listed on a weekend.
	for _, h := range s.Holidays() {
		if h.Date.IsWeekend() {
			t.Errorf("%s %s is a weekend day", h.Country, h.Date)
		}
	}
}

func TestAddBusinessDays(t *testing.T) {
	s := Default()
	tests := []struct {
		country, from string
		n             int
		want          string
	}{
		{"SG", "2026-11-27", 2, "2026-12-01"}, // Friday + 2
		{"SG", "2026-02-13", 1, "2026-02-16"}, // Friday + 1
		{"SG", "2026-02-16", 1, "2026-02-19"}, // over Chinese New Year
		{"SG", "2026-02-17", 0, "2026-02-19"}, // a holiday rolls forward
		{"SG", "2026-11-30", 0, "2026-11-30"},
		{"US", "2026-11-25", 1, "2026-11-27"}, // over Thanksgiving
		{"JP", "2026-04-30", 2, "2026-05-07"}, // over Golden Week
		{"JP", "2026-12-30", 1, "2027-01-04"}, // over the year-end closure
		{"GB", "2026-12-24", 1, "2026-12-29"},
		{"GB", "2026-12-29", -1, "2026-12-24"},
		{"SG", "2026-02-19", -1, "2026-02-16"},
		{"SG", "2026-11-29", -1, "2026-11-27"}, // Sunday - 1
	}
	for _, tc := range tests {
		got := s.AddBusinessDays(tc.country, date.MustParse(tc.from), tc.n)
		if got.String() != tc.want {
			t.Errorf("AddBusinessDays(%s, %s, %d) = %s, want %s", tc.country, tc.from, tc.n, got, tc.want)
		}
	}
}

func TestQueries(t *testing.T) {
	s := Default()
	brokers := s.ParticipantsWithRole(RoleBroker, true)
	if len(brokers) < 50 {
		t.Errorf("%d active brokers", len(brokers))
	}
	for i, p := range brokers {
		if !p.Roles.Has(RoleBroker) || p.Status != Active {
			t.Errorf("%+v in active brokers", p)
		}
		if i > 0 && brokers[i-1].BIC >= p.BIC {
			t.Error("not sorted")
		}
	}
	for _, r := range []Role{RoleBroker, RoleInvMgr, RoleCustodian} {
		off := s.ParticipantsWithRole(r, false)
		if len(off) < 2 {
			t.Errorf("role %v: %d not active, want a SUSPENDED and an INACTIVE one", r, len(off))
		}
		for _, p := range off {
			if p.Status == Active || !p.Roles.Has(r) {
				t.Errorf("%+v in non-active %v", p, r)
			}
		}
	}
	if csds := s.ParticipantsWithRole(RoleCSD, true); len(csds) != len(markets) {
		t.Errorf("%d CSDs", len(csds))
	}
	sg := s.SecuritiesIn("SG", Active)
	for _, x := range sg {
		if x.Country != "SG" || x.Status != Active || x.Currency != "SGD" {
			t.Errorf("%+v in SG active", x)
		}
	}
	if len(s.SecuritiesIn("SG", "")) != len(sg)+len(s.SecuritiesIn("SG", Suspended)) {
		t.Error("SG all != active + suspended")
	}
	if len(s.SecuritiesIn("", "")) != len(s.Securities()) {
		t.Error("empty filters should match everything")
	}
	if len(s.SecuritiesIn("ZZ", Active)) != 0 {
		t.Error("securities in unknown country")
	}
}

func TestCloneIsIndependent(t *testing.T) {
	s := NewSet()
	s.PutCurrency(Currency{"SGD", 2})
	s.PutHoliday("SG", date.MustParse("2026-12-25"))
	c := s.Clone()
	c.PutCurrency(Currency{"SGD", 3})
	c.PutCurrency(Currency{"JPY", 0})
	c.PutHoliday("SG", date.MustParse("2026-12-24"))
	if x, _ := s.Currency("SGD"); x.MinorUnits != 2 {
		t.Error("clone upsert changed the original")
	}
	if _, ok := s.Currency("JPY"); ok || s.IsHoliday("SG", date.MustParse("2026-12-24")) {
		t.Error("clone insert changed the original")
	}
	if x, _ := c.Currency("SGD"); x.MinorUnits != 3 {
		t.Error("upsert lost")
	}
}

func TestDemoKeys(t *testing.T) {
	k := DemoPrivateKey("BRKASGSGXXX")
	if &k[0] != &DemoPrivateKey("BRKASGSGXXX")[0] {
		t.Error("demo key not cached")
	}
	if DemoPublicKey("BRKASGSGXXX").Equal(DemoPublicKey("BRKBSGSGXXX")) {
		t.Error("two BICs share a key")
	}
	// Pinned (computed independently): the rule is public, so other
	// implementations derive the same key.
	if got := base64.StdEncoding.EncodeToString(DemoPublicKey(DefaultUtilityBIC)); got != "b8nqNXQjfNjh9R+Pqm9R3JZysMiZCu0cgo/wRAE7QdY=" {
		t.Errorf("utility demo key %s", got)
	}
}

func mustDate(s string) date.Date { return date.MustParse(s) }

// The documented pattern: readers use a published Set while the writer
// upserts into a Clone and publishes it. Run with -race.
func TestCopyOnWriteConcurrency(t *testing.T) {
	var cur atomic.Pointer[Set]
	cur.Store(Default())
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				s := cur.Load()
				s.Security("US0378331005")
				s.Participant(DefaultUtilityBIC)
				s.IsBusinessDay("SG", mustDate("2026-12-25"))
			}
		}()
	}
	for i := range 20 {
		next := cur.Load().Clone()
		next.PutHoliday("SG", mustDate("2030-01-01").AddDays(i))
		cur.Store(next)
	}
	close(done)
	wg.Wait()
	if !cur.Load().IsHoliday("SG", mustDate("2030-01-20")) || Default().IsHoliday("SG", mustDate("2030-01-01")) {
		t.Error("copy-on-write lost an upsert or changed the published default")
	}
}
