package refdata

import (
	"io/fs"
	"testing"

	"github.com/ste-utility/ste/schemas/date"
)

// Validation does these lookups for every message; they must stay in the
// tens of nanoseconds and never allocate.

func BenchmarkSecurity(b *testing.B) {
	s := Default()
	var isins []string
	for _, x := range s.Securities() {
		isins = append(isins, x.ISIN)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, ok := s.Security(isins[i%len(isins)]); !ok {
			b.Fatal("missing")
		}
		i++
	}
}

func BenchmarkParticipant(b *testing.B) {
	s := Default()
	var bics []string
	for _, p := range s.Participants() {
		bics = append(bics, p.BIC)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if p, ok := s.Participant(bics[i%len(bics)]); !ok || !p.Roles.Has(p.Roles) {
			b.Fatal("missing")
		}
		i++
	}
}

func BenchmarkIsBusinessDay(b *testing.B) {
	s := Default()
	countries := []string{"SG", "HK", "JP", "US", "GB", "DE", "FR", "AU"}
	start := date.MustParse("2026-01-01")
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		s.IsBusinessDay(countries[i%len(countries)], start+date.Date(i%730))
		i++
	}
}

func BenchmarkDemoPrivateKeyCached(b *testing.B) {
	DemoPrivateKey("BRKASGSGXXX")
	b.ReportAllocs()
	for b.Loop() {
		DemoPrivateKey("BRKASGSGXXX")
	}
}

func BenchmarkLoadDefault(b *testing.B) {
	for b.Loop() {
		sub, _ := fs.Sub(defaultFS, "default")
		if _, err := Load(sub); err != nil {
			b.Fatal(err)
		}
	}
}
