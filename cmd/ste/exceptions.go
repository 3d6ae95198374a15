package main

// ste exceptions list|show|retry|archive: the exceptions workflow
// (exceptions package; docs/spec/messages.md §7) from the command line, with the
// console's filters.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/ste-utility/ste/exceptions"
	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/termsafe"
	"github.com/ste-utility/ste/trust"
)

// untrusted is standard output for text from records — a rejected
// message's fields, an exception's detail, an operator's note — which can
// hold what a terminal would act on (termsafe).
var untrusted = termsafe.Writer(os.Stdout)

func init() {
	register(command{Name: "exceptions list", Summary: "list a namespace's exceptions with their states, by reason and sender, filtered", Run: exceptionsList})
	register(command{Name: "exceptions show", Summary: "one exception: detail, the message's fields, the NACK sent, state and retries", Run: exceptionsShow})
	register(command{Name: "exceptions retry", Summary: "retry exceptions once their cause is fixed (messages.md §7): named ones or a filter's", Run: exceptionsRetry})
	register(command{Name: "exceptions archive", Summary: "close exceptions that need no retry, with a note", Run: exceptionsArchive})
}

// excFlags are the flags every exceptions command shares: the cluster, the
// namespace, the filter and --json.
type excFlags struct {
	fs                           *flagSet
	kafka                        func() (kafkaconn.Config, error)
	secret                       func() (*trust.Secret, error)
	ns                           *string
	since, until, sender, reason *string
	msgID, state                 *string
	asJSON                       *bool
	// changes: retry or archive (operator, dry run, open by default).
	changes        bool
	operator, note *string
	force, dryRun  *bool
	wait           *time.Duration
}

const excFilterSynopsis = "[--since T] [--until T] [--sender BIC] [--reason CODE] [--msg-id TEXT] [--state S] [--json] [--brokers B] [--namespace NS]"

func newExcFlags(name, synopsis string, changes bool) *excFlags {
	f := &excFlags{fs: flags(name, synopsis), changes: changes}
	f.kafka, f.ns, f.secret = kafkaFlags(f.fs), namespaceFlag(f.fs), secretFlag(f.fs)
	f.since = f.fs.String("since", "", "only exceptions received at or after T (RFC 3339, a date, or a duration before now: 30m, 3d)")
	f.until = f.fs.String("until", "", "only exceptions received before T")
	f.sender = f.fs.String("sender", "", "only this sender's (BIC)")
	f.reason = f.fs.String("reason", "", "only this rejection code (UNKNOWN_SECURITY, INTERNAL, ...)")
	f.msgID = f.fs.String("msg-id", "", "only exceptions whose MsgId contains TEXT")
	stateHelp := "only exceptions in state S: open, retried, resolved, archived or all"
	if changes {
		stateHelp += " (default open when selecting by filter)"
	}
	f.state = f.fs.String("state", "", stateHelp)
	f.asJSON = f.fs.Bool("json", false, "print JSON instead of a table")
	if changes {
		f.operator = f.fs.String("operator", "", "your name, recorded with the change (default $STE_OPERATOR, else your user name)")
		f.dryRun = f.fs.Bool("dry-run", false, "say what would be done and change nothing")
	}
	return f
}

// filter reads the filter flags (exceptions.FilterText, as the console
// reads its form): open by default when changing by filter.
func (f *excFlags) filter(ids []string) (exceptions.Filter, error) {
	var def exceptions.State
	if f.changes && len(ids) == 0 {
		def = exceptions.Open
	}
	flt, err := exceptions.FilterText{Since: *f.since, Until: *f.until, Sender: *f.sender, Reason: *f.reason,
		MsgId: *f.msgID, State: *f.state}.Parse(def)
	var fe *exceptions.FilterError
	switch {
	case errors.As(err, &fe) && fe.Field == "state":
		return flt, usageError{Msg: fmt.Sprintf("--state %q: %v", fe.Value, fe.Err)}
	case err != nil:
		return flt, usageError{Msg: "--" + err.Error()}
	}
	flt.IDs = ids
	return flt, nil
}

// parse parses the flags, with exception ids as positional arguments, and
// reads the filter.
func (f *excFlags) parse(args []string) ([]string, exceptions.Filter, error) {
	ids, err := f.fs.ReadArgs(args)
	if err != nil {
		return nil, exceptions.Filter{}, err
	}
	flt, err := f.filter(ids)
	return ids, flt, err
}

// load reads the namespace's exceptions.
func (f *excFlags) load(ctx context.Context) (*exceptions.Book, kafkaconn.Config, error) {
	k, err := reachable(ctx, f.kafka)
	if err != nil {
		return nil, k, err
	}
	secret, err := f.secret()
	if err != nil {
		return nil, k, err
	}
	book, err := exceptions.Load(ctx, k, *f.ns, secret)
	if err == nil && book.Unproven() > 0 {
		fmt.Fprintf(os.Stderr, "ste: %d records on %s's exceptions topics lack the utility's proof and were skipped\n", book.Unproven(), *f.ns)
	}
	return book, k, err
}

func (f *excFlags) operatorName() string {
	if name := strings.TrimSpace(*f.operator); name != "" {
		return name
	}
	return exceptions.LocalOperator()
}

func printJSON(v any) error {
	enc := json.NewEncoder(untrusted)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func exceptionsList(ctx context.Context, args []string) error {
	f := newExcFlags("exceptions list", excFilterSynopsis+" [--limit N]", false)
	limit := f.fs.Int("limit", 50, "rows of the table at most (--json prints every one)")
	ids, flt, err := f.parse(args)
	if err != nil {
		return err
	}
	if len(ids) > 0 {
		return usageError{Msg: fmt.Sprintf("unexpected argument %q (ste exceptions show ID for one)", ids[0])}
	}
	book, _, err := f.load(ctx)
	if err != nil {
		return err
	}
	list := book.List(flt)
	if *f.asJSON {
		if list == nil {
			list = []exceptions.Exception{}
		}
		return printJSON(list)
	}
	return exceptions.WriteList(untrusted, *f.ns, list, book.Len(), *limit)
}

func exceptionsShow(ctx context.Context, args []string) error {
	f := newExcFlags("exceptions show", "ID [--json] [--brokers B] [--namespace NS]", false)
	ids, _, err := f.parse(args)
	if err != nil {
		return err
	}
	if len(ids) != 1 {
		return usageError{Msg: "name one exception id (ste exceptions list shows them)"}
	}
	book, k, err := f.load(ctx)
	if err != nil {
		return err
	}
	w, err := exceptions.NewWorkflow(ctx, k, *f.ns, book)
	if err != nil {
		return err
	}
	defer w.Close()
	out, err := w.ShowOne(ctx, ids[0])
	if err != nil {
		return err
	}
	if *f.asJSON {
		return printJSON(out)
	}
	return out.WriteText(untrusted)
}

func exceptionsRetry(ctx context.Context, args []string) error {
	f := newExcFlags("exceptions retry", "[ID...] "+excFilterSynopsis+" [--force] [--dry-run] [--operator NAME] [--wait DUR]", true)
	f.force = f.fs.Bool("force", false, "retry even exceptions already retried, resolved or archived")
	f.wait = f.fs.Duration("wait", 30*time.Second, "wait this long for each retry's answer (an ACK, or a new exception); 0: do not wait")
	return exceptionsChange(ctx, f, args, true)
}

func exceptionsArchive(ctx context.Context, args []string) error {
	f := newExcFlags("exceptions archive", "[ID...] "+excFilterSynopsis+" [--note TEXT] [--dry-run] [--operator NAME]", true)
	f.note = f.fs.String("note", "", "why no retry is needed, kept with the state")
	return exceptionsChange(ctx, f, args, false)
}

// exceptionsChange retries or archives the exceptions named, or those the
// filter selects.
func exceptionsChange(ctx context.Context, f *excFlags, args []string, retry bool) error {
	ids, flt, err := f.parse(args)
	if err != nil {
		return err
	}
	if len(ids) == 0 && flt.Since.IsZero() && flt.Until.IsZero() && flt.Sender == "" && flt.Reason == "" && flt.MsgId == "" {
		return usageError{Msg: "name exception ids, or select them with --reason, --sender, --msg-id, --since or --until"}
	}
	op := f.operatorName()
	book, k, err := f.load(ctx)
	if err != nil {
		return err
	}
	if len(ids) == 0 {
		for _, e := range book.List(flt) {
			ids = append(ids, e.ID)
		}
		if len(ids) == 0 {
			fmt.Fprintln(untrusted, "no exception selected")
			return nil
		}
	}
	w, err := exceptions.NewWorkflow(ctx, k, *f.ns, book)
	if err != nil {
		return err
	}
	defer w.Close()
	o := exceptions.Options{Operator: op, DryRun: *f.dryRun}
	var results []exceptions.Result
	if retry {
		o.Force = *f.force
		results, err = w.Retry(ctx, ids, o)
	} else {
		o.Note = *f.note
		results, err = w.Archive(ctx, ids, o)
	}
	if err != nil {
		return err
	}
	var outcomes []exceptions.RetryOutcome
	if retry && *f.wait > 0 && !o.DryRun {
		outcomes = w.WaitRetries(ctx, results, *f.wait)
	}
	if *f.asJSON {
		if err := printJSON(struct {
			Results  []exceptions.Result       `json:"results"`
			Outcomes []exceptions.RetryOutcome `json:"outcomes,omitempty"`
		}{results, outcomes}); err != nil {
			return err
		}
	} else {
		exceptions.WriteChanges(untrusted, results, outcomes)
	}
	return exceptions.NotDone(results)
}
