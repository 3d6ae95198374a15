package workload

import (
	"os"
	"path/filepath"
	"testing"
)

// TestProgress: Options.Progress is told the trades and bytes written as
// the set is written (ste gen's and ste bench's bars), ending at every
// trade and the file's size.
func TestProgress(t *testing.T) {
	file := filepath.Join(t.TempDir(), "set.xml")
	var calls, lastTrades int
	var lastBytes int64
	o := Options{Trades: 300, Window: 64, Progress: func(trades int, bytes int64) {
		if trades < lastTrades || bytes < lastBytes {
			t.Errorf("progress went back: %d trades %d bytes after %d, %d", trades, bytes, lastTrades, lastBytes)
		}
		calls++
		lastTrades, lastBytes = trades, bytes
	}}
	if _, err := WriteFiles(o, file, false); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if calls < 300/64 || lastTrades != 300 || lastBytes != fi.Size() {
		t.Fatalf("%d calls, last %d trades and %d bytes; want ≥ %d calls, 300 trades and the file's %d bytes", calls, lastTrades, lastBytes, 300/64, fi.Size())
	}
}
