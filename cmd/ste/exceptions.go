package main

// ste exceptions list|show|retry|archive: the exceptions workflow
// (exceptions package; docs/spec/messages.md §7) from the command line, with the
// console's filters.

import (
	"context"
	"fmt"
	"time"

	"github.com/ste-utility/ste/cli"
	"github.com/ste-utility/ste/exceptions"
)

func init() {
	register(cli.Command{Name: "exceptions list", Summary: "list a namespace's exceptions with their states, by reason and sender, filtered", Run: exceptionsList})
	register(cli.Command{Name: "exceptions show", Summary: "one exception: detail, the message's fields, the NACK sent, state and retries", Run: exceptionsShow})
	register(cli.Command{Name: "exceptions retry", Summary: "retry exceptions once their cause is fixed (messages.md §7): named ones or a filter's", Run: exceptionsRetry})
	register(cli.Command{Name: "exceptions archive", Summary: "close exceptions that need no retry, with a note", Run: exceptionsArchive})
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
