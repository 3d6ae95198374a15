// Package registry is how STE's instances find each other: every running
// `ste process` announces itself — id, groups, HTTP address, version,
// readiness — on the compacted topic <ns>.instances, keyed by its id, and
// refreshes the announcement periodically; a clean stop writes a tombstone.
// An operator console or a script reads the topic to find every instance's
// /metrics without fixed ports. An instance killed without a clean stop
// leaves its last announcement, which ages: List marks it stale once it is
// older than three refresh periods.
package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topology"
	"github.com/ste-utility/ste/trust"
)

// DefaultEvery is how often an instance refreshes its announcement.
const DefaultEvery = 10 * time.Second

// Entry is one instance's announcement.
type Entry struct {
	ID        string   `json:"id"`
	Namespace string   `json:"namespace"`
	Groups    []string `json:"groups"` // stage names: validate, identity, match
	HTTP      string   `json:"http,omitempty"`
	// Lookup is the address of the trade lookup listener (/trades), which
	// answers only requests with the utility's lookup token.
	Lookup   string    `json:"lookup,omitempty"`
	Version  string    `json:"version"`
	Ready    bool      `json:"ready"`
	Health   string    `json:"health,omitempty"` // "ok", or why not
	Host     string    `json:"host"`
	PID      int       `json:"pid"`
	Started  time.Time `json:"started"`
	LastSeen time.Time `json:"last_seen"`
	// Every is the refresh period the instance promised.
	Every float64 `json:"refresh_seconds"`
	// Stale is set by List: no refresh for three periods (killed, or cut off).
	Stale bool `json:"stale"`
}

// Marshal encodes an entry as the topic's value.
func (e Entry) Marshal() []byte {
	b, _ := json.Marshal(e)
	return b
}

// Announcer keeps one instance's entry on the topic.
type Announcer struct {
	cl      *kgo.Client
	topic   string
	every   time.Duration
	current func() Entry
	poke    chan struct{}
	log     *slog.Logger
	secret  *trust.Secret // proves the records (proof.go); nil: none
}

// NewAnnouncer announces the entries current returns, every period (and
// when poked), on namespace ns's registry topic.
func NewAnnouncer(cl *kgo.Client, ns string, every time.Duration, current func() Entry) *Announcer {
	if every <= 0 {
		every = DefaultEvery
	}
	return &Announcer{cl: cl, topic: topology.Names{NS: ns}.Instances(), every: every, current: current,
		poke: make(chan struct{}, 1), log: slog.Default()}
}

// WithLogger sets where the announcer says what it gave up on.
func (a *Announcer) WithLogger(l *slog.Logger) *Announcer {
	if l != nil {
		a.log = l
	}
	return a
}

// Poke asks for an announcement now (readiness changed).
func (a *Announcer) Poke() {
	select {
	case a.poke <- struct{}{}:
	default:
	}
}

// Run announces until ctx ends, then removes the entry (a clean stop).
// Failures to announce are retried at the next period: the registry is for
// finding instances, never a reason to stop one.
func (a *Announcer) Run(ctx context.Context) {
	t := time.NewTicker(a.every)
	defer t.Stop()
	var id string
	for {
		e := a.current()
		e.Every = a.every.Seconds()
		e.LastSeen = time.Now().UTC()
		id = e.ID
		rec := &kgo.Record{Topic: a.topic, Key: []byte(e.ID), Value: e.Marshal()}
		topics.Prove(a.secret, rec)
		a.cl.Produce(ctx, rec, nil)
		select {
		case <-ctx.Done():
			a.remove(id)
			return
		case <-t.C:
		case <-a.poke:
		}
	}
}

// RemoveWithin bounds the tombstone of a clean stop: a stopping instance
// gives up on it after this long (the entry then ages into stale).
const RemoveWithin = 5 * time.Second

// remove writes the tombstone and waits for it at most RemoveWithin. The
// produce's context does not bound it: a record already buffered is
// retried by the client while the broker is away, whatever its context
// says, and ProduceSync waits for it. So the wait is bounded here, and a
// tombstone not acknowledged in time is logged and left to the client's
// Close (which fails what it still buffers).
func (a *Announcer) remove(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), RemoveWithin)
	defer cancel()
	rec := &kgo.Record{Topic: a.topic, Key: []byte(id), Value: nil}
	topics.Prove(a.secret, rec)
	done := make(chan error, 1)
	a.cl.Produce(ctx, rec, func(_ *kgo.Record, err error) {
		done <- err
	})
	select {
	case err := <-done:
		if err != nil {
			a.log.Warn("instance registry: the entry was not removed; it will show as stale", "topic", a.topic, "id", id, "err", err)
		}
	case <-ctx.Done():
		a.log.Warn("instance registry: removal not acknowledged, given up; the entry will show as stale",
			"topic", a.topic, "id", id, "waited", RemoveWithin)
	}
}

// List reads namespace ns's registry to its end and returns the instances
// that announced themselves and did not stop cleanly, sorted by id.
func List(ctx context.Context, c kafkaconn.Config, ns string) ([]Entry, error) {
	l, err := read(ctx, c, ns, func(*kgo.Record) bool { return true })
	return l.Entries, err
}

// list is List of the records believe keeps (proof.go).
func list(ctx context.Context, c kafkaconn.Config, ns string, believe func(*kgo.Record) bool) ([]Entry, error) {
	l, err := read(ctx, c, ns, believe)
	return l.Entries, err
}

// Listing is what Read found: the entries listed, and how many records
// were not listed, by reason (not an announcement, an address that is not
// host:port).
type Listing struct {
	Entries []Entry
	Skipped map[string]int
}

// Read is List with the records it skipped counted.
func Read(ctx context.Context, c kafkaconn.Config, ns string) (Listing, error) {
	return read(ctx, c, ns, func(*kgo.Record) bool { return true })
}

func read(ctx context.Context, c kafkaconn.Config, ns string, believe func(*kgo.Record) bool) (Listing, error) {
	l := Listing{Skipped: map[string]int{}}
	latest := map[string][]byte{}
	_, err := topics.Dump(ctx, c, topology.Names{NS: ns}.Instances(), func(r *kgo.Record) error {
		if believe(r) {
			latest[string(r.Key)] = r.Value
		}
		return nil
	})
	if errors.Is(err, kerr.UnknownTopicOrPartition) {
		return l, nil // a namespace made before the registry: nobody announced
	}
	if err != nil {
		return l, fmt.Errorf("instance registry: %w", err)
	}
	now := time.Now()
	var out []Entry
	for _, v := range latest {
		if v == nil {
			continue
		}
		var e Entry
		if json.Unmarshal(v, &e) != nil {
			l.Skipped["not an announcement"]++
			continue
		}
		if why := checkEntry(e); why != "" {
			l.Skipped[why]++
			continue
		}
		e.Stale = stale(e, now)
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b Entry) int {
		if a.ID < b.ID {
			return -1
		}
		if a.ID > b.ID {
			return 1
		}
		return 0
	})
	l.Entries = out
	return l, nil
}
