package main

// ste analytics and ste report: the ClickHouse side of STE (docs/analytics.md).

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/ste-utility/ste/analytics"
	"github.com/ste-utility/ste/analytics/charts"
	"github.com/ste-utility/ste/analytics/ingest"
	"github.com/ste-utility/ste/analytics/report"
	"github.com/ste-utility/ste/analytics/store"
	"github.com/ste-utility/ste/chendpoint/embedded"
	"github.com/ste-utility/ste/cli"
	"github.com/ste-utility/ste/trust"
	"github.com/ste-utility/ste/when"
)

func init() {
	register(cli.Command{Name: "analytics", Summary: "ingest CLS, audit, exceptions and monitor samples into ClickHouse until interrupted", Run: analyticsCmd})
	register(cli.Command{Name: "report", Summary: "analytics reports: counts, throughput, degradation, queues, latency, exceptions, timeliness, allegements", Run: reportCmd})
}

func analyticsCmd(ctx context.Context, args []string) error {
	fs := cli.Flags("analytics", "[--brokers B] [--namespace NS] [--clickhouse DSN] [--retention DUR] [--catch-up]")
	kafka, ns := cli.KafkaFlags(fs), cli.Namespace(fs)
	dsn := cli.ClickHouse(fs)
	retention := cli.AddRetention(fs, "", "keep rows this long (e.g. 30d, 720h); default: what the store has (90d for a new one)")
	batchRows := fs.Int("batch-rows", ingest.DefaultBatchRows, "rows per insert at most")
	flush := fs.Duration("flush", ingest.DefaultFlushInterval, "insert a table's rows at least this often")
	group := fs.String("group", "", "consumer group (default <ns>.analytics); one group per store: two stores fed by one group would each get part of the records")
	fromStore := fs.Bool("from-store", false, "ignore the group's committed offsets: resume after what the store holds (fill a new or rebuilt store; never doubles rows)")
	fs.LogFlags()
	catchUp := fs.Bool("catch-up", false, "ingest what the topics hold now, then exit (a finished run or sandbox, before ste diff --clickhouse)")
	secretOf := cli.SecretFlag(fs)
	if err := fs.Read(args); err != nil {
		return err
	}
	ret, err := retention.Get()
	if err != nil {
		return err
	}
	if *batchRows < 1 || *flush <= 0 {
		return cli.UsageError{Msg: "--batch-rows and --flush must be positive"}
	}
	// Brokers first: an unreachable cluster should not start an embedded
	// store as a side effect of a command that cannot run.
	k, err := cli.Reachable(ctx, kafka)
	if err != nil {
		return err
	}
	log := fs.Log
	st, err := analytics.Open(ctx, *dsn, cli.Home(), store.Options{Retention: ret})
	if err != nil {
		return err
	}
	defer st.Close()
	where := st.DSN()
	if *dsn == "" {
		where = "embedded store " + embedded.DataDir(cli.Home()) + " (" + st.DSN() + ")"
	}
	log.Info("analytics store open", "clickhouse", where, "database", st.Database(), "schema_version", store.SchemaVersion())
	o := ingest.Options{Kafka: k, Namespace: *ns, Store: st, BatchRows: *batchRows,
		FlushInterval: *flush, FromStore: *fromStore, Group: *group, Logger: log}
	// Exceptions are believed only with the utility's proof when this
	// process holds the utility's secret (named, or $STE_HOME's); without
	// one it cannot tell, says so, and ingests them all.
	if fs.Lookup("utility-secret").Value.String() != "" || cli.FileExists(trust.DefaultPath(cli.Home())) {
		if o.Secret, err = secretOf(); err != nil {
			return err
		}
	} else {
		log.Warn("no utility secret: exceptions are ingested without checking the utility's proof (name it with --utility-secret)")
	}
	if *catchUp {
		return ingest.CatchUp(ctx, o)
	}
	return ingest.Run(ctx, o)
}

func reportCmd(ctx context.Context, args []string) error {
	var names []string
	for _, r := range report.Reports {
		names = append(names, fmt.Sprintf("  %-12s %s", r.Name, r.Describe))
	}
	fs := cli.Flags("report", "NAME [--json] [--clickhouse DSN] [--namespace NS] [--since T] [--until T] [--plot FILE.png|.svg]\n\nreports:\n"+
		strings.Join(names, "\n")+"\n\ntimes (--since, --until): RFC 3339, \"2006-01-02 15:04:05\" (UTC), a date, or a duration before now (30m, 2h, 3d)")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	dsn := cli.ClickHouse(fs)
	ns := fs.String("namespace", os.Getenv("STE_NAMESPACE"), "namespace ($STE_NAMESPACE); default: the one whose data begins last (the run started most recently; ste report namespaces lists them)")
	since := fs.String("since", "", "only data from this time on")
	until := fs.String("until", "", "only data before this time")
	plotFile := fs.String("plot", "", "also draw the report into FILE.png or FILE.svg ("+strings.Join(report.Charted, ", ")+")")
	by := fs.String("by", "", "throughput resolution: second or minute (default: by second up to 15 minutes of data)")
	window := fs.Duration("window", 0, "degradation and latency window (default: about 30 windows over the data)")

	name := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	if err := fs.Read(args); err != nil {
		return err
	}
	if name == "" {
		return cli.UsageError{Msg: "a report name is required: " + strings.Join(report.Names, ", ")}
	}
	if !slices.Contains(report.Names, name) {
		return cli.UsageError{Msg: fmt.Sprintf("unknown report %q (want one of %s)", name, strings.Join(report.Names, ", "))}
	}
	if *window < 0 {
		return cli.UsageError{Msg: "--window must not be negative"}
	}
	p := report.Params{Namespace: *ns, Window: *window}
	var err error
	if p.Since, err = when.Time(*since); err != nil {
		return cli.UsageError{Msg: "--since: " + err.Error()}
	}
	if p.Until, err = when.Time(*until); err != nil {
		return cli.UsageError{Msg: "--until: " + err.Error()}
	}
	if p.Step, err = report.Step(*by); err != nil {
		return cli.UsageError{Msg: "--by " + err.Error()}
	}
	if *plotFile != "" {
		if !charts.Plottable(name) {
			return cli.UsageError{Msg: fmt.Sprintf("report %s has no plot", name)}
		}
		if ext := strings.ToLower(*plotFile); !strings.HasSuffix(ext, ".png") && !strings.HasSuffix(ext, ".svg") {
			return cli.UsageError{Msg: fmt.Sprintf("--plot %q: the file must end in .png or .svg", *plotFile)}
		}
		p.Series = true
	}
	if *ns != "" {
		if err := cli.ValidNamespace(*ns); err != nil {
			return err
		}
	}
	st, err := analytics.Open(ctx, *dsn, cli.Home(), store.Options{})
	if err != nil {
		return err
	}
	defer st.Close()
	if p.Namespace == "" && name != "namespaces" && name != "bench" {
		// Say which namespace is read when the store holds others.
		ns, others, err := report.DefaultNamespace(ctx, st)
		if err != nil {
			return err
		}
		p.Namespace = ns
		if len(others) > 0 {
			more := ""
			if len(others) > 3 {
				others, more = others[:3], fmt.Sprintf(" and %d more (ste report namespaces)", len(others)-3)
			}
			fmt.Fprintf(os.Stderr, "ste report: namespace %s, the one whose data begins last; --namespace for another: %s%s\n",
				ns, strings.Join(others, ", "), more)
		}
	}
	res, err := report.Run(ctx, st, name, p)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		if err := enc.Encode(res); err != nil {
			return err
		}
	} else if err := res.WriteText(os.Stdout); err != nil {
		return err
	}
	if *plotFile != "" {
		if err := charts.Save(res, *plotFile); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "plot written to %s\n", *plotFile)
	}
	return nil
}
