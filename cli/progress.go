package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/ste-utility/ste/schemas"
)

// IsTerminal reports whether f is a terminal: progress is drawn only there.
func IsTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// Bar is a spinner-like bar of n records: the total is unknown while
// streaming a file.
func Bar(n int64) string {
	const width = 20
	pos := int(n/1000) % width
	return "[" + strings.Repeat("=", pos) + ">" + strings.Repeat(" ", width-pos) + "]"
}

// FractionBar is a progress bar of n out of total.
func FractionBar(n, total int64) string {
	const width = 20
	pos := width
	if total > 0 {
		pos = int(min(n, total) * width / total)
	}
	return "[" + strings.Repeat("=", pos) + ">" + strings.Repeat(" ", width-pos) + "]"
}

// SampleLine prints one line of monitor samples (ste monitor): each
// stage's queue, arrivals and completions.
func SampleLine(ss []schemas.MonitorSample) {
	var parts []string
	for _, s := range ss {
		parts = append(parts, fmt.Sprintf("%s q=%d +%d -%d", s.Stage, s.Queue, s.Arrivals, s.Completions))
	}
	fmt.Println(time.Now().Format("15:04:05"), strings.Join(parts, " | "))
}

// ProgressBar draws n out of a known total on a terminal, redrawn in place
// (ste gen, ste bench's processing): "[=====>    ] 4500/10000 trades,
// 31.2 MB written, 12s" — ste drive's bar with a total. Redraws are at most
// every 100 ms; Done draws the last state and ends the line.
type ProgressBar struct {
	w      io.Writer
	unit   string
	total  int64
	start  time.Time
	mu     sync.Mutex
	last   time.Time
	n      int64
	detail string
	width  int // of the last line drawn, to blank it
}

// NewProgressBar is a bar of total units ("trades", "CLS") drawn on w.
func NewProgressBar(w io.Writer, total int64, unit string) *ProgressBar {
	return &ProgressBar{w: w, unit: unit, total: total, start: time.Now()}
}

// Set records n units done and a detail ("31.2 MB written"), and redraws.
func (b *ProgressBar) Set(n int64, detail string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.n, b.detail = n, detail
	if now := time.Now(); now.Sub(b.last) >= 100*time.Millisecond || n >= b.total {
		b.last = now
		b.draw()
	}
}

// Done draws the last state and ends the line.
func (b *ProgressBar) Done() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.draw()
	fmt.Fprintln(b.w)
}

func (b *ProgressBar) draw() {
	line := b.Line(time.Since(b.start))
	pad := ""
	if len(line) < b.width {
		pad = strings.Repeat(" ", b.width-len(line))
	}
	b.width = len(line)
	fmt.Fprint(b.w, "\r"+line+pad)
}

// Line is the bar as drawn after elapsed.
func (b *ProgressBar) Line(elapsed time.Duration) string {
	s := fmt.Sprintf("%s %d/%d %s", FractionBar(b.n, b.total), b.n, b.total, b.unit)
	if b.detail != "" {
		s += ", " + b.detail
	}
	return s + ", " + elapsed.Round(time.Second).String()
}

// Bytes is a size as people read it: 728 MB, 12.5 kB (decimal units).
func Bytes(n int64) string {
	switch f := float64(n); {
	case n >= 1e9:
		return fmt.Sprintf("%.2f GB", f/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1f MB", f/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.1f kB", f/1e3)
	}
	return fmt.Sprintf("%d B", n)
}
