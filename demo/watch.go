package demo

import (
	"context"
	"fmt"
	"io"
	"sort"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/ledger"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topology"
	"github.com/ste-utility/ste/workload"
)

// reasonHelp explains each rejection code to a new user.
var reasonHelp = map[string]string{
	"TOO_LARGE":             "record over 64 KiB",
	"MALFORMED":             "not well-formed XML",
	"SCHEMA":                "a field missing or of the wrong type",
	"UNKNOWN_SENDER":        "sender not an active participant",
	"SIGNATURE":             "signature does not verify",
	"NOT_AUTHORISED":        "sender may not send this message type",
	"UNKNOWN_PARTY":         "broker, investment manager, custodian or CSD unknown",
	"UNKNOWN_SECURITY":      "ISIN unknown, suspended or bad check digit",
	"UNKNOWN_CURRENCY":      "currency not in reference data",
	"BAD_DATE":              "settlement on a holiday or weekend, or Created in the future",
	"BAD_AMOUNT":            "amounts that do not add up",
	"BAD_REFERENCE":         "an affirmation naming no Broker or InvMgr message, a stranger's, or amending its own digest",
	"CONFLICTING_DUPLICATE": "MsgId reused with other content",
	"KEY_COLLISION":         "key fields hashing to another trade's key",
}

// watcher folds the output topics into a ledger as they arrive.
type watcher struct {
	cl  *kgo.Client
	ns  string
	led *ledger.Ledger
	ch  chan func()
}

func newWatcher(brokers kafkaconn.Config, ns string) *watcher {
	n := topology.Names{NS: ns}
	cl, _ := topics.Client(brokers, kgo.ConsumeTopics(n.CLS(), n.Outbound(), n.Exceptions()),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	return &watcher{cl: cl, ns: ns, led: ledger.New(), ch: make(chan func())}
}

func (w *watcher) close() { w.cl.Close() }

func (w *watcher) run(ctx context.Context) {
	exc := topology.Names{NS: w.ns}.Exceptions()
	seen := map[string]bool{}
	for {
		fs := w.cl.PollFetches(ctx)
		if ctx.Err() != nil || w.cl == nil {
			return
		}
		recs := fs.Records()
		w.ch <- func() {
			for _, r := range recs {
				if r.Topic == exc {
					id := fmt.Sprintf("%d-%d", r.Partition, r.Offset)
					if !seen[id] {
						seen[id] = true
						w.led.AddException(r.Value)
					}
					continue
				}
				w.led.Add(r.Value)
			}
		}
	}
}

// progress applies what arrived and returns distinct ACKs, exceptions and CLS NEW.
func (w *watcher) progress() (acks, excs, cls int) {
	for {
		select {
		case f := <-w.ch:
			f()
			continue
		default:
		}
		break
	}
	n := 0
	for _, c := range w.led.Reasons {
		n += c
	}
	matched := 0
	for _, t := range w.led.Trades() {
		if t.CLS != nil {
			matched++
		}
	}
	return w.led.Count["ACK NEW"], n, matched
}

func (w *watcher) report(out io.Writer, man *workload.Manifest) {
	var matched, mismatched int
	for _, t := range w.led.Trades() {
		switch {
		case t.CLS != nil:
			matched++
		case t.Status == schemas.Mismatched.String():
			mismatched++
		}
	}
	fmt.Fprintf(out, "\nResult (read back from the output topics; the generator's intent in brackets)\n")
	fmt.Fprintf(out, "  trades matched, one CLS each ........ %6d  [%d]\n", matched, man.Matched)
	fmt.Fprintf(out, "  trades mismatched (STATUS) .......... %6d  [%d]\n", mismatched, man.Mismatched)
	fmt.Fprintf(out, "  trades incomplete (waiting) ......... %6d  [%d]\n", man.Trades-matched-mismatched, man.Incomplete)
	fmt.Fprintf(out, "  messages accepted (ACK) ............. %6d\n", w.led.Count["ACK NEW"])
	fmt.Fprintf(out, "  exact duplicates (answered again) ... %6d  [%d]\n", man.Duplicates, man.Duplicates)
	fmt.Fprintf(out, "  CLS corrections (CANCEL + new version) %5d\n", w.led.Count["CLS CANCEL"])
	total := 0
	var codes []string
	for c, n := range w.led.Reasons {
		codes = append(codes, c)
		total += n
	}
	sort.Strings(codes)
	fmt.Fprintf(out, "  messages rejected to %s.exceptions: %d  [%d]\n", w.ns, total, man.Exceptions)
	for _, c := range codes {
		fmt.Fprintf(out, "    %-22s %5d  %s\n", c, w.led.Reasons[c], reasonHelp[c])
	}
	if matched != man.Matched || mismatched != man.Mismatched || total != man.Exceptions {
		fmt.Fprintf(out, "  WARNING: the outcome differs from what the generator built\n")
	}
}
