package signature

import (
	"crypto/ed25519"
	"sync"

	voi "github.com/oasisprotocol/curve25519-voi/primitives/ed25519"
)

// Item is one signature to check: valid when it verifies under any of Keys
// (a participant holds two while it rotates), by the rule of Verify.
type Item struct {
	Sender string // whose it is: a sender whose signatures fail is verified apart
	Keys   []ed25519.PublicKey
	Msg    []byte
	Sig    []byte
}

// Batcher verifies many signatures at once, giving each its own verdict,
// always the one Verify gives (up to the batch equation's 2^-125 chance of
// accepting a bad one, which the random coefficients make no one able to
// aim at). A batch that fails is bisected down to single verifications, so
// one bad signature costs its batch about 2·log2(n) smaller batches.
//
// A sender whose signature failed is a suspect for a while: its signatures
// are verified one by one, outside the batches, so that a sender flooding
// bad signatures pays for its own and does not make every batch of the
// others fail. Safe for concurrent use.
type Batcher struct {
	mu      sync.Mutex
	suspect map[string]int // sender -> signatures still verified apart
}

// suspectFor is how many of a suspect sender's signatures are verified apart
// after its last failure.
const suspectFor = 256

// maxSuspects bounds the suspect map: past it, it starts again empty (a
// flood from that many senders gets single verification of the new ones'
// first failures only; verdicts never depend on it).
const maxSuspects = 4096

// minBatch is the smallest range worth a batch: below it, single
// verification is as cheap (docs/benchmarks.md, the batch-size curve).
const minBatch = 3

// Verify sets ok[i] to whether items[i] is valid. len(ok) must be
// len(items).
func (b *Batcher) Verify(items []Item, ok []bool) {
	batch := make([]int, 0, len(items))
	for i := range items {
		it := &items[i]
		if len(it.Keys) != 1 || b.isSuspect(it.Sender) {
			// Two keys (rotation): which one signed is unknown, so a batch
			// would fail for half of them. Suspects: see Batcher.
			ok[i] = b.single(it)
			continue
		}
		batch = append(batch, i)
	}
	b.verifyRange(items, batch, ok)
}

// single verifies one item apart and keeps score of its sender.
func (b *Batcher) single(it *Item) bool {
	v := anyKey(it)
	b.mu.Lock()
	defer b.mu.Unlock()
	if v {
		if n, ok := b.suspect[it.Sender]; ok {
			if n <= 1 {
				delete(b.suspect, it.Sender)
			} else {
				b.suspect[it.Sender] = n - 1
			}
		}
		return true
	}
	if b.suspect == nil || len(b.suspect) >= maxSuspects {
		b.suspect = map[string]int{}
	}
	b.suspect[it.Sender] = suspectFor
	return false
}

func (b *Batcher) isSuspect(sender string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	_, ok := b.suspect[sender]
	return ok
}

func anyKey(it *Item) bool {
	for _, k := range it.Keys {
		if Verify(k, it.Msg, it.Sig) {
			return true
		}
	}
	return false
}

// verifyRange decides the items idx names: one batch when it holds, else
// each half on its own.
func (b *Batcher) verifyRange(items []Item, idx []int, ok []bool) {
	if len(idx) < minBatch {
		for _, i := range idx {
			ok[i] = b.single(&items[i])
		}
		return
	}
	if batchHolds(items, idx) {
		for _, i := range idx {
			ok[i] = true
		}
		return
	}
	h := len(idx) / 2
	b.verifyRange(items, idx[:h], ok)
	b.verifyRange(items, idx[h:], ok)
}

// batchHolds checks the cofactored batch equation over the items idx names
// (each with one key). False: at least one is invalid.
func batchHolds(items []Item, idx []int) bool {
	v := voi.NewBatchVerifierWithCapacity(len(idx))
	for _, i := range idx {
		it := &items[i]
		if len(it.Keys[0]) != ed25519.PublicKeySize || len(it.Sig) != ed25519.SignatureSize {
			return false
		}
		x := expand(it.Keys[0])
		if x == nil {
			return false
		}
		v.AddExpandedWithOptions(x, it.Msg, it.Sig, options)
	}
	return v.VerifyBatchOnly(nil)
}
