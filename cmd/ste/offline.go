package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/ste-utility/ste/cli"
	"github.com/ste-utility/ste/processors/matching"
	"github.com/ste-utility/ste/processors/offline"
	"github.com/ste-utility/ste/processors/validation"
	"github.com/ste-utility/ste/schemas/date"
	"github.com/ste-utility/ste/schemas/msgset"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/workload"
)

func init() {
	register(cli.Command{Name: "refdata gen", Summary: "write a deterministic reference data set", Run: refdataGen})
	register(cli.Command{Name: "gen", Summary: "write a signed message set and its manifest", Run: gen})
	register(cli.Command{Name: "match", Summary: "run the full matching logic on a message set, no broker", Run: match})
}

func refdataGen(ctx context.Context, args []string) error {
	fs := cli.Flags("refdata gen", "--out DIR [--seed N] [--securities N] [--participants N] [--affirmation none|mixed]")
	out := fs.String("out", "", "directory to write currencies.csv, countries.csv, securities.csv, participants.csv (with the signers column and the adapters' signer rows), holidays.csv, tolerances.csv, affirmation.csv, markets.csv (required)")
	affirmation := fs.String("affirmation", "none", "affirmation.csv's rows: none (the contract's default: header only, every InvMgr MANUAL, a version 2 set behaves as in version 2) or mixed (a row per investment manager, about two in three AUTO: the lifecycle demo's)")
	seed := fs.Int64("seed", 1, "generator seed: the same seed gives the same files")
	secs := fs.Int("securities", 5000, "number of securities")
	parts := fs.Int("participants", 300, "number of participants")
	if err := fs.Read(args); err != nil {
		return err
	}
	if *out == "" {
		return cli.UsageError{Msg: "--out is required"}
	}
	if *secs < 100 || *parts < 50 {
		return cli.UsageError{Msg: "need at least 100 securities and 50 participants"}
	}
	choice, err := refdata.ParseAffirmationChoice(*affirmation)
	if err != nil {
		return cli.UsageError{Msg: "--affirmation: " + err.Error()}
	}
	set := refdata.Generate(refdata.GenOptions{Seed: *seed, Securities: *secs, Participants: *parts, Affirmation: choice})
	if err := set.WriteDir(*out); err != nil {
		return err
	}
	auto := 0
	for _, a := range set.Affirmations() {
		if a.Mode == refdata.AffirmAuto {
			auto++
		}
	}
	fmt.Printf("wrote %d currencies, %d countries, %d securities, %d participants (the utility and the adapters' signers %s and %s included), %d holidays, %d affirmation rows (%d AUTO) to %s\n",
		len(set.Currencies()), len(set.Countries()), len(set.Securities()), len(set.Participants()), refdata.FIXSignerBIC, refdata.ISOSignerBIC, len(set.Holidays()),
		len(set.Affirmations()), auto, *out)
	return nil
}

// loadRefdata reads a reference data directory, or the committed default set.
func loadRefdata(dir string) (*refdata.Set, error) {
	if dir == "" {
		return refdata.Default(), nil
	}
	return refdata.LoadDir(dir)
}

func gen(ctx context.Context, args []string) error {
	fs := cli.Flags("gen", "--trades N --out FILE [--seed N] [--refdata DIR] [--mix standard|realistic] [--created-day YYYY-MM-DD]")
	trades := fs.Int("trades", 0, "number of trades (required)")
	out := fs.String("out", "", "message set file to write; .gz or .zst compresses (required)")
	seed := fs.Uint64("seed", 1, "generator seed: the same seed and --created-day give the same file")
	refDir := fs.String("refdata", "", "reference data directory (default: the committed set)")
	mix := fs.String("mix", "standard", "standard (1 NOE + 2 ALC + 2 NPR + 2 SET per trade) or realistic")
	day := ""
	createdDay := func(v string) error { day = v; return nil }
	fs.Func("created-day", "the day of the set: every trade's TradeDate, and its messages' Created times run from 01:00 to 09:00 UTC of it (default: today, UTC, so that the set sits with live messages in one event-time clock; give a day for a fixed set)", createdDay)
	fs.Func("trade-date", "the same as --created-day", createdDay)
	plansOut := fs.Bool("plans", false, "also write FILE.trades.jsonl: each trade's key, scenario and built outcome")
	if err := fs.Read(args); err != nil {
		return err
	}
	if *trades <= 0 || *out == "" {
		return cli.UsageError{Msg: "--trades (positive) and --out are required"}
	}
	td := workload.Today()
	if day != "" {
		var err error
		if td, err = date.Parse(day); err != nil {
			return cli.UsageError{Msg: "--created-day: " + err.Error()}
		}
	}
	ref, err := loadRefdata(*refDir)
	if err != nil {
		return err
	}
	o := workload.Options{Trades: *trades, Seed: *seed, Mix: workload.Mix(*mix), Ref: ref, TradeDate: td}
	// On a terminal, a bar: trades signed and bytes written (ste drive's
	// style); a large set takes minutes and hundreds of MB.
	var bar *cli.ProgressBar
	if cli.IsTerminal(os.Stderr) {
		bar = cli.NewProgressBar(os.Stderr, int64(*trades), "trades")
		o.Progress = func(trades int, bytes int64) { bar.Set(int64(trades), cli.Bytes(bytes)+" written") }
	}
	man, err := workload.WriteFiles(o, *out, *plansOut)
	if bar != nil {
		bar.Done()
	}
	if err != nil {
		return err
	}
	if fi, err := os.Stat(*out); err == nil {
		fmt.Fprintf(os.Stderr, "wrote %d messages of %d trades to %s (%s)\n", man.Messages, man.Trades, *out, cli.Bytes(fi.Size()))
	}
	line, _ := json.Marshal(man)
	fmt.Println(string(line))
	return nil
}

func match(ctx context.Context, args []string) error {
	fs := cli.Flags("match", "--in FILE --out DIR [--refdata DIR] [--retention DUR]")
	in := fs.String("in", "", "message set file (.gz/.zst allowed) (required)")
	out := fs.String("out", "", "output directory for cls.xml, outbound.xml, exceptions.jsonl (required)")
	refDir := fs.String("refdata", "", "reference data directory (default: the committed set)")
	retention := cli.AddRetention(fs, "72h", "event-time retention of trades past their newest Created (e.g. 72h, 3d)")
	bic := fs.String("utility-bic", cli.EnvOr("STE_UTILITY_BIC", refdata.DefaultUtilityBIC), "the utility's own BIC")
	keyFile := fs.String("utility-key", os.Getenv("STE_UTILITY_KEY"), "the utility's Ed25519 signing key file (PEM PKCS#8 or base64); default: the demo key, with a warning")
	noVerify := fs.Bool("no-verify", false, "skip Ed25519 verification (benchmarking only)")
	fs.LogFlags()
	if err := fs.Read(args); err != nil {
		return err
	}
	if *in == "" || *out == "" {
		return cli.UsageError{Msg: "--in and --out are required"}
	}
	ret, err := retention.Get()
	if err != nil {
		return err
	}
	// Inputs first: a user error is one line, not preceded by the key warning.
	ref, err := loadRefdata(*refDir)
	if err != nil {
		return err
	}
	src, err := msgset.Open(*in)
	if err != nil {
		return err
	}
	defer src.Close()
	log := fs.Log
	signer, err := cli.UtilitySigner(*bic, *keyFile, log)
	if err != nil {
		return err
	}
	vopts := []validation.Option{validation.WithUtilityBIC(*bic)}
	if *noVerify {
		vopts = append(vopts, validation.WithoutSignatureVerification())
	}
	book := matching.NewBook(matching.WithRetention(ret), matching.WithConfig(offline.EngineConfig(*bic, ref)))
	sum, err := offline.RunToDir(ctx, src, *out, offline.Options{Validator: validation.New(ref, vopts...), Signer: signer, Book: book})
	if err != nil {
		return err
	}
	line, _ := json.Marshal(sum)
	fmt.Println(string(line))
	return nil
}
