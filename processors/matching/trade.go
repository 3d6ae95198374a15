package matching

import (
	"hash/fnv"
	"slices"

	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/decimal"
	"github.com/ste-utility/ste/schemas/refdata"
)

// Trade is the state of one trade: its accepted messages (compact), the CLS
// version and status counters, and what was last said about it. It is the
// value of the matching table on Kafka and of Book in `ste match`.
type Trade struct {
	Key     schemas.TradeKey
	Keys    []schemas.Key // distinct key-field tuples of its messages (one, barring a hash collision)
	Entries []Entry       // every accepted message, in arrival order
	Newest  int64         // newest Created among Entries: retention runs from it

	Version    int    // last CLS version emitted, 0 for none
	Live       bool   // CLS Version stands (not cancelled)
	LiveDigest Digest // content of the live CLS, Version excluded
	StatusN    int    // status changes so far (the n of ST:<key>:<n>:<receiver>)
	Last       LastStatus
}

// LastStatus is the last STATUS sent, kept so that a re-emission repeats it
// with the same MsgId and the same content.
type LastStatus struct {
	Status schemas.Status
	// Criteria are the failing criteria of a MISMATCHED, or those a MATCHED
	// held only within tolerance (state layout v1 wrote none for a MATCHED,
	// which reads as "none within tolerance": it was exact then).
	Criteria []uint8
	// Body of a MISMATCHED or of a MATCHED with <Tolerance> elements: their
	// message lists cannot be recomputed once messages change.
	Body []byte
	To   []string // receivers
}

// Config is what the engine needs beyond the messages.
type Config struct {
	// UtilityBIC is the Receiver of CLS outputs. Default refdata.DefaultUtilityBIC.
	UtilityBIC string
	// ReemitHistory makes a duplicate re-emit, beyond what the contract asks
	// (the ACK, and the current CLS and STATUS of a matched trade), the CANCELs
	// of every superseded CLS version and the current STATUS of an unmatched
	// trade. The Kafka path sets it: after a crash its state may be ahead of its
	// outputs, so a replayed message must restore everything it may have caused.
	// Default false (`ste match` follows the contract to the letter).
	ReemitHistory bool
	// Tolerances of criteria 7 and 15 (reference data tolerances.csv), read
	// at every evaluation: the rows the processing instance has read by then.
	// Nil: none, values must be equal.
	Tolerances Tolerances
}

// Tolerances answers the largest difference criterion 7 (price) or 15 (net
// amount) allows between values in a currency, 0 for none (section 5).
// *refdata.Set and refdata.Current implement it; it must be safe for
// concurrent use by every partition of an instance.
type Tolerances interface {
	Tolerance(criterion int, ccy string) decimal.Dec
}

func (c *Config) utility() string {
	if c.UtilityBIC == "" {
		return refdata.DefaultUtilityBIC
	}
	return c.UtilityBIC
}

// Result says what happened to an inbound message at its trade.
type Result uint8

const (
	Applied   Result = iota + 1 // a new message: the trade changed
	Duplicate                   // an exact duplicate: outputs re-emitted, nothing changed
	Conflict                    // same identity, other bytes: the caller rejects it
)

// NewTrade starts a trade; a tombstone of a purged trade with the same key
// carries its counters over so that no output MsgId gets a second content.
func NewTrade(key schemas.TradeKey, tomb *Tombstone) *Trade {
	t := &Trade{Key: key}
	if tomb != nil {
		t.Version, t.StatusN = tomb.Version, tomb.StatusN
	}
	return t
}

// Holds returns the digest of the message the trade holds under an identity.
func (t *Trade) Holds(sender, msgId string) (Digest, bool) {
	for i := range t.Entries {
		if e := &t.Entries[i]; e.MsgId == msgId && e.Sender == sender {
			return e.Digest, true
		}
	}
	return Digest{}, false
}

// Apply adds an accepted message to the trade and returns the outputs it
// causes, the ACK first.
func (t *Trade) Apply(in *Inbound, cfg *Config, it Interner) ([]schemas.Output, Result) {
	m := in.Msg
	for i := range t.Entries {
		e := &t.Entries[i]
		if e.MsgId == m.MsgId && e.Sender == m.Sender {
			if e.Digest == in.Digest {
				return t.Reemit(e, cfg), Duplicate
			}
			return nil, Conflict
		}
	}
	keyIdx := slices.Index(t.Keys, m.Key)
	if keyIdx < 0 {
		keyIdx = len(t.Keys)
		k := m.Key
		k.TradeRef, k.TradeDate, k.ISIN = clone(k.TradeRef), clone(k.TradeDate), clone(k.ISIN)
		k.Side, k.Broker, k.InvMgr = it.Intern(k.Side), it.Intern(k.Broker), it.Intern(k.InvMgr)
		t.Keys = append(t.Keys, k)
	}
	t.Entries = append(t.Entries, newEntry(in, keyIdx, it))
	t.Newest = max(t.Newest, m.Created)
	out := []schemas.Output{ack(m.Sender, m.MsgId)}
	return t.settle(out, cfg), Applied
}

// settle re-evaluates the trade and emits what changed (section 5):
// compensation of a live CLS, a new version, and status changes.
func (t *Trade) settle(out []schemas.Output, cfg *Config) []schemas.Output {
	v := inForce(t, cfg.Tolerances)
	ev := evaluate(t, v)
	var body []byte
	var digest Digest
	if ev.state == matched {
		body = schemas.CLSBody(ev.cls) // Version 0: the content without its version
		digest = contentDigest(body)
	}
	if t.Live {
		if ev.state == matched && digest == t.LiveDigest {
			// Same CLS content: nothing to say, unless the criteria held only
			// within tolerance changed — then a STATUS MATCHED without a CLS.
			if !slices.Equal(t.Last.Criteria, criteriaOf(ev.within)) {
				out = t.status(out, schemas.Matched, ev.within, parties(t, v))
			}
			return out
		}
		out = append(out, clsCancel(t.Key, t.Version, cfg))
		t.Live = false
	}
	switch ev.state {
	case matched:
		t.Version++
		t.Live, t.LiveDigest = true, digest
		ev.cls.Version = t.Version
		out = append(out, clsNew(ev.cls, cfg))
		out = t.status(out, schemas.Matched, ev.within, parties(t, v))
	case mismatched:
		if t.Last.Status != schemas.Mismatched || !slices.Equal(t.Last.Criteria, criteriaOf(ev.failing)) {
			out = t.status(out, schemas.Mismatched, ev.failing, parties(t, v))
		}
	case incomplete:
		if t.Last.Status == schemas.Matched || t.Last.Status == schemas.Mismatched {
			out = t.status(out, schemas.Unmatched, nil, parties(t, v))
		}
	}
	return out
}

// status emits a status change: ds are a MISMATCHED's discrepancies or a
// MATCHED's criteria held within tolerance.
func (t *Trade) status(out []schemas.Output, s schemas.Status, ds []schemas.Discrepancy, to []string) []schemas.Output {
	t.StatusN++
	body := schemas.StatusBody(t.Key, t.Keys[0].TradeRef, s, ds)
	t.Last = LastStatus{Status: s, Criteria: criteriaOf(ds), To: to}
	if len(ds) > 0 {
		t.Last.Body = body
	}
	return t.appendStatus(out, body)
}

func (t *Trade) appendStatus(out []schemas.Output, body []byte) []schemas.Output {
	for _, r := range t.Last.To {
		out = append(out, schemas.Output{Type: schemas.STATUS, Function: schemas.NEW,
			MsgId: schemas.StatusId(t.Key, t.StatusN, r), Receiver: r, Key: r, Body: body})
	}
	return out
}

// Reemit answers an exact duplicate of e: the same ACK, and the trade's
// current CLS and STATUS if it is matched (plus, with ReemitHistory, the
// superseded versions' CANCELs and the current STATUS whatever it is).
func (t *Trade) Reemit(e *Entry, cfg *Config) []schemas.Output {
	out := []schemas.Output{ack(e.Sender, e.MsgId)}
	if cfg.ReemitHistory {
		for v := 1; v < t.Version || (v == t.Version && !t.Live); v++ {
			out = append(out, clsCancel(t.Key, v, cfg))
		}
	}
	if t.Live {
		v := inForce(t, nil) // the CLS content does not depend on tolerances
		c := clsOf(t, v)
		c.Version = t.Version
		out = append(out, clsNew(c, cfg))
	}
	if t.Last.Status != 0 && (t.Live || cfg.ReemitHistory) {
		out = t.appendStatus(out, t.lastBody())
	}
	return out
}

func (t *Trade) lastBody() []byte {
	if t.Last.Body != nil {
		return t.Last.Body
	}
	return schemas.StatusBody(t.Key, t.Keys[0].TradeRef, t.Last.Status, nil)
}

// Tombstone is what a purged trade leaves: its counters, so that a later
// message for the same key continues them.
type Tombstone struct {
	Version  int
	StatusN  int
	PurgedAt int64 // event time of the purge
}

// Expire purges the trade: a STATUS EXPIRED to its parties if it is not
// matched and still has messages in force, nothing otherwise.
func (t *Trade) Expire(now int64) ([]schemas.Output, Tombstone) {
	var out []schemas.Output
	if !t.Live {
		if v := inForce(t, nil); len(v.all) > 0 {
			out = t.status(nil, schemas.Expired, nil, parties(t, v))
		}
	}
	return out, Tombstone{Version: t.Version, StatusN: t.StatusN, PurgedAt: now}
}

// Matched reports whether the trade's CLS stands; Mismatched whether the last
// status says MISMATCHED. Together they are the "final outcome" of a trade.
func (t *Trade) Matched() bool    { return t.Live }
func (t *Trade) Mismatched() bool { return !t.Live && t.Last.Status == schemas.Mismatched }

func criteriaOf(ds []schemas.Discrepancy) []uint8 {
	var cs []uint8
	for _, d := range ds {
		cs = append(cs, uint8(d.Criterion))
	}
	return cs
}

func contentDigest(body []byte) Digest {
	h := fnv.New128a()
	h.Write(body)
	var d Digest
	h.Sum(d[:0])
	return d
}

func ack(sender, msgId string) schemas.Output {
	return schemas.Output{Type: schemas.ACK, Function: schemas.NEW, MsgId: schemas.ACKId(sender, msgId),
		Receiver: sender, RelatedMsgId: msgId, Key: sender, Body: schemas.ACKBody(msgId)}
}

func clsNew(c *schemas.CLSContent, cfg *Config) schemas.Output {
	return schemas.Output{Type: schemas.CLS, Function: schemas.NEW, MsgId: schemas.CLSId(c.TradeKey, c.Version),
		Receiver: cfg.utility(), Key: c.TradeKey.String(), Body: schemas.CLSBody(c)}
}

func clsCancel(tk schemas.TradeKey, v int, cfg *Config) schemas.Output {
	return schemas.Output{Type: schemas.CLS, Function: schemas.CANCEL, MsgId: schemas.CLSCancelId(tk, v),
		Receiver: cfg.utility(), RelatedMsgId: schemas.CLSId(tk, v), Key: tk.String(),
		Body: schemas.CLSCancelBody(tk, v)}
}
