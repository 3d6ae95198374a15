package offline

import (
	"context"
	"os"
	"path/filepath"

	"github.com/ste-utility/ste/schemas/msgset"
	"github.com/ste-utility/ste/schemas/outcome"
)

// RunToDir is ste match: Run with its outputs written to dir as the files
// outcome.FromMatchDir reads back (outcome.MatchCLS, MatchOutbound,
// MatchExceptions; docs/spec/cli.md), compressed as their names say.
func RunToDir(ctx context.Context, src *msgset.Reader, dir string, opts Options) (Summary, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Summary{}, err
	}
	var ws []*msgset.Writer
	defer func() {
		for _, w := range ws {
			w.Close()
		}
	}()
	var sinks [3]func([]byte) error
	for i, name := range []string{outcome.MatchCLS, outcome.MatchOutbound, outcome.MatchExceptions} {
		w, err := msgset.Create(filepath.Join(dir, name))
		if err != nil {
			return Summary{}, err
		}
		ws, sinks[i] = append(ws, w), w.Write
	}
	sum, _, err := Run(ctx, src, Sinks{CLS: sinks[0], Outbound: sinks[1], Exceptions: sinks[2]}, opts)
	for _, w := range ws {
		if cerr := w.Close(); err == nil {
			err = cerr
		}
	}
	ws = nil
	return sum, err
}
