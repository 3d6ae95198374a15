package pipeline

import (
	"runtime"
	"slices"
	"sync"

	"github.com/lovoo/goka"
	"github.com/twmb/franz-go/pkg/kgo"

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
// emitted while a batch is signed make the next one. One worker would be
// serial work of ~17 µs a message for the whole instance (1.71
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
	// maxSealWaiting bounds the outputs waiting to be sealed; an emit that
	// finds it full waits (back-pressure, as franz-go's own buffer).
	maxSealWaiting = 4096
)

// sealConfig says which outputs a producer seals, and with what key.
type sealConfig struct {
	signer  *schemas.Signer
	topics  []string // the outbound and CLS topics
	metrics *Metrics // nil: none
}

// unsealed is an output emitted, not yet sealed.
type unsealed struct {
	r      *kgo.Record // Value: an unsigned message (schemas.Signer.EncodeUnsigned)
	seq    uint64
	finish goka.PromiseFinisher
	tw     *topicWatch
}

type sealer struct {
	p   *producer
	cfg *sealConfig

	mu      sync.Mutex
	ready   *sync.Cond // outputs wait, or closing
	room    *sync.Cond // below maxSealWaiting, or closing
	waiting []unsealed
	closing bool
	handed  chan struct{} // closed once the last batch taken is handed over
	workers sync.WaitGroup
	done    chan struct{} // closed when the workers have handed everything over
}

func newSealer(p *producer, cfg *sealConfig) *sealer {
	s := &sealer{p: p, cfg: cfg, handed: make(chan struct{}), done: make(chan struct{})}
	close(s.handed)
	s.ready, s.room = sync.NewCond(&s.mu), sync.NewCond(&s.mu)
	n := runtime.GOMAXPROCS(0)
	s.workers.Add(n)
	for range n {
		go s.run()
	}
	go func() { s.workers.Wait(); close(s.done) }()
	return s
}

// takes says whether records of topic are sealed here.
func (s *sealer) takes(topic string) bool { return slices.Contains(s.cfg.topics, topic) }

// add queues an output for sealing; it numbers the emit under the queue's
// lock, so that the queue is in emit order.
func (s *sealer) add(r *kgo.Record, finish goka.PromiseFinisher, tw *topicWatch) {
	s.mu.Lock()
	for len(s.waiting) >= maxSealWaiting && !s.closing {
		s.room.Wait()
	}
	u := unsealed{r: r, seq: s.p.sequence(), finish: finish, tw: tw}
	if s.closing {
		// Nothing emits into a closing producer; should anything, it is
		// sealed alone, after what was taken before, rather than left
		// unwritten.
		prev, handed := s.next()
		s.mu.Unlock()
		s.seal([]unsealed{u}, prev, handed)
		return
	}
	s.waiting = append(s.waiting, u)
	s.mu.Unlock()
	s.ready.Signal()
}

// next chains a batch being taken after the one taken before it: prev is
// closed once that one is handed over, handed is to be closed once this
// one is. s.mu is held.
func (s *sealer) next() (prev, handed chan struct{}) {
	prev, handed = s.handed, make(chan struct{})
	s.handed = handed
	return prev, handed
}

// run seals and hands over batches until the sealer closes and nothing
// waits.
func (s *sealer) run() {
	defer s.workers.Done()
	for {
		s.mu.Lock()
		for len(s.waiting) == 0 && !s.closing {
			s.ready.Wait()
		}
		if len(s.waiting) == 0 {
			s.mu.Unlock()
			return
		}
		n := min(len(s.waiting), maxSealBatch)
		batch := slices.Clone(s.waiting[:n])
		s.waiting = append(s.waiting[:0], s.waiting[n:]...)
		prev, handed := s.next()
		s.mu.Unlock()
		s.room.Broadcast()
		s.cfg.metrics.sealBatch(n)
		s.seal(batch, prev, handed)
	}
}

// seal signs a batch's outputs together, waits for the batch taken before
// it to be handed over, and hands its own to franz-go in order.
func (s *sealer) seal(batch []unsealed, prev, handed chan struct{}) {
	vals := make([][]byte, len(batch))
	for i := range batch {
		vals[i] = batch[i].r.Value
	}
	s.cfg.signer.Seal(vals)
	<-prev
	for i, u := range batch {
		u.r.Value = vals[i]
		s.p.produce(u.r, u.seq, u.finish, u.tw)
	}
	close(handed)
}

// close hands over what waits and stops the workers.
func (s *sealer) close() {
	s.mu.Lock()
	s.closing = true
	s.mu.Unlock()
	s.ready.Broadcast()
	s.room.Broadcast()
	<-s.done
}
