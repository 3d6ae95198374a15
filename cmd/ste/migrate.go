package main

// ste migrate: scale-out into a namespace with more partitions
// (docs/scale-out.md).

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/ste-utility/ste/cli"
	"github.com/ste-utility/ste/instance/registry"
	"github.com/ste-utility/ste/migrate"
)

func init() {
	register(cli.Command{Name: "migrate", Summary: "carry a stopped namespace's state into a new one with N partitions (scale-out); --follow bridges its inbound", Run: migrateCmd})
}

func migrateCmd(ctx context.Context, args []string) error {
	fs := cli.Flags("migrate", "--from NS --to NS2 --partitions N [--follow] [--rate R] [--brokers B] [--json]\n\n"+
		"NS's processors must be stopped (no live instance, no group member) with nothing in flight between\n"+
		"their stages; inbound records that arrive after they stopped are carried to NS2. Running it again after\n"+
		"success changes nothing; a run that was interrupted is finished by running it again. With --follow it\n"+
		"then copies records that still arrive on NS's inbound to NS2's until interrupted (drivers not yet switched).")
	kafka := cli.KafkaFlags(fs)
	from := fs.String("from", "", "the namespace migrated, its processors stopped (required)")
	to := fs.String("to", "", "the new namespace (required)")
	parts := fs.Int("partitions", 0, "partitions of the new namespace (required)")
	follow := fs.Bool("follow", false, "after the migration, bridge NS's inbound to NS2's until interrupted")
	rate := fs.Float64("rate", 0, "copy at most this many records per second (0: as fast as the cluster takes them)")
	asJSON := fs.Bool("json", false, "print the result as one JSON object")
	secret := cli.SecretFlag(fs)
	if err := fs.Read(args); err != nil {
		return err
	}
	if *from == "" || *to == "" || *parts == 0 {
		return cli.UsageError{Msg: "--from, --to and --partitions are required"}
	}
	for _, ns := range []string{*from, *to} {
		if err := cli.ValidNamespace(ns); err != nil {
			return err
		}
	}
	if *parts < 1 || *rate < 0 {
		return cli.UsageError{Msg: "--partitions must be positive and --rate not negative"}
	}
	k, err := cli.Reachable(ctx, kafka)
	if err != nil {
		return err
	}
	sec, err := secret()
	if err != nil {
		return err
	}
	say := func(format string, a ...any) { fmt.Fprintf(os.Stderr, format+"\n", a...) }
	o := migrate.Options{Secret: sec, Dial: cli.Dialer(k), From: *from, To: *to, Partitions: int32(*parts), Rate: *rate,
		Instances: func(ctx context.Context, ns string) ([]registry.Entry, error) {
			return registry.ListProven(ctx, k, ns, sec)
		},
		Log: func(format string, a ...any) { say("ste migrate: "+format, a...) }}
	if cli.IsTerminal(os.Stderr) {
		o.Progress = func(step string, n int64) { fmt.Fprintf(os.Stderr, "\r%s: %d written   ", step, n) }
	}
	res, err := migrate.Migrate(ctx, o)
	if o.Progress != nil {
		fmt.Fprint(os.Stderr, "\r\033[K")
	}
	if err != nil {
		return err
	}
	if *asJSON {
		if err := json.NewEncoder(os.Stdout).Encode(res); err != nil {
			return err
		}
	} else if res.AlreadyDone {
		fmt.Printf("%s was migrated into %s (%d partitions) at %s: nothing to do\n", res.From, res.To, res.Partitions,
			res.Origin.Completed.Format(time.RFC3339))
	} else {
		for _, id := range res.Removed {
			fmt.Printf("removed the static member %s of an instance that no longer runs\n", id)
		}
		fmt.Printf("migrated %s into %s (%d partitions) in %.1fs, with %d inbound records that arrived after %s stopped: start the processors of %s, switch drivers and output consumers to it\n",
			res.From, res.To, res.Partitions, res.Seconds, res.Bridged, res.From, res.To)
	}
	if !*follow {
		return nil
	}
	say("ste migrate: following %s.inbound into %s.inbound until interrupted (group %s)", *from, *to, migrate.FollowGroup(*from, *to))
	var last int64
	err = migrate.Follow(ctx, o, func(n int64) {
		last = n
		if cli.IsTerminal(os.Stderr) {
			fmt.Fprintf(os.Stderr, "\r%d records bridged   ", n)
		}
	})
	say("\nste migrate: %d records bridged; run it again with --follow to resume", last)
	return err
}
