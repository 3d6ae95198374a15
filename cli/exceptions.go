package cli

// The flags every ste exceptions command shares (docs/spec/messages.md §7):
// the cluster, the namespace, the console's filter and --json.

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

// Untrusted is standard output for text from records — a rejected
// message's fields, an exception's detail, an operator's note — which can
// hold what a terminal would act on (termsafe).
var Untrusted = termsafe.Writer(os.Stdout)

// ExcFlags are the flags every exceptions command shares: the cluster, the
// namespace, the filter and --json.
type ExcFlags struct {
	FS                           *FlagSet
	Kafka                        func() (kafkaconn.Config, error)
	Secret                       func() (*trust.Secret, error)
	NS                           *string
	since, until, sender, reason *string
	msgID, state                 *string
	JSON                         *bool
	// changes: retry or archive (operator, dry run, open by default).
	changes        bool
	Operator, Note *string
	Force, DryRun  *bool
	Wait           *time.Duration
}

// ExcFilterSynopsis is the filter flags in a synopsis.
const ExcFilterSynopsis = "[--since T] [--until T] [--sender BIC] [--reason CODE] [--msg-id TEXT] [--state S] [--json] [--brokers B] [--namespace NS]"

func NewExcFlags(name, synopsis string, changes bool) *ExcFlags {
	f := &ExcFlags{FS: Flags(name, synopsis), changes: changes}
	f.Kafka, f.NS, f.Secret = KafkaFlags(f.FS), Namespace(f.FS), SecretFlag(f.FS)
	f.since = f.FS.String("since", "", "only exceptions received at or after T (RFC 3339, a date, or a duration before now: 30m, 3d)")
	f.until = f.FS.String("until", "", "only exceptions received before T")
	f.sender = f.FS.String("sender", "", "only this sender's (BIC)")
	f.reason = f.FS.String("reason", "", "only this rejection code (UNKNOWN_SECURITY, INTERNAL, ...)")
	f.msgID = f.FS.String("msg-id", "", "only exceptions whose MsgId contains TEXT")
	stateHelp := "only exceptions in state S: open, retried, resolved, archived or all"
	if changes {
		stateHelp += " (default open when selecting by filter)"
	}
	f.state = f.FS.String("state", "", stateHelp)
	f.JSON = f.FS.Bool("json", false, "print JSON instead of a table")
	if changes {
		f.Operator = f.FS.String("operator", "", "your name, recorded with the change (default $STE_OPERATOR, else your user name)")
		f.DryRun = f.FS.Bool("dry-run", false, "say what would be done and change nothing")
	}
	return f
}

// filter reads the filter flags (exceptions.FilterText, as the console
// reads its form): open by default when changing by filter.
func (f *ExcFlags) filter(ids []string) (exceptions.Filter, error) {
	var def exceptions.State
	if f.changes && len(ids) == 0 {
		def = exceptions.Open
	}
	flt, err := exceptions.FilterText{Since: *f.since, Until: *f.until, Sender: *f.sender, Reason: *f.reason,
		MsgId: *f.msgID, State: *f.state}.Parse(def)
	var fe *exceptions.FilterError
	switch {
	case errors.As(err, &fe) && fe.Field == "state":
		return flt, UsageError{Msg: fmt.Sprintf("--state %q: %v", fe.Value, fe.Err)}
	case err != nil:
		return flt, UsageError{Msg: "--" + err.Error()}
	}
	flt.IDs = ids
	return flt, nil
}

// Parse parses the flags, with exception ids as positional arguments, and
// reads the filter.
func (f *ExcFlags) Parse(args []string) ([]string, exceptions.Filter, error) {
	ids, err := f.FS.ReadArgs(args)
	if err != nil {
		return nil, exceptions.Filter{}, err
	}
	flt, err := f.filter(ids)
	return ids, flt, err
}

// Load reads the namespace's exceptions.
func (f *ExcFlags) Load(ctx context.Context) (*exceptions.Book, kafkaconn.Config, error) {
	k, err := Reachable(ctx, f.Kafka)
	if err != nil {
		return nil, k, err
	}
	secret, err := f.Secret()
	if err != nil {
		return nil, k, err
	}
	book, err := exceptions.Load(ctx, k, *f.NS, secret)
	if err == nil && book.Unproven() > 0 {
		fmt.Fprintf(os.Stderr, "ste: %d records on %s's exceptions topics lack the utility's proof and were skipped\n", book.Unproven(), *f.NS)
	}
	return book, k, err
}

// OperatorName is --operator, else the local user.
func (f *ExcFlags) OperatorName() string {
	if name := strings.TrimSpace(*f.Operator); name != "" {
		return name
	}
	return exceptions.LocalOperator()
}

// PrintJSON prints v indented to Untrusted.
func PrintJSON(v any) error {
	enc := json.NewEncoder(Untrusted)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// Change retries or archives the exceptions named, or those the
// filter selects.
func (f *ExcFlags) Change(ctx context.Context, args []string, retry bool) error {
	ids, flt, err := f.Parse(args)
	if err != nil {
		return err
	}
	if len(ids) == 0 && flt.Since.IsZero() && flt.Until.IsZero() && flt.Sender == "" && flt.Reason == "" && flt.MsgId == "" {
		return UsageError{Msg: "name exception ids, or select them with --reason, --sender, --msg-id, --since or --until"}
	}
	op := f.OperatorName()
	book, k, err := f.Load(ctx)
	if err != nil {
		return err
	}
	if len(ids) == 0 {
		for _, e := range book.List(flt) {
			ids = append(ids, e.ID)
		}
		if len(ids) == 0 {
			fmt.Fprintln(Untrusted, "no exception selected")
			return nil
		}
	}
	w, err := exceptions.NewWorkflow(ctx, k, *f.NS, book)
	if err != nil {
		return err
	}
	defer w.Close()
	o := exceptions.Options{Operator: op, DryRun: *f.DryRun}
	var results []exceptions.Result
	if retry {
		o.Force = *f.Force
		results, err = w.Retry(ctx, ids, o)
	} else {
		o.Note = *f.Note
		results, err = w.Archive(ctx, ids, o)
	}
	if err != nil {
		return err
	}
	var outcomes []exceptions.RetryOutcome
	if retry && *f.Wait > 0 && !o.DryRun {
		outcomes = w.WaitRetries(ctx, results, *f.Wait)
	}
	if *f.JSON {
		if err := PrintJSON(struct {
			Results  []exceptions.Result       `json:"results"`
			Outcomes []exceptions.RetryOutcome `json:"outcomes,omitempty"`
		}{results, outcomes}); err != nil {
			return err
		}
	} else {
		exceptions.WriteChanges(Untrusted, results, outcomes)
	}
	return exceptions.NotDone(results)
}
