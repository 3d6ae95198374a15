package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/ste-utility/ste/processors/matching"
	"github.com/ste-utility/ste/processors/offline"
	"github.com/ste-utility/ste/processors/validation"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/date"
	"github.com/ste-utility/ste/schemas/msgset"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/when"
	"github.com/ste-utility/ste/workload"
)

func init() {
	register(command{"refdata gen", "write a deterministic reference data set", refdataGen})
	register(command{"gen", "write a signed message set and its manifest", gen})
	register(command{"match", "run the full matching logic on a message set, no broker", match})
}

func refdataGen(ctx context.Context, args []string) error {
	fs := flags("refdata gen", "--out DIR [--seed N] [--securities N] [--participants N]")
	out := fs.String("out", "", "directory to write currencies.csv, countries.csv, securities.csv, participants.csv, holidays.csv, markets.csv (required)")
	seed := fs.Int64("seed", 1, "generator seed: the same seed gives the same files")
	secs := fs.Int("securities", 5000, "number of securities")
	parts := fs.Int("participants", 300, "number of participants")
	if err := fs.parse(args); err != nil {
		return err
	}
	if *out == "" {
		return usageError{"--out is required"}
	}
	if *secs < 100 || *parts < 50 {
		return usageError{"need at least 100 securities and 50 participants"}
	}
	set := refdata.Generate(refdata.GenOptions{Seed: *seed, Securities: *secs, Participants: *parts})
	if err := set.WriteDir(*out); err != nil {
		return err
	}
	fmt.Printf("wrote %d currencies, %d countries, %d securities, %d participants, %d holidays to %s\n",
		len(set.Currencies()), len(set.Countries()), len(set.Securities()), len(set.Participants()), len(set.Holidays()), *out)
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
	fs := flags("gen", "--trades N --out FILE [--seed N] [--refdata DIR] [--mix standard|realistic]")
	trades := fs.Int("trades", 0, "number of trades (required)")
	out := fs.String("out", "", "message set file to write; .gz or .zst compresses (required)")
	seed := fs.Uint64("seed", 1, "generator seed: the same seed gives the same file")
	refDir := fs.String("refdata", "", "reference data directory (default: the committed set)")
	mix := fs.String("mix", "standard", "standard (1 NOE + 2 ALC + 2 NPR + 2 SET per trade) or realistic")
	tradeDate := fs.String("trade-date", "2026-11-02", "TradeDate of every trade; Created times run through that day")
	plansOut := fs.Bool("plans", false, "also write FILE.trades.jsonl: each trade's key, scenario and built outcome")
	if err := fs.parse(args); err != nil {
		return err
	}
	if *trades <= 0 || *out == "" {
		return usageError{"--trades (positive) and --out are required"}
	}
	td, err := date.Parse(*tradeDate)
	if err != nil {
		return usageError{"--trade-date: " + err.Error()}
	}
	ref, err := loadRefdata(*refDir)
	if err != nil {
		return err
	}
	w, err := msgset.Create(*out)
	if err != nil {
		return err
	}
	var plans func(workload.TradePlan)
	var pf *os.File
	var pw *bufio.Writer
	if *plansOut {
		if pf, err = os.Create(*out + ".trades.jsonl"); err != nil {
			return err
		}
		defer pf.Close()
		pw = bufio.NewWriter(pf)
		enc := json.NewEncoder(pw)
		plans = func(p workload.TradePlan) { enc.Encode(p) }
	}
	man, err := workload.Generate(workload.Options{Trades: *trades, Seed: *seed, Mix: workload.Mix(*mix), Ref: ref, TradeDate: td},
		w.Write, plans)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if pw != nil {
		if err := pw.Flush(); err != nil {
			return err
		}
	}
	if err := os.WriteFile(*out+".manifest.json", man.Marshal(), 0o644); err != nil {
		return err
	}
	line, _ := json.Marshal(man)
	fmt.Println(string(line))
	return nil
}

// minRetention is the shortest --retention taken without
// --allow-short-retention: shorter ones expire state (or topic records)
// almost at once, which is a typo far more often than an intent.
const minRetention = time.Hour

// retentionFlag is --retention with its guard, --allow-short-retention; every
// command that takes a retention registers it through here.
type retentionFlag struct {
	value      *string
	allowShort *bool
}

func addRetentionFlag(fs *flagSet, def, usage string) retentionFlag {
	return retentionFlag{
		value:      fs.String("retention", def, usage),
		allowShort: fs.Bool("allow-short-retention", false, "accept a --retention under 1h (tests and experiments)"),
	}
}

// get parses the flag; an empty value (a flag with no default) is 0.
func (r retentionFlag) get() (time.Duration, error) {
	if *r.value == "" {
		return 0, nil
	}
	d, err := when.Duration(*r.value)
	if err != nil {
		return 0, usageError{"--retention: " + err.Error()}
	}
	if d <= 0 {
		return 0, usageError{"--retention " + *r.value + ": must be positive"}
	}
	if d < minRetention && !*r.allowShort {
		return 0, usageError{fmt.Sprintf("--retention %s is under %v: it would expire nearly everything at once; add --allow-short-retention if that is meant", *r.value, minRetention)}
	}
	return d, nil
}

// utilitySigner is the signing-key policy (refdata.UtilitySigner) behind
// the check of --utility-bic.
func utilitySigner(bic, keyFile string, log *slog.Logger) (*schemas.Signer, error) {
	if !schemas.IsBIC(bic) {
		return nil, usageError{fmt.Sprintf("--utility-bic %q is not a BIC", bic)}
	}
	return refdata.UtilitySigner(bic, keyFile, log)
}

func match(ctx context.Context, args []string) error {
	fs := flags("match", "--in FILE --out DIR [--refdata DIR] [--retention DUR]")
	in := fs.String("in", "", "message set file (.gz/.zst allowed) (required)")
	out := fs.String("out", "", "output directory for cls.xml, outbound.xml, exceptions.jsonl (required)")
	refDir := fs.String("refdata", "", "reference data directory (default: the committed set)")
	retention := addRetentionFlag(fs, "72h", "event-time retention of trades past their newest Created (e.g. 72h, 3d)")
	bic := fs.String("utility-bic", envOr("STE_UTILITY_BIC", refdata.DefaultUtilityBIC), "the utility's own BIC")
	keyFile := fs.String("utility-key", os.Getenv("STE_UTILITY_KEY"), "the utility's Ed25519 signing key file (PEM PKCS#8 or base64); default: the demo key, with a warning")
	noVerify := fs.Bool("no-verify", false, "skip Ed25519 verification (benchmarking only)")
	fs.logFlags()
	if err := fs.parse(args); err != nil {
		return err
	}
	if *in == "" || *out == "" {
		return usageError{"--in and --out are required"}
	}
	ret, err := retention.get()
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
	log := fs.log
	signer, err := utilitySigner(*bic, *keyFile, log)
	if err != nil {
		return err
	}
	var vopts []validation.Option
	if *noVerify {
		vopts = append(vopts, validation.WithoutSignatureVerification())
	}
	book := matching.NewBook(matching.WithRetention(ret), matching.WithConfig(matching.Config{UtilityBIC: *bic, Tolerances: ref}))
	sum, err := offline.RunToDir(ctx, src, *out, offline.Options{Validator: validation.New(ref, vopts...), Signer: signer, Book: book})
	if err != nil {
		return err
	}
	line, _ := json.Marshal(sum)
	fmt.Println(string(line))
	return nil
}
