package exceptions

// What an operator is shown of exceptions, by ste exceptions and the
// console alike: one exception with its message and NACK (Show), the list
// (WriteList), the results of a change and the wait for a retry's answer.

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// Shown is one exception as an operator sees it: the exception with its
// payload read back whole up to the record limit, the message's fields,
// and the NACK the utility sent. It is ste exceptions show --json.
type Shown struct {
	Exception Exception `json:"exception"`
	Fields    []Field   `json:"fields,omitempty"`
	FieldsErr string    `json:"fields_error,omitempty"`
	NACK      string    `json:"nack,omitempty"`
	NACKErr   string    `json:"nack_error,omitempty"`
	// read: the payload was read; FieldsErr then says why it is not XML.
	read bool
}

// PayloadRead reports whether the payload was read back: when it was,
// FieldsErr says why it is not well-formed XML; when not, why it was not read.
func (s Shown) PayloadRead() bool { return s.read }

// Show reads back what an operator is shown of e.
func (w *Workflow) Show(ctx context.Context, e Exception) Shown {
	out := Shown{Exception: e}
	payload, err := w.Payload(ctx, e, false)
	if err == nil {
		out.read, out.Exception.Payload = true, payload
		if out.Fields, err = Fields(payload); err != nil {
			out.FieldsErr = err.Error()
		}
	} else {
		out.FieldsErr = err.Error()
	}
	if nack, err := w.NACK(ctx, e); err != nil {
		out.NACKErr = err.Error()
	} else {
		out.NACK = string(nack)
	}
	return out
}

// ShowOne is Show for the exception id of the book, its state brought up
// to date first (a retry ACKed since it was read is resolved).
func (w *Workflow) ShowOne(ctx context.Context, id string) (Shown, error) {
	e, ok := w.book.Get(id)
	if !ok {
		return Shown{}, fmt.Errorf("no exception %s in namespace %s", id, w.names.NS)
	}
	if e.State.State == Retried {
		w.Resolve(ctx) // a retry ACKed since: say so
		e, _ = w.book.Get(id)
	}
	return w.Show(ctx, e), nil
}

// WriteText writes s as ste exceptions show prints it.
func (s Shown) WriteText(w io.Writer) error {
	e := s.Exception
	fmt.Fprintf(w, "exception %s: %s\n  %s\n", e.ID, e.Reason, e.Detail)
	fmt.Fprintf(w, "  sender %s, MsgId %s, received %s, inbound partition %d offset %d\n", orDash(e.Sender), orDash(e.MsgId),
		e.ReceivedAt, e.SourcePartition, e.SourceOffset)
	if e.RetryOf != "" {
		fmt.Fprintf(w, "  a retry of exception %s\n", e.RetryOf)
	}
	fmt.Fprintf(w, "state: %s", e.State.State)
	if e.State.By != "" {
		fmt.Fprintf(w, " by %s at %s", e.State.By, e.State.At.UTC().Format(time.RFC3339))
	}
	if e.State.ACK != "" {
		fmt.Fprintf(w, " (%s)", e.State.ACK)
	}
	if e.State.Note != "" {
		fmt.Fprintf(w, ", note: %s", e.State.Note)
	}
	fmt.Fprintln(w)
	for _, r := range e.State.Retries {
		fmt.Fprintf(w, "  retried by %s at %s → inbound partition %d offset %d\n", r.By, r.At.UTC().Format(time.RFC3339), r.Partition, r.Offset)
	}
	for _, id := range e.RetriedAs {
		fmt.Fprintf(w, "  rejected again as exception %s\n", id)
	}
	fmt.Fprintln(w, "message:")
	if s.FieldsErr != "" {
		payload := e.Payload
		if !s.read {
			payload = nil
		}
		fmt.Fprintf(w, "  (not readable as XML: %s)\n  %q\n", s.FieldsErr, truncate(string(payload), 400))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, fl := range s.Fields {
		fmt.Fprintf(tw, "  %s\t%s\n", fl.Path, fl.Value)
	}
	tw.Flush()
	var err error
	switch {
	case e.NACK == "":
		_, err = fmt.Fprintln(w, "NACK: none sent (the contract sends none for this code or an unknown sender)")
	case s.NACKErr != "":
		_, err = fmt.Fprintf(w, "NACK %s: %s\n", e.NACK, s.NACKErr)
	default:
		_, err = fmt.Fprintf(w, "NACK sent:\n  %s\n", s.NACK)
	}
	return err
}

// listWidth is the width the groups of ste exceptions list wrap at;
// maxListed how many groups of each are listed.
const (
	listWidth = 100
	maxListed = 12
)

// WriteList writes the exceptions list selected from a book of total in
// namespace ns as ste exceptions list prints it: counts by reason and by
// sender, then a table of at most limit rows.
func WriteList(w io.Writer, ns string, list []Exception, total, limit int) error {
	byReason, bySender := Groups(list)
	fmt.Fprintf(w, "%d exceptions in %s selected (of %d)\n", len(list), ns, total)
	if len(list) == 0 {
		return nil
	}
	// One group after another, wrapped under the title at listWidth, the
	// largest maxListed groups and how many more (the senders of a
	// realistic run are hundreds).
	groups := func(title string, gs []Group) {
		var parts []string
		for i, g := range gs {
			if i == maxListed {
				parts = append(parts, fmt.Sprintf("and %d more (--%s to filter)", len(gs)-i, title))
				break
			}
			parts = append(parts, fmt.Sprintf("%s %d (%d open)", g.Key, g.Total, g.By[string(Open)]))
		}
		head := fmt.Sprintf("  by %s: ", title)
		line, indent := head, strings.Repeat(" ", len(head))
		for i, p := range parts {
			if i < len(parts)-1 {
				p += ","
			}
			if len(line) > len(head) && len(line)+1+len(p) > listWidth {
				fmt.Fprintln(w, line)
				line = indent
			} else if len(line) > len(head) {
				line += " "
			}
			line += p
		}
		fmt.Fprintln(w, line)
	}
	groups("reason", byReason)
	groups("sender", bySender)
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tRECEIVED\tREASON\tSENDER\tMSGID\tSTATE\tBY")
	for i, e := range list {
		if i == limit {
			fmt.Fprintf(tw, "… %d more (--limit, or a narrower filter)\n", len(list)-i)
			break
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.ID, e.Received().UTC().Format("2006-01-02 15:04:05"), e.Reason,
			orDash(e.Sender), orDash(e.MsgId), e.State.State, orDash(e.State.By))
	}
	return tw.Flush()
}

// WriteChanges writes the results of a retry or an archive, and where the
// retries waited for stand, one line each.
func WriteChanges(w io.Writer, results []Result, outcomes []RetryOutcome) {
	for _, r := range results {
		fmt.Fprintf(w, "%s\t%s\t%s\n", r.ID, r.Outcome, r.Detail)
	}
	for _, o := range outcomes {
		switch {
		case o.State == Resolved:
			fmt.Fprintf(w, "%s\tresolved\t%s\n", o.ID, o.ACK)
		case o.RejectedAs != "":
			fmt.Fprintf(w, "%s\trejected again\tas exception %s (%s)\n", o.ID, o.RejectedAs, o.Reason)
		default:
			fmt.Fprintf(w, "%s\tno answer yet\tste exceptions show %s tells later\n", o.ID, o.ID)
		}
	}
}

// NotDone is an error when some results were refused or failed.
func NotDone(results []Result) error {
	bad := 0
	for _, r := range results {
		if r.Outcome == OutcomeRefused || r.Outcome == OutcomeFailed {
			bad++
		}
	}
	if bad > 0 {
		return fmt.Errorf("%d of %d not done (refused or failed; see above)", bad, len(results))
	}
	return nil
}

// WaitRetries follows the namespace's exceptions until every retry among
// results has an answer — an ACK (resolved) or a new exception — or wait
// passes, and says where each stands.
func (w *Workflow) WaitRetries(ctx context.Context, results []Result, wait time.Duration) []RetryOutcome {
	var ids []string
	for _, r := range results {
		if r.Outcome == OutcomeRetried {
			ids = append(ids, r.ID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	go w.book.Follow(ctx, w.conn, w.names.NS)
	for {
		w.Resolve(ctx)
		var out []RetryOutcome
		done := true
		for _, id := range ids {
			o := w.Outcome(id)
			done = done && o.Done()
			out = append(out, o)
		}
		if done || ctx.Err() != nil {
			return out
		}
		select {
		case <-ctx.Done():
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
