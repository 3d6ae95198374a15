package main

// ste exceptions list|show|retry|archive: the exceptions workflow
// (exceptions package; docs/spec/messages.md §7) from the command line, with the
// console's filters; ste exceptions held: the messages accepted but held out
// of force (contract version 3).

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/ste-utility/ste/cli"
	"github.com/ste-utility/ste/exceptions"
	"github.com/ste-utility/ste/instance/lookup"
)

func init() {
	register(cli.Command{Name: "exceptions list", Summary: "list a namespace's exceptions with their states, by reason and sender, filtered", Run: exceptionsList})
	register(cli.Command{Name: "exceptions show", Summary: "one exception: detail, the message's fields, the NACK sent, state and retries", Run: exceptionsShow})
	register(cli.Command{Name: "exceptions retry", Summary: "retry exceptions once their cause is fixed (messages.md §7): named ones or a filter's", Run: exceptionsRetry})
	register(cli.Command{Name: "exceptions archive", Summary: "close exceptions that need no retry, with a note", Run: exceptionsArchive})
	register(cli.Command{Name: "exceptions held", Summary: "messages accepted but held out of force: changes pending on locked trades (with the proposal), parked SETs, unanswered cancel requests", Run: exceptionsHeld})
}

// exceptionsHeld lists held messages (exceptions.FindHeld): those of the
// trades named, by trade key or TradeRef, or of every open trade the match
// instances' at-risk indexes hold.
func exceptionsHeld(ctx context.Context, args []string) error {
	fs := cli.Flags("exceptions held", "[TRADE...] [--json] [--brokers B] [--namespace NS]\n\nTRADE: a trade key (16 hex digits) or a TradeRef; without one, the open trades of every match instance")
	kafka, ns, secretOf := cli.KafkaFlags(fs), cli.Namespace(fs), cli.SecretFlag(fs)
	asJSON := fs.Bool("json", false, "print JSON instead of text")
	trades, err := fs.ReadArgs(args)
	if err != nil {
		return err
	}
	k, err := cli.Reachable(ctx, kafka)
	if err != nil {
		return err
	}
	secret, err := secretOf()
	if err != nil {
		return err
	}
	c, err := lookup.New(lookup.Options{Kafka: k, Namespace: *ns, Token: secret.Token(lookup.TokenPurpose), Secret: secret,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		return err
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	ans, err := exceptions.FindHeld(ctx, c, trades)
	if err != nil {
		return err
	}
	if *asJSON {
		return cli.PrintJSON(ans)
	}
	return exceptions.WriteHeld(cli.Untrusted, *ns, ans, len(trades) > 0)
}

func exceptionsList(ctx context.Context, args []string) error {
	f := cli.NewExcFlags("exceptions list", cli.ExcFilterSynopsis+" [--limit N]", false)
	limit := f.FS.Int("limit", 50, "rows of the table at most (--json prints every one)")
	ids, flt, err := f.Parse(args)
	if err != nil {
		return err
	}
	if len(ids) > 0 {
		return cli.UsageError{Msg: fmt.Sprintf("unexpected argument %q (ste exceptions show ID for one)", ids[0])}
	}
	book, _, err := f.Load(ctx)
	if err != nil {
		return err
	}
	list := book.List(flt)
	if *f.JSON {
		if list == nil {
			list = []exceptions.Exception{}
		}
		return cli.PrintJSON(list)
	}
	return exceptions.WriteList(cli.Untrusted, *f.NS, list, book.Len(), *limit)
}

func exceptionsShow(ctx context.Context, args []string) error {
	f := cli.NewExcFlags("exceptions show", "ID [--json] [--brokers B] [--namespace NS]", false)
	ids, _, err := f.Parse(args)
	if err != nil {
		return err
	}
	if len(ids) != 1 {
		return cli.UsageError{Msg: "name one exception id (ste exceptions list shows them)"}
	}
	book, k, err := f.Load(ctx)
	if err != nil {
		return err
	}
	w, err := exceptions.NewWorkflow(ctx, k, *f.NS, book)
	if err != nil {
		return err
	}
	defer w.Close()
	out, err := w.ShowOne(ctx, ids[0])
	if err != nil {
		return err
	}
	if *f.JSON {
		return cli.PrintJSON(out)
	}
	return out.WriteText(cli.Untrusted)
}

func exceptionsRetry(ctx context.Context, args []string) error {
	f := cli.NewExcFlags("exceptions retry", "[ID...] "+cli.ExcFilterSynopsis+" [--force] [--dry-run] [--operator NAME] [--wait DUR]", true)
	f.Force = f.FS.Bool("force", false, "retry even exceptions already retried, resolved or archived")
	f.Wait = f.FS.Duration("wait", 30*time.Second, "wait this long for each retry's answer (an ACK, or a new exception); 0: do not wait")
	return f.Change(ctx, args, true)
}

func exceptionsArchive(ctx context.Context, args []string) error {
	f := cli.NewExcFlags("exceptions archive", "[ID...] "+cli.ExcFilterSynopsis+" [--note TEXT] [--dry-run] [--operator NAME]", true)
	f.Note = f.FS.String("note", "", "why no retry is needed, kept with the state")
	return f.Change(ctx, args, false)
}
