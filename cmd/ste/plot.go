package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ste-utility/ste/cli"
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
	runs, err := plots.Load(fs.Args()...)
	if err != nil {
		return err
	}
	switch kind {
	case "littles":
		knee, err := plots.Littles(runs, *out)
		if err == nil {
			fmt.Printf("knee at about %.0f msg/s\n", knee)
		}
		return err
	case "instances":
		return plots.Instances(runs, *out)
	case "degradation":
		return plots.Degradation(runs[0], *out)
	case "timeline":
		ext := filepath.Ext(*out)
		if ext != ".png" && ext != ".svg" {
			ext = ".svg"
		}
		return plots.Timeline(runs[0], *title, strings.TrimSuffix(*out, filepath.Ext(*out)), ext)
	}
	return cli.UsageError{Msg: fmt.Sprintf("unknown plot %q", kind)}
}
