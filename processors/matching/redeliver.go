package matching

import (
	"hash/fnv"
	"slices"
	"strings"

	"github.com/ste-utility/ste/schemas"
)

// What the Kafka path needs of a trade to redo, after a crash, what a
// message caused, and to remember what a purged trade held. goka may write
// a trade's value to its changelog before the outputs of the same message
// are acknowledged; a kill -9 in between leaves the table ahead of the
// outputs, and the message, not committed, comes again as an exact
// duplicate. What the duplicate re-emits (Reemit with ReemitHistory) must
// therefore be rebuildable from the value alone: the CNF CANCELs of
// receivers no longer confirmed (CNFState.Gone), the utility's AFFs not
// yet come back (AutoPending), the allegements last sent (ALG). `ste
// match` has no crash to survive and reads none of it.

// AutoPending is an AFF the utility decided to send for the trade (section
// 5a step 4) that the trade does not hold yet, with what rebuilds its
// bytes: the set it names (indices in Entries, which only grow), its
// digest and MatchedAt.
type AutoPending struct {
	MsgId     string
	MatchedAt int64
	Digest    schemas.MatchDigest
	Set       []int32
}

// PendingAutoAffirmations are the AFFs the utility sent for the trade that
// it does not hold yet, rebuilt byte for byte (AutoAFF): a message applied
// again after a crash produces them again, since the one that decided
// them may have been lost with the crash. An AFF that validation rejected
// stays pending (the trade is not told) and is produced again by every
// redelivered message of its trade: rejected again, the same NACK.
func (t *Trade) PendingAutoAffirmations(cfg *Config) []*schemas.Draft {
	if len(t.AutoPending) == 0 || len(t.Keys) == 0 {
		return nil
	}
	var out []*schemas.Draft
	for _, p := range t.AutoPending {
		toks := make([]string, 0, len(p.Set))
		for _, i := range p.Set {
			if int(i) < len(t.Entries) {
				toks = append(toks, t.Entries[i].Token())
			}
		}
		slices.Sort(toks)
		out = append(out, AutoAFF(t.Keys[0], cfg.utility(), p.MsgId, p.MatchedAt, p.Digest.String(), toks))
	}
	return out
}

// held drops the pending AFF msgId: the trade holds it now.
func (t *Trade) held(msgId string) {
	t.AutoPending = slices.DeleteFunc(t.AutoPending, func(p AutoPending) bool { return p.MsgId == msgId })
	if len(t.AutoPending) == 0 {
		t.AutoPending = nil
	}
}

// cnfGone is CNFState.Gone once the standing CNF (cancelled: a new one is
// confirmed to parties) has gone to its receivers: those it reached that
// parties does not hold join Gone, and parties leave it.
func (t *Trade) cnfGone(parties []string) []CNFGone {
	var gone []CNFGone
	for _, g := range t.CNF.Gone {
		if !slices.Contains(parties, g.Receiver) && !slices.Contains(t.CNF.To, g.Receiver) {
			gone = append(gone, g)
		}
	}
	if t.CNF.N > 0 {
		for _, r := range t.CNF.To {
			if !slices.Contains(parties, r) {
				gone = append(gone, CNFGone{Receiver: r, N: t.CNF.N, Digest: t.CNF.Digest})
			}
		}
	}
	slices.SortFunc(gone, func(x, y CNFGone) int { return strings.Compare(x.Receiver, y.Receiver) })
	return gone
}

// appendCNFCancels re-sends the last CNF CANCEL of every receiver whose last
// CNF was one: the receivers no longer confirmed (Gone), and the standing
// CNF's when it is cancelled.
func (t *Trade) appendCNFCancels(out []schemas.Output) []schemas.Output {
	for _, g := range t.CNF.Gone {
		out = append(out, cnfCancelRecord(t.Key, g.N, g.Receiver, g.Digest))
	}
	if !t.CNF.Live && t.CNF.N > 0 {
		for _, r := range t.CNF.To {
			out = append(out, cnfCancelRecord(t.Key, t.CNF.N, r, t.CNF.Digest))
		}
	}
	return out
}

func cnfCancelRecord(tk schemas.TradeKey, n int, r string, d schemas.MatchDigest) schemas.Output {
	return schemas.Output{Type: schemas.CNF, Function: schemas.CANCEL, MsgId: schemas.CNFCancelId(tk, n, r), Receiver: r,
		Key: r, RelatedMsgId: schemas.CNFId(tk, n, r), Body: schemas.CNFCancelBody(tk, d.String())}
}

// ReemitAllegements re-sends each receiver's last ALG record (its standing
// ALG NEW, or the CANCEL that withdrew its last one): what an allegement
// step may have sent before a crash.
func (t *Trade) ReemitAllegements() []schemas.Output {
	var out []schemas.Output
	for i := range t.ALG {
		s := &t.ALG[i]
		switch {
		case s.Body != nil:
			out = append(out, t.algNew(s))
		case s.N > 0 && s.NewN > 0:
			out = append(out, t.algCancelRecord(s))
		}
	}
	return out
}

// MayAllege reports whether an allegement step (Allege) could send
// anything: the trade may owe messages (it is not matched, locked or
// cancelled: a standing match is complete by count and owes nothing), or an
// ALG NEW it was sent stands. It reads only flags of the last evaluation,
// so a caller deciding whether to set a timer pays no evaluation.
func (t *Trade) MayAllege() bool {
	if !t.Live && !t.Locked && !t.Cancelled && !t.TombCancelled && len(t.Keys) > 0 {
		return true
	}
	for i := range t.ALG {
		if t.ALG[i].Body != nil {
			return true
		}
	}
	return false
}

// Print is what a tombstone remembers of one message of its trade: its
// identity, hashed, and its bytes' digest — enough to tell an exact
// duplicate from a conflicting one (messages.md §4: identities are
// remembered while their trade or its tombstone lives).
type Print struct {
	ID     uint64 // FNV-1a 64 of Sender ":" MsgId
	Digest Digest
}

func printID(sender, msgId string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(sender))
	h.Write([]byte{':'})
	h.Write([]byte(msgId))
	return h.Sum64()
}

// purged returns the digest of the message of a purged trade of this key
// with that identity.
func (t *Trade) purged(sender, msgId string) (Digest, bool) {
	if len(t.Purged) == 0 {
		return Digest{}, false
	}
	id := printID(sender, msgId)
	for _, p := range t.Purged {
		if p.ID == id {
			return p.Digest, true
		}
	}
	return Digest{}, false
}

// prints are the prints of every message the trade holds and of those its
// tombstone remembered.
func (t *Trade) prints() []Print {
	if len(t.Entries) == 0 && len(t.Purged) == 0 {
		return nil
	}
	ps := make([]Print, 0, len(t.Purged)+len(t.Entries))
	ps = append(ps, t.Purged...)
	for i := range t.Entries {
		e := &t.Entries[i]
		ps = append(ps, Print{ID: printID(e.Sender, e.MsgId), Digest: e.Digest})
	}
	return ps
}
