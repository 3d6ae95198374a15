package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ste-utility/ste/cli"
	"github.com/ste-utility/ste/measure/bench"
	"github.com/ste-utility/ste/measure/plots"
)

func init() {
	register(cli.Command{Name: "plot", Summary: "draw benchmark experiments from ste bench --json results (SVG or PNG)", Run: plot})
}

func plot(ctx context.Context, args []string) error {
	fs := cli.Flags("plot", "littles|instances|degradation|timeline --out FILE RESULT.json...")
	out := fs.String("out", "", "output file (.svg or .png); a timeline writes FILE-queues.EXT and FILE-latency.EXT")
	title := fs.String("title", "Load scenario", "title of a timeline")
	if len(args) == 0 {
		return cli.UsageError{Msg: "which plot? littles, instances, degradation or timeline"}
	}
	kind := args[0]
	if len(kind) > 0 && kind[0] == '-' { // --help, or flags before the kind
		if err := fs.Read(args); err != nil {
			return err
		}
		return cli.UsageError{Msg: "the plot kind comes first: littles, instances, degradation or timeline"}
	}
	if err := fs.Parse(args[1:]); err != nil {
		return fs.Read(args[1:]) // the one-line error, or --help
	}
	if *out == "" || fs.NArg() == 0 {
		return cli.UsageError{Msg: "--out and at least one result file are required"}
	}
	runs, err := bench.Load(fs.Args()...)
	if err != nil {
		return err
	}
	// Every file written is named on stderr, as ste report --plot does.
	written := func(files ...string) {
		for _, f := range files {
			fmt.Fprintf(os.Stderr, "plot written to %s\n", f)
		}
	}
	switch kind {
	case "littles":
		knee, err := plots.Littles(runs, *out)
		if err == nil {
			fmt.Printf("knee at about %.0f msg/s\n", knee)
			written(*out)
		}
		return err
	case "instances":
		err := plots.Instances(runs, *out)
		if err == nil {
			written(*out)
		}
		return err
	case "degradation":
		err := plots.Degradation(runs[0], *out)
		if err == nil {
			written(*out)
		}
		return err
	case "timeline":
		ext := filepath.Ext(*out)
		if ext != ".png" && ext != ".svg" {
			ext = ".svg"
		}
		base := strings.TrimSuffix(*out, filepath.Ext(*out))
		err := plots.Timeline(runs[0], *title, base, ext)
		if err == nil {
			written(base+"-queues"+ext, base+"-latency"+ext)
		}
		return err
	}
	return cli.UsageError{Msg: fmt.Sprintf("unknown plot %q", kind)}
}
