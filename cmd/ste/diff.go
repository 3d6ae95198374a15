package main

// ste diff: the outcome comparator over two namespaces (docs/backtests.md).

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/ste-utility/ste/analytics"
	"github.com/ste-utility/ste/analytics/ingest"
	"github.com/ste-utility/ste/analytics/store"
	"github.com/ste-utility/ste/schemas/outcome"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topology"
)

func init() {
	register(command{"diff", "compare the outcomes of two namespaces (exit 0 same, 1 different, 2 error)", diffCmd})
}

// chFlag is --clickhouse[=DSN]: on its own, the store ste analytics feeds
// by default ($STE_CLICKHOUSE, else the embedded one); with a value, that
// ClickHouse.
type chFlag struct {
	on  bool
	dsn string
}

func (c *chFlag) IsBoolFlag() bool { return true }
func (c *chFlag) String() string   { return c.dsn }
func (c *chFlag) Set(s string) error {
	if b, err := strconv.ParseBool(s); err == nil {
		c.on, c.dsn = b, os.Getenv("STE_CLICKHOUSE")
		return nil
	}
	c.on, c.dsn = true, s
	return nil
}

// diffCmd exits 0 when the outcomes are the same, 1 when they differ and 2
// on any error, so that CI can tell a difference from a failure.
func diffCmd(ctx context.Context, args []string) error {
	err := diff(ctx, args)
	var ec exitCode
	if err == nil || errors.Is(err, flag.ErrHelp) || errors.As(err, &ec) {
		return err
	}
	return exitCode{err: err, code: 2}
}

func diff(ctx context.Context, args []string) error {
	fs := flags("diff", "A B [--clickhouse[=DSN]] [--json] [--expiries] [--lines N] [--brokers B]\n\n"+
		"compares what namespace B ended with to what A ended with: per trade the final status, failing criteria\n"+
		"and standing CLS content (versions and status numbers left out), the ACKs, the NACKs and exceptions\n"+
		"by (Sender, MsgId, reason), and MsgIds with two contents; then, per participant, the trades that flip\n"+
		"between MISMATCHED and MATCHED and by which criteria (a tolerance's backtest); exit 0 same, 1 different, 2 error")
	kafka := kafkaFlags(fs)
	var ch chFlag
	fs.Var(&ch, "clickhouse", "read both namespaces from analytics instead of their topics: --clickhouse for the default store ($STE_CLICKHOUSE, else the embedded one), --clickhouse=DSN for another")
	asJSON := fs.Bool("json", false, "print the whole comparison as JSON: the summary and every difference with both sides")
	expiries := fs.Bool("expiries", false, "also compare trades that ended EXPIRED (event-time retention may differ between correct runs)")
	lines := fs.Int("lines", 20, "differences listed under the table (text output)")
	names, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(names) != 2 {
		return usageError{fmt.Sprintf("two namespaces are needed (ste diff A B), got %d", len(names))}
	}
	for _, ns := range names {
		if err := validNamespace(ns); err != nil {
			return err
		}
	}
	k, err := kafka()
	if err != nil {
		return err
	}
	sets := make([]*outcome.Set, 2)
	if ch.on {
		st, err := analytics.Open(ctx, ch.dsn, steHome(), store.Options{NoMigrate: true})
		if err != nil {
			return err
		}
		defer st.Close()
		have, err := st.Namespaces(ctx)
		if err != nil {
			return err
		}
		// The namespaces' current topics, when the brokers answer: a
		// namespace made again under its name (a sandbox replayed again)
		// leaves the rows of its old topics in the store.
		var adm *kadm.Client
		pctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		if cl, err := topics.Connect(pctx, k); err == nil {
			defer cl.Close()
			adm = kadm.NewClient(cl)
		}
		cancel()
		for i, ns := range names {
			if !slices.ContainsFunc(have, func(n store.Namespace) bool { return n.Name == ns }) {
				return fmt.Errorf("namespace %s has no rows in the analytics store %s: run ste analytics --namespace %s --catch-up", ns, st.Database(), ns)
			}
			var ids map[string]uuid.UUID
			if adm != nil {
				if ids, err = ingest.TopicIDs(ctx, adm, ns); err != nil {
					return err
				}
			} else if byTable, err := st.TopicIDs(ctx, ns); err == nil {
				for _, table := range store.OutcomeTables {
					if n := len(byTable[table]); n > 1 {
						fmt.Fprintf(os.Stderr, "ste diff: the store holds %s rows of %d topics named %s.…: the namespace was made again; with the brokers unreachable all are read\n", table, n, ns)
					}
				}
			}
			if sets[i], err = st.Outcome(ctx, ns, ids); err != nil {
				return err
			}
		}
	} else {
		cl, err := topics.Connect(ctx, k)
		if err != nil {
			return err
		}
		defer cl.Close()
		for _, ns := range names {
			inbound := topology.Names{NS: ns}.Inbound()
			td, err := kadm.NewClient(cl).ListTopics(ctx, inbound)
			if err != nil {
				return err
			}
			if !td.Has(inbound) {
				return fmt.Errorf("namespace %s has no topics on %s", ns, strings.Join(k.Brokers, ","))
			}
		}
		// Both at once: reading is parsing millions of outputs.
		errs := make([]error, 2)
		var wg sync.WaitGroup
		for i, ns := range names {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sets[i], errs[i] = topics.ReadOutcome(ctx, k, ns)
			}()
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			return err
		}
	}
	d := outcome.Compare(sets[0], sets[1], outcome.Options{A: names[0], B: names[1], Expiries: *expiries})
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(d); err != nil {
			return err
		}
	} else {
		if err := d.Table(os.Stdout, *expiries); err != nil {
			return err
		}
		if err := d.FlipsTable(os.Stdout); err != nil {
			return err
		}
		ls := d.Lines()
		for i, l := range ls {
			if i == *lines {
				fmt.Printf("  … and %d more (--json lists every one)\n", len(ls)-i)
				break
			}
			fmt.Println("  " + l)
		}
		fmt.Println(d.String())
	}
	if !d.Equal() {
		return exitCode{code: 1}
	}
	return nil
}

// parseInterleaved parses flags that may come before, between or after
// the positional arguments, and returns those.
func parseInterleaved(fs *flagSet, args []string) ([]string, error) {
	var pos []string
	for {
		err := fs.FlagSet.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			return nil, fs.parse([]string{"--help"})
		}
		if err != nil {
			return nil, usageError{err.Error()}
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}
