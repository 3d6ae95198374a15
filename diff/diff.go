// Package diff is ste diff: the outcomes of two namespaces — read from
// their topics, or from the analytics store — compared (schemas/outcome)
// and printed (docs/backtests.md).
package diff

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/ste-utility/ste/analytics"
	"github.com/ste-utility/ste/analytics/ingest"
	"github.com/ste-utility/ste/analytics/store"
	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/schemas/outcome"
	"github.com/ste-utility/ste/termsafe"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topology"
)

// Options say what to compare and where to read it.
type Options struct {
	A, B  string // the namespaces: B is compared to A
	Kafka kafkaconn.Config
	// ClickHouse: read both from the analytics store at DSN ("" the
	// embedded one under Home) instead of their topics.
	ClickHouse bool
	DSN, Home  string
	Expiries   bool // also compare trades that ended EXPIRED
	// Warn receives what the reader could not settle (a namespace made
	// again while the brokers are unreachable).
	Warn io.Writer
}

// Run reads both namespaces' outcomes and compares them.
func Run(ctx context.Context, o Options) (*outcome.Diff, error) {
	var sets []*outcome.Set
	var err error
	if o.ClickHouse {
		sets, err = fromStore(ctx, o)
	} else {
		sets, err = fromTopics(ctx, o)
	}
	if err != nil {
		return nil, err
	}
	return outcome.Compare(sets[0], sets[1], outcome.Options{A: o.A, B: o.B, Expiries: o.Expiries}), nil
}

// fromTopics reads both namespaces' outputs from their topics, both at
// once: reading is parsing millions of outputs.
func fromTopics(ctx context.Context, o Options) ([]*outcome.Set, error) {
	cl, err := topics.Connect(ctx, o.Kafka)
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	names := []string{o.A, o.B}
	for _, ns := range names {
		inbound := topology.Names{NS: ns}.Inbound()
		td, err := kadm.NewClient(cl).ListTopics(ctx, inbound)
		if err != nil {
			return nil, err
		}
		if !td.Has(inbound) {
			return nil, fmt.Errorf("namespace %s has no topics on %s", ns, strings.Join(o.Kafka.Brokers, ","))
		}
	}
	sets, errs := make([]*outcome.Set, 2), make([]error, 2)
	var wg sync.WaitGroup
	for i, ns := range names {
		wg.Go(func() { sets[i], errs[i] = topics.ReadOutcome(ctx, o.Kafka, ns) })
	}
	wg.Wait()
	return sets, errors.Join(errs...)
}

// fromStore reads both namespaces from the analytics store, each from the
// rows of its current topics when the brokers answer: a namespace made
// again under its name (a sandbox replayed again) leaves the rows of its
// old topics in the store.
func fromStore(ctx context.Context, o Options) ([]*outcome.Set, error) {
	st, err := analytics.Open(ctx, o.DSN, o.Home, store.Options{NoMigrate: true})
	if err != nil {
		return nil, err
	}
	defer st.Close()
	have, err := st.Namespaces(ctx)
	if err != nil {
		return nil, err
	}
	var adm *kadm.Client
	pctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	if cl, err := topics.Connect(pctx, o.Kafka); err == nil {
		defer cl.Close()
		adm = kadm.NewClient(cl)
	}
	cancel()
	sets := make([]*outcome.Set, 2)
	for i, ns := range []string{o.A, o.B} {
		if !slices.ContainsFunc(have, func(n store.Namespace) bool { return n.Name == ns }) {
			return nil, fmt.Errorf("namespace %s has no rows in the analytics store %s: run ste analytics --namespace %s --catch-up", ns, st.Database(), ns)
		}
		var ids map[string]uuid.UUID
		if adm != nil {
			if ids, err = ingest.TopicIDs(ctx, adm, ns); err != nil {
				return nil, err
			}
		} else if byTable, err := st.TopicIDs(ctx, ns); err == nil {
			warnMadeAgain(o.Warn, ns, byTable)
		}
		if sets[i], err = st.Outcome(ctx, ns, ids); err != nil {
			return nil, err
		}
	}
	return sets, nil
}

// warnMadeAgain says which outcome tables hold rows of more than one
// incarnation of namespace ns (byTable: table → its topics' ids), all of
// which are read when the brokers cannot say which is current.
func warnMadeAgain(w io.Writer, ns string, byTable map[string][]uuid.UUID) {
	if w == nil {
		return
	}
	for _, table := range store.OutcomeTables {
		if n := len(byTable[table]); n > 1 {
			fmt.Fprintf(w, "ste diff: the store holds %s rows of %d topics named %s.…: the namespace was made again; with the brokers unreachable all are read\n", table, n, ns)
		}
	}
}

// Write prints d: as JSON, or as the tables with at most lines differences
// listed under them and the one-line summary.
//
// MsgIds and Senders are the participants' own text: what is printed goes
// through termsafe (control and bidi characters written as \uXXXX, which in
// the JSON is the same string), built whole first so that no character is
// split between two writes.
func Write(w io.Writer, d *outcome.Diff, asJSON, expiries bool, lines int) error {
	var buf bytes.Buffer
	err := write(&buf, d, asJSON, expiries, lines)
	if _, werr := io.WriteString(w, termsafe.Escape(buf.String())); err == nil {
		err = werr
	}
	return err
}

func write(w io.Writer, d *outcome.Diff, asJSON, expiries bool, lines int) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(d)
	}
	if err := d.Table(w, expiries); err != nil {
		return err
	}
	if err := d.FlipsTable(w); err != nil {
		return err
	}
	ls := d.Lines()
	for i, l := range ls {
		if i == lines {
			fmt.Fprintf(w, "  … and %d more (--json lists every one)\n", len(ls)-i)
			break
		}
		fmt.Fprintln(w, "  "+l)
	}
	_, err := fmt.Fprintln(w, d.String())
	return err
}
