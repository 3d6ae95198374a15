package workload

import (
	"bufio"
	"encoding/json"
	"os"

	"github.com/ste-utility/ste/schemas/msgset"
)

// WriteFiles is ste gen: the message set into file (.gz or .zst
// compresses), its manifest beside it (FILE.manifest.json) and, with
// plans, each trade's plan (FILE.trades.jsonl).
func WriteFiles(opts Options, file string, plans bool) (*Manifest, error) {
	w, err := msgset.Create(file)
	if err != nil {
		return nil, err
	}
	var each func(TradePlan)
	var pw *bufio.Writer
	if plans {
		pf, err := os.Create(file + ".trades.jsonl")
		if err != nil {
			w.Close()
			return nil, err
		}
		defer pf.Close()
		pw = bufio.NewWriter(pf)
		enc := json.NewEncoder(pw)
		each = func(p TradePlan) { enc.Encode(p) }
	}
	man, err := Generate(opts, w.Write, each)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	if pw != nil {
		if err := pw.Flush(); err != nil {
			return nil, err
		}
	}
	return man, os.WriteFile(file+".manifest.json", man.Marshal(), 0o644)
}
