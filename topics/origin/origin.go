// Package origin records where a namespace's records and state came from,
// on its <ns>.origin topic (one partition, compacted, keyed by kind and
// source namespace): a replay's source and range, or a migration's cut-over.
// A namespace made from scratch has none.
//
// The record is what makes the tools safe to run twice. `ste migrate` writes
// its record "started", with the cut-over, before it copies anything, and
// "complete" once the copy is acknowledged: a second run after success
// changes nothing, and a run killed half way finds the cut-over and
// finishes the copy. `ste replay --delete` removes only namespaces whose
// origin says they are sandboxes, and the processors of a sandbox judge
// time by its records (see instance.Options.Sandbox).
package origin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topics/copier"
	"github.com/ste-utility/ste/topology"
	"github.com/ste-utility/ste/trust"
)

// Kinds of origin.
const (
	Replay    = "replay"
	Migration = "migration"
)

// States of a record.
const (
	Started  = "started"
	Complete = "complete"
)

// Record is one origin of a namespace.
type Record struct {
	Kind  string `json:"kind"`
	From  string `json:"from"` // the source namespace
	State string `json:"state"`
	// Partitions of the namespace's keyed topics when it was made.
	Partitions int32     `json:"partitions"`
	Started    time.Time `json:"started"`
	Completed  time.Time `json:"completed,omitzero"`
	// Refdata says which reference data was published: "source" (the
	// source namespace's, as it was at Started) or the directory given.
	Refdata string `json:"refdata,omitempty"`
	// Spans are what a replay copied from the source's inbound.
	Spans []copier.Span `json:"spans,omitempty"`
	// Cutover is, for a migration, the end offset of every partition of
	// the source topics it read (inbound: where the old namespace stopped
	// processing, and where --follow starts; the table changelogs: the
	// state carried).
	Cutover map[string]map[int32]int64 `json:"cutover,omitempty"`
	// Copied counts what was copied, by topic of the source.
	Copied map[string]int64 `json:"copied,omitempty"`
}

// Key is the record's key on the topic.
func (r Record) Key() string { return r.Kind + ":" + r.From }

// Write writes r to namespace ns's origin topic, with the proof that the
// utility wrote it (secret), and waits for it.
func Write(ctx context.Context, cl *kgo.Client, ns string, secret *trust.Secret, r Record) error {
	v, err := json.Marshal(r)
	if err != nil {
		return err
	}
	topic := topology.Names{NS: ns}.Origin()
	rec := &kgo.Record{Topic: topic, Key: []byte(r.Key()), Value: v, Partition: 0}
	topics.Prove(secret, rec)
	if err := cl.ProduceSync(ctx, rec).FirstErr(); err != nil {
		return fmt.Errorf("write %s: %w", topic, err)
	}
	return nil
}

// Read returns the namespace's origin records, sorted by key; a namespace
// without the topic has none. An unreadable record, or one without the
// utility's proof, is an error: the tools that write origins (replay,
// migrate) act on them — ste replay --delete removes a namespace its origin
// calls a sandbox — and must not guess.
func Read(ctx context.Context, dial copier.Dial, ns string, secret *trust.Secret) ([]Record, error) {
	out, bad, err := Scan(ctx, dial, ns, secret)
	if err == nil && len(bad) > 0 {
		err = fmt.Errorf("%s key %s: not an origin record the utility wrote (unreadable, or without its proof)", topology.Names{NS: ns}.Origin(), bad[0])
	}
	return out, err
}

// Scan is Read that skips unreadable and unproven records and returns
// their keys: the runtime only asks whether a namespace is a sandbox, and
// garbage on the topic must not stop it (it logs the keys) nor make a live
// namespace a sandbox.
func Scan(ctx context.Context, dial copier.Dial, ns string, secret *trust.Secret) (out []Record, bad []string, err error) {
	topic := topology.Names{NS: ns}.Origin()
	// The latest proven record of each key: one without proof neither
	// counts nor hides the utility's own (a key whose records are all
	// unproven is returned as bad).
	held, unproven := map[string][]byte{}, map[string]bool{}
	_, err = copier.Fold(ctx, dial, topic, func(r *kgo.Record) {
		switch k := string(r.Key); {
		case !topics.Proven(secret, r):
			unproven[k] = true
		case r.Value == nil:
			delete(held, k)
		default:
			held[k] = r.Value
		}
	})
	if errors.Is(err, kerr.UnknownTopicOrPartition) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", topic, err)
	}
	for k, v := range held {
		var r Record
		if err := json.Unmarshal(v, &r); err != nil || r.Kind == "" {
			bad = append(bad, k)
			continue
		}
		out = append(out, r)
	}
	for k := range unproven {
		if _, ok := held[k]; !ok {
			bad = append(bad, k)
		}
	}
	slices.Sort(bad)
	slices.SortFunc(out, func(a, b Record) int {
		switch {
		case a.Key() < b.Key():
			return -1
		case a.Key() > b.Key():
			return 1
		}
		return 0
	})
	return out, bad, nil
}

// Find returns the record of that kind and source, if any.
func Find(rs []Record, kind, from string) (Record, bool) {
	for _, r := range rs {
		if r.Kind == kind && r.From == from {
			return r, true
		}
	}
	return Record{}, false
}

// IsSandbox reports whether the records say the namespace was made by a
// replay.
func IsSandbox(rs []Record) bool {
	return slices.ContainsFunc(rs, func(r Record) bool { return r.Kind == Replay })
}
