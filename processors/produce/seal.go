package produce

import (
	"runtime"
	"slices"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ste-utility/ste/processors/batch"
	"github.com/ste-utility/ste/schemas"
)

// Outputs signed in batches (docs/ARCHITECTURE.md, "Outputs signed in
// batches").
//
// Compressing a signature's R is a field inversion, about a quarter of an
// output's signing, and signatures computed together share one
// (schemas.Signer.Seal). A stage's callback decides one input record at a
// time, so on its own it could share the inversion only among that
// record's outputs (1.71 on average). On Kafka the stages therefore emit
// their outputs unsigned (schemas.Signer.EncodeUnsigned) and the producer
// writing them — one per processor, shared by its partitions — seals them:
// workers (one per core) each take whatever outputs wait, up to
// maxSealBatch, sign them together and hand them to franz-go, batch after
// batch in the order they were taken. Nothing waits for a batch to fill:
// an idle producer seals a lone output at once; under load the outputs
// emitted while a batch is signed make the next one (processors/batch: no
// linger, a worker per core, hand-off in the order taken). One worker
// would be serial work of ~17 µs a message for the whole instance (1.71
// signatures), a ceiling of ~58,000 msg/s however many cores it has.
//
// What does not change: every emit takes its sequence number when it is
// emitted and promises complete in that order (producer.go), so an input
// record is committed only once its outputs are sealed, written and
// acknowledged; a topic's records are all sealed (the outbound and CLS
// topics, which only outputs reach) or none, and the sealer hands them over
// in the order they were emitted, so their partitions keep that order. A
// kill loses the outputs waiting to be sealed as it loses what franz-go
// buffers: their input records are not committed, and are applied again
// (re-emitting what they caused).

const (
	// maxSealBatch caps a batch: past a few dozen outputs the inversion's
	// share of each is negligible while the batch's latency grows.
	maxSealBatch = 64
	// maxSealWaiting bounds the outputs emitted and not yet handed to
	// franz-go; an emit that finds it full waits (back-pressure, as
	// franz-go's own buffer).
	maxSealWaiting = 4096
)

// Seal says which outputs a producer seals, and with what key.
type Seal struct {
	Signer *schemas.Signer
	Topics []string            // the outbound and CLS topics
	Size   prometheus.Observer // the batches' sizes; nil: not observed
}

// sealer seals a producer's outputs: batches taken in emit order, signed
// on a worker per core, handed to franz-go in the order taken.
type sealer struct {
	cfg *Seal
	b   *batch.Batcher[*emission] // outputs emitted, not yet sealed: each record's Value an unsigned message (schemas.Signer.EncodeUnsigned)
	p   *producer
}

func newSealer(p *producer, cfg *Seal) *sealer {
	s := &sealer{cfg: cfg, p: p}
	s.b = batch.New(batch.Policy{Count: maxSealBatch, MaxWaiting: maxSealWaiting, Workers: runtime.GOMAXPROCS(0), Size: cfg.Size},
		s.sign, s.handOff)
	return s
}

// takes says whether records of topic are sealed here.
func (s *sealer) takes(topic string) bool { return slices.Contains(s.cfg.Topics, topic) }

// add queues an output for sealing; it numbers the emit as it is queued,
// so that the queue is in emit order.
func (s *sealer) add(e *emission) {
	s.b.AddFunc(func() *emission { e.seq = s.p.sequence(); return e })
}

// sign signs a batch's outputs together.
func (s *sealer) sign(batch []*emission) {
	vals := make([][]byte, len(batch))
	for i := range batch {
		vals[i] = batch[i].r.Value
	}
	s.cfg.Signer.Seal(vals)
	for i := range batch {
		batch[i].r.Value = vals[i]
	}
}

// handOff hands a sealed batch to franz-go, in emit order.
func (s *sealer) handOff(batch []*emission) {
	for _, u := range batch {
		s.p.produce(u)
	}
}

// close hands over what waits and stops the workers.
func (s *sealer) close() { s.b.Close() }
