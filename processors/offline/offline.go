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
)

// Summary is the one-line JSON `ste match` prints. The first five fields are
// the contract's; the rest say where every record went.
type Summary struct {
	Messages   int            `json:"messages"`   // records read
	CLS        int            `json:"cls"`        // trades matched at the end
	Mismatched int            `json:"mismatched"` // trades mismatched at the end
	Exceptions int            `json:"exceptions"` // records rejected
	Seconds    float64        `json:"seconds"`
	Accepted   int            `json:"accepted"`   // messages accepted into force or remembered
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
	Outbound   func([]byte) error // one signed ACK, NACK or STATUS
	Exceptions func([]byte) error // one exception JSON object
}

// Options configure Run.
type Options struct {
	Validator *validation.Validator
	Signer    *schemas.Signer
	Book      *matching.Book // the matching state; when nil, a new Book matching with the Validator's tolerances
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
		book = matching.NewBook(matching.WithConfig(matching.Config{Tolerances: opts.Validator.Refdata()}))
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
		for b := range reorder(inspected) {
			now := opts.Now()
			for i := range b.verdicts {
				vd := &b.verdicts[i]
				sum.Messages++
				id, ok := vd.Identity()
				var known matching.Digest
				var isKnown bool
				if ok {
					known, isKnown = book.Known(id)
				}
				switch vd.Decide(known, isKnown) {
				case validation.Duplicate:
					sum.Duplicates++
					b.outs = append(b.outs, book.Duplicate(id)...)
				case validation.Accept:
					sum.Accepted++
					b.outs = append(b.outs, book.Accept(vd.Inbound())...)
				default:
					sum.Exceptions++
					sum.Rejected[vd.Rej.Reason.String()]++
					exc, nack := vd.Rejected("line-"+strconv.Itoa(b.lines[i]), b.recs[i], -1, -1, now)
					b.excs = append(b.excs, exc)
					if nack != nil {
						b.outs = append(b.outs, *nack)
					}
				}
			}
			b.verdicts, b.recs, b.sizes = nil, nil, nil // the book keeps what it needs
			decided <- b
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
	book.Trades(func(*matching.Trade) { sum.Trades++ })
	sum.Seconds = time.Since(start).Seconds()
	return sum, book, ctx.Err()
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
