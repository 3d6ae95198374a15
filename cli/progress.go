package cli

import (
	"fmt"
	"os"
	"strings"
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
