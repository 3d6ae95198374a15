// Package offline runs the whole matching logic in one process over a message
// set, with no broker: `ste match`. Records are processed in file order; the
// stateless work (decoding, validation, signature checks) and the signing of
// outputs run in parallel around one sequential matching stage, because
// cryptography is most of the cost and the order of matching is the contract.
package offline

import (
	"context"
	"errors"
	"io"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/ste-utility/ste/processors/matching"
	"github.com/ste-utility/ste/processors/validation"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/msgset"
	"github.com/ste-utility/ste/schemas/refdata"
)

// Summary is the one-line JSON `ste match` prints. The first seven fields are
// the contract's; the rest say where every record went.
type Summary struct {
	Messages   int            `json:"messages"`   // records read
	CLS        int            `json:"cls"`        // trades matched at the end
	Mismatched int            `json:"mismatched"` // trades mismatched at the end
	Locked     int            `json:"locked"`     // trades held at the end that are locked (affirmed, not cancelled)
	Cancelled  int            `json:"cancelled"`  // trades held at the end that are cancelled
	Exceptions int            `json:"exceptions"` // records rejected (the utility's AFFs included)
	Seconds    float64        `json:"seconds"`
	Accepted   int            `json:"accepted"`   // messages accepted into force or remembered (the utility's AFFs not included)
	Auto       int            `json:"auto"`       // the utility's AFFs processed (AUTO investment managers; not in messages)
	Duplicates int            `json:"duplicates"` // exact duplicates
	Rejected   map[string]int `json:"rejected"`   // exceptions by reason
	Trades     int            `json:"trades"`     // trades held at the end
	Outputs    struct {
		CLS      int `json:"cls"`
		Outbound int `json:"outbound"`
	} `json:"outputs"`
}

// Sinks receive the outputs in order.
type Sinks struct {
	CLS        func([]byte) error // one signed CLS XML message
	Outbound   func([]byte) error // one signed ACK, NACK, STATUS, CNF, BLK or ALG
	Exceptions func([]byte) error // one exception JSON object
}

// Options configure Run.
type Options struct {
	Validator *validation.Validator
	Signer    *schemas.Signer
	Book      *matching.Book // the matching state; when nil, a new Book matching with the Validator's reference data
	Workers   int            // parallel decoding and signing; GOMAXPROCS when 0
	Now       func() time.Time
}

const batchSize = 256

type batch struct {
	seq      int
	recs     [][]byte
	lines    []int
	sizes    []int64 // whole length of each record; recs hold at most MaxRecord+1 bytes
	verdicts []validation.Verdict
	outs     []schemas.Output
	excs     []*schemas.Exception
	cls      [][]byte
	outbound [][]byte
	excJSON  [][]byte
}

// Run reads src to its end and returns the summary and the final book.
func Run(ctx context.Context, src *msgset.Reader, sinks Sinks, opts Options) (Summary, *matching.Book, error) {
	start := time.Now()
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	book := opts.Book
	if book == nil {
		book = matching.NewBook(matching.WithConfig(EngineConfig(opts.Signer.BIC, opts.Validator.Refdata())))
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	var readErr error
	jobs := make(chan *batch, opts.Workers*2)
	// Past the contract's limit only the first 64 KiB of a record are used
	// (the exception's payload), so no more is held: a set of huge lines
	// stays within memory.
	src.LimitLines(schemas.MaxRecord + 1)
	go func() { // reader
		defer close(jobs)
		seq := 0
		b := &batch{seq: seq}
		for {
			line, n, err := src.Next()
			if err != nil {
				if !errors.Is(err, io.EOF) {
					readErr = err
				}
				break
			}
			b.recs = append(b.recs, append([]byte(nil), line...))
			b.lines = append(b.lines, n)
			b.sizes = append(b.sizes, src.Size())
			if len(b.recs) == batchSize {
				select {
				case jobs <- b:
				case <-ctx.Done():
					return
				}
				seq++
				b = &batch{seq: seq}
			}
		}
		if len(b.recs) > 0 {
			select {
			case jobs <- b:
			case <-ctx.Done():
			}
		}
	}()

	inspected := make(chan *batch, opts.Workers*2)
	var wg sync.WaitGroup
	for i := 0; i < opts.Workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var dec schemas.Decoder
			for b := range jobs {
				b.verdicts = make([]validation.Verdict, len(b.recs))
				for i, rec := range b.recs {
					b.verdicts[i] = opts.Validator.Inspect(&dec, rec)
					if rej := b.verdicts[i].Rej; b.sizes[i] > int64(len(rec)) && rej != nil {
						rej.Detail = schemas.TooLargeDetail(b.sizes[i]) // the whole record's size, not the part kept
					}
				}
				inspected <- b
			}
		}()
	}
	go func() { wg.Wait(); close(inspected) }()

	var sum Summary
	sum.Rejected = map[string]int{}
	decided := make(chan *batch, opts.Workers*2)
	go func() { // the sequential matching stage, in file order
		defer close(decided)
		var dec schemas.Decoder // for the utility's AFFs
		next := 0
		for b := range reorder(inspected) {
			now := opts.Now()
			for i := range b.verdicts {
				sum.Messages++
				line := "line-" + strconv.Itoa(b.lines[i])
				decide(&b.verdicts[i], b.recs[i], line, false, now, book, &sum, b)
				// The utility's AFFs for the trades this line made match
				// (AUTO investment managers, messages.md §5a step 4):
				// processed right after it, before the next line.
				for _, d := range book.AutoAffirmations() {
					rec := d.AppendSigned(nil, opts.Signer.Key)
					vd := opts.Validator.InspectAt(&dec, rec, now)
					sum.Auto++
					decide(&vd, rec, line+"-auto", true, now, book, &sum, b)
				}
			}
			b.verdicts, b.recs, b.sizes = nil, nil, nil // the book keeps what it needs
			next = b.seq + 1
			decided <- b
		}
		// Allegements once after the last line (the allegement delay of
		// messages.md §5a), written after every other record.
		if out := book.Allege(); len(out) > 0 {
			decided <- &batch{seq: next, outs: out}
		}
	}()

	signed := make(chan *batch, opts.Workers*2)
	var swg sync.WaitGroup
	for i := 0; i < opts.Workers; i++ {
		swg.Add(1)
		go func() {
			defer swg.Done()
			for b := range decided {
				encs := opts.Signer.EncodeAll(b.outs) // one field inversion for the batch
				for i := range b.outs {
					if b.outs[i].IsCLS() {
						b.cls = append(b.cls, encs[i])
					} else {
						b.outbound = append(b.outbound, encs[i])
					}
				}
				for _, e := range b.excs {
					b.excJSON = append(b.excJSON, e.Marshal())
				}
				b.outs, b.excs = nil, nil
				signed <- b
			}
		}()
	}
	go func() { swg.Wait(); close(signed) }()

	var writeErr error
	for b := range reorder(signed) {
		if writeErr != nil {
			continue // drain
		}
		sum.Outputs.CLS += len(b.cls)
		sum.Outputs.Outbound += len(b.outbound)
		writeErr = writeAll(sinks.CLS, b.cls)
		if writeErr == nil {
			writeErr = writeAll(sinks.Outbound, b.outbound)
		}
		if writeErr == nil {
			writeErr = writeAll(sinks.Exceptions, b.excJSON)
		}
		if writeErr != nil {
			cancel()
		}
	}
	if readErr != nil {
		return sum, book, readErr
	}
	if writeErr != nil {
		return sum, book, writeErr
	}
	sum.CLS, sum.Mismatched = book.Counts()
	sum.Locked, sum.Cancelled = book.Lifecycle()
	book.Trades(func(*matching.Trade) { sum.Trades++ })
	sum.Seconds = time.Since(start).Seconds()
	return sum, book, ctx.Err()
}

// decide ends one record: an exact duplicate (re-emitted), accepted into its
// trade, or rejected — CONFLICTING_DUPLICATE and KEY_COLLISION, the two rules
// that look at accepted messages, decided here against the book.
// auto: the utility's own AFF, not counted in accepted (nor in messages).
func decide(vd *validation.Verdict, rec []byte, id string, auto bool, now time.Time, book *matching.Book, sum *Summary, b *batch) {
	idn, ok := vd.Identity()
	var known matching.Digest
	var isKnown bool
	if ok {
		known, isKnown = book.Known(idn)
	}
	d := vd.Decide(known, isKnown)
	if d == validation.Accept {
		if rej := book.KeyCollision(vd.Msg); rej != nil {
			vd.Rej, d = rej, validation.Reject
		}
	}
	switch d {
	case validation.Duplicate:
		sum.Duplicates++
		b.outs = append(b.outs, book.Duplicate(idn)...)
	case validation.Accept:
		if !auto {
			sum.Accepted++
		}
		b.outs = append(b.outs, book.Accept(vd.Inbound())...)
	default:
		sum.Exceptions++
		sum.Rejected[vd.Rej.Reason.String()]++
		exc, nack := vd.Rejected(id, rec, -1, -1, now)
		b.excs = append(b.excs, exc)
		if nack != nil {
			b.outs = append(b.outs, *nack)
		}
	}
}

// EngineConfig is the matching configuration of `ste match`: the utility's
// BIC, and the reference data's tolerances and affirmation modes
// (affirmation.csv).
func EngineConfig(utility string, ref *refdata.Set) matching.Config {
	c := matching.Config{UtilityBIC: utility}
	if ref != nil {
		c.Tolerances, c.Affirmation = ref, ref
	}
	return c
}

func writeAll(sink func([]byte) error, recs [][]byte) error {
	if sink == nil {
		return nil
	}
	for _, r := range recs {
		if err := sink(r); err != nil {
			return err
		}
	}
	return nil
}

// reorder restores batch order after a parallel stage.
func reorder(in <-chan *batch) <-chan *batch {
	out := make(chan *batch, 4)
	go func() {
		defer close(out)
		next := 0
		pending := map[int]*batch{}
		for b := range in {
			pending[b.seq] = b
			for {
				nb, ok := pending[next]
				if !ok {
					break
				}
				delete(pending, next)
				out <- nb
				next++
			}
		}
	}()
	return out
}
