package workload

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/ste-utility/ste/schemas/msgset"
)

// WriteFiles writes the set, its manifest and, asked, one plan a trade;
// the manifest beside the set is the one returned.
func TestWriteFiles(t *testing.T) {
	file := filepath.Join(t.TempDir(), "set.xml.gz")
	man, err := WriteFiles(Options{Trades: 20, Seed: 2}, file, true)
	if err != nil {
		t.Fatal(err)
	}
	r, err := msgset.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	n := 0
	for {
		if _, _, err := r.Next(); err != nil {
			break
		}
		n++
	}
	if b, err := os.ReadFile(file + ".manifest.json"); err != nil || string(b) != string(man.Marshal()) {
		t.Fatalf("manifest: %v", err)
	}
	f, err := os.Open(file + ".trades.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	plans := 0
	for sc := bufio.NewScanner(f); sc.Scan(); plans++ {
		if !json.Valid(sc.Bytes()) {
			t.Fatalf("a plan is not JSON: %s", sc.Text())
		}
	}
	if plans != 20 || n < 20*7 {
		t.Fatalf("%d plans, %d messages; want 20 plans and at least 140 messages", plans, n)
	}
}
