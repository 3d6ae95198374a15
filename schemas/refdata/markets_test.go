package refdata

import (
	"strings"
	"testing"
	"time"

	"github.com/ste-utility/ste/schemas/date"
)

func TestMarketsOptional(t *testing.T) {
	s, err := Load(mapFS(validFiles()))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Cutoffs()) != 0 {
		t.Fatalf("cutoffs without markets.csv: %v", s.Cutoffs())
	}
	m, at := s.CutoffOf("XNYS", "2026-11-27")
	if m != NoMarket || !at.Equal(time.Date(2026, 11, 27, 23, 59, 0, 0, time.UTC)) {
		t.Errorf("no markets.csv: %s %v, want - 23:59 UTC", m, at)
	}
}

func TestMarketsLoad(t *testing.T) {
	files := validFiles()
	files[MarketsFile] = "mic,timezone,cutoff\nXNYS,America/New_York,21:00\nXLON , Europe/London , 23:00\n"
	s, err := Load(mapFS(files))
	if err != nil {
		t.Fatal(err)
	}
	ny, _ := time.LoadLocation("America/New_York")
	for _, c := range []struct {
		mic, day string
		market   string
		want     time.Time
	}{
		{"XNYS", "2026-11-27", "XNYS", time.Date(2026, 11, 27, 21, 0, 0, 0, ny)}, // EST: 02:00 UTC next day
		{"XNYS", "2026-07-01", "XNYS", time.Date(2026, 7, 2, 1, 0, 0, 0, time.UTC)},
		{"XLON", "2026-07-01", "XLON", time.Date(2026, 7, 1, 22, 0, 0, 0, time.UTC)},
		{"XSES", "2026-07-01", NoMarket, time.Date(2026, 7, 1, 23, 59, 0, 0, time.UTC)},
		{"", "2026-07-01", NoMarket, time.Date(2026, 7, 1, 23, 59, 0, 0, time.UTC)},
	} {
		m, at := s.CutoffOf(c.mic, c.day)
		if m != c.market || !at.Equal(c.want) {
			t.Errorf("%s %s: %s %v, want %s %v", c.mic, c.day, m, at.UTC(), c.market, c.want.UTC())
		}
	}
	if got := time.Date(2026, 11, 28, 2, 0, 0, 0, time.UTC); !must(s.CutoffOf("XNYS", "2026-11-27")).Equal(got) {
		t.Error("XNYS 21:00 EST is 02:00 UTC")
	}
	// Through the topic and back.
	back := NewSet()
	for _, r := range s.Records() {
		if err := back.Apply(r.Key, r.Value); err != nil {
			t.Fatal(err)
		}
	}
	if c, ok := back.Cutoff("XLON"); !ok || c.Timezone != "Europe/London" || c.Clock() != "23:00" {
		t.Errorf("XLON after Apply: %+v %v", c, ok)
	}
	if err := back.Apply([]byte("market:XPAR"), []byte(`{"mic":"XPAR","timezone":"Mars/Olympus","cutoff":"23:00"}`)); err == nil {
		t.Error("a bad zone applied")
	}
}

func must(_ string, at time.Time) time.Time { return at }

func TestMarketsRefused(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{"mic,timezone,cutoff\nXNY,America/New_York,21:00\n", `markets.csv:2: column "mic"`},
		{"mic,timezone,cutoff\nXNYS,America/Nowhere,21:00\n", `markets.csv:2: column "timezone"`},
		{"mic,timezone,cutoff\nXNYS,Local,21:00\n", `markets.csv:2: column "timezone"`},
		{"mic,timezone,cutoff\nXNYS,America/New_York,24:00\n", `markets.csv:2: column "cutoff"`},
		{"mic,timezone,cutoff\nXNYS,America/New_York,9:00\n", `markets.csv:2: column "cutoff"`},
		{"mic,timezone,cutoff\nXNYS,America/New_York,21:00\nXNYS,UTC,20:00\n", `markets.csv:3: column "mic": duplicate of line 2`},
		{"mic,timezone\nXNYS,America/New_York\n", `column "cutoff": missing from the header`},
	} {
		files := validFiles()
		files[MarketsFile] = c.body
		_, err := Load(mapFS(files))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %s", c.body, err, c.want)
		}
	}
}

func TestGeneratedCutoffs(t *testing.T) {
	s := Default()
	c, ok := s.Cutoff("XNYS")
	if !ok || c.Timezone != "America/New_York" || c.Clock() != "21:00" {
		t.Fatalf("XNYS %+v", c)
	}
	for _, m := range Markets() {
		if _, ok := s.Cutoff(m.MIC); !ok {
			t.Errorf("generator market %s has no cutoff", m.MIC)
		}
	}
	_ = date.MustParse("2026-01-02")
}
