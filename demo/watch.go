package demo

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

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

// watcher folds the output topics into a ledger as they arrive, and keeps
// what the ledger does not: which trades the utility affirmed for an AUTO
// investment manager (the ACKs of its AFFs, ACK:<utility>:AUTO:<trade
// key>:…) and each participant's last allegement of each trade.
type watcher struct {
	cl      *kgo.Client
	ns      string
	utility string
	led     *ledger.Ledger
	ch      chan func()
	fresh   int                 // distinct outputs folded
	auto    map[string]bool     // trade keys the utility affirmed
	alg     map[[2]string]algAt // (trade key, receiver) -> its last ALG
}

// algAt is a receiver's last ALG of a trade: its count and Function.
type algAt struct {
	n   int
	new bool
}

func newWatcher(brokers kafkaconn.Config, ns, utility string) *watcher {
	n := topology.Names{NS: ns}
	cl, _ := topics.Client(brokers, kgo.ConsumeTopics(n.CLS(), n.Outbound(), n.Exceptions()),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	return &watcher{cl: cl, ns: ns, utility: utility, led: ledger.New(), ch: make(chan func()),
		auto: map[string]bool{}, alg: map[[2]string]algAt{}}
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
				w.fold(r.Value)
			}
		}
	}
}

// fold folds one output record.
func (w *watcher) fold(v []byte) {
	o, err := schemas.ParseOutput(v)
	if err != nil || !w.led.Fold(o) {
		return
	}
	w.fresh++
	switch o.MsgType {
	case "ACK":
		if key, ok := strings.CutPrefix(o.MsgId, "ACK:"+w.utility+":AUTO:"); ok {
			w.auto[strings.SplitN(key, ":", 2)[0]] = true
		}
	case "ALG":
		parts := strings.Split(o.MsgId, ":") // ALG:<key>:<n>:<receiver>
		if len(parts) != 4 {
			return
		}
		n, _ := strconv.Atoi(parts[2])
		k := [2]string{parts[1], parts[3]}
		if n > w.alg[k].n {
			w.alg[k] = algAt{n: n, new: o.Function == "NEW"}
		}
	}
}

// settled applies what arrived and returns how many distinct outputs have
// been folded: once the ACKs are all in, the demo waits until this stops
// growing (the utility's AFFs for AUTO investment managers, and what they
// cause, come after the ACK of the message that made their trade match).
func (w *watcher) settled() int {
	w.progress()
	return w.fresh
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
	var matched, mismatched, cancelled, auto int
	lifecycle := map[string]int{}
	for _, t := range w.led.Trades() {
		switch {
		case t.CLS != nil:
			matched++
		case t.Status == schemas.Mismatched.String():
			mismatched++
		case t.Status == schemas.Cancelled.String():
			cancelled++
		}
		lifecycle[t.Status]++
		if w.auto[t.TradeKey] && (t.Status == "AFFIRMED" || t.Status == "CHANGE_PENDING" || t.Status == "CANCEL_PENDING") {
			auto++
		}
	}
	owed := map[string]bool{}
	alleged := 0
	for k, a := range w.alg {
		if a.new {
			alleged++
			owed[k[1]] = true
		}
	}
	fmt.Fprintf(out, "\nResult (read back from the output topics; the generator's intent in brackets)\n")
	fmt.Fprintf(out, "  trades matched, one CLS each ........ %6d  [%d]\n", matched, man.Matched)
	fmt.Fprintf(out, "  trades mismatched (STATUS) .......... %6d  [%d]\n", mismatched, man.Mismatched)
	fmt.Fprintf(out, "  trades cancelled by both principals . %6d  [%d]\n", cancelled, man.Cancelled)
	fmt.Fprintf(out, "  trades incomplete (waiting) ......... %6d  [%d]\n", man.Trades-matched-mismatched-cancelled, man.Incomplete)
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
	locked := lifecycle["AFFIRMED"] + lifecycle["CHANGE_PENDING"] + lifecycle["CANCEL_PENDING"]
	fmt.Fprintf(out, "\nLifecycle after the match (messages.md §5a; docs/participants.md, \"After the match\")\n")
	fmt.Fprintf(out, "  affirmed: locked on an agreement .... %6d  [%d]\n", lifecycle["AFFIRMED"], man.Lifecycle["AFFIRMED"])
	fmt.Fprintf(out, "  auto-affirmed by the utility (AUTO) . %6d  [%d]  of the locked trades\n", auto, man.Auto)
	fmt.Fprintf(out, "  affirmation rejected (AFF REJECT) ... %6d  [%d]\n", lifecycle["AFFIRM_REJECTED"], man.Lifecycle["AFFIRM_REJECTED"])
	fmt.Fprintf(out, "  change pending (held, a proposal) ... %6d  [%d]\n", lifecycle["CHANGE_PENDING"], man.Lifecycle["CHANGE_PENDING"])
	fmt.Fprintf(out, "  cancel pending (CXL unanswered) ..... %6d  [%d]\n", lifecycle["CANCEL_PENDING"], man.Lifecycle["CANCEL_PENDING"])
	fmt.Fprintf(out, "  cancelled (CXL accepted by CXA) ..... %6d  [%d]\n", lifecycle["CANCELLED"], man.Lifecycle["CANCELLED"])
	fmt.Fprintf(out, "  matched, not affirmed yet ........... %6d\n", lifecycle["MATCHED"])
	fmt.Fprintf(out, "  amendments both principals affirmed .         [%d]  (a change held as CHANGE_PENDING until both did)\n", man.Amended)
	fmt.Fprintf(out, "  AFF, CXL, CXA, CXJ sent by principals  %d, %d, %d, %d\n", man.LifecycleMessages["AFF"], man.LifecycleMessages["CXL"],
		man.LifecycleMessages["CXA"], man.LifecycleMessages["CXJ"])
	fmt.Fprintf(out, "  allegements outstanding ............. %6d  to %d participants (the last ALG of a trade to them is a NEW)\n", alleged, len(owed))
	if matched != man.Matched || mismatched != man.Mismatched || total != man.Exceptions || cancelled != man.Cancelled ||
		locked != man.Locked || auto != man.Auto || lifecycle["AFFIRM_REJECTED"] != man.Lifecycle["AFFIRM_REJECTED"] {
		fmt.Fprintf(out, "  WARNING: the outcome differs from what the generator built\n")
	}
}
