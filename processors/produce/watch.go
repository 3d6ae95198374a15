package produce

import (
	"fmt"
	"net"
	"regexp"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Watch follows the records the pipeline's producers handed to the
// brokers and have not had acknowledged, and what the brokers answered while
// they waited. A retriable refusal (NOT_ENOUGH_REPLICAS when the in-sync
// replicas are fewer than min.insync.replicas, NOT_LEADER during an
// election) is retried inside franz-go for as long as it lasts and never
// reaches goka: processing simply waits. Refused says so, with the broker's
// own reason, for /healthz.
//
// Where franz-go gives the reason through a hook, the watch takes it there:
// a produce request that could not be written or answered (a broken
// connection: HookBrokerE2E) and a broker that cannot be reached
// (HookBrokerConnect) are every waiting topic's reason. A produce answer's
// per-partition errors, which franz-go retries, it reports neither through
// a hook nor an error, only in its debug log; building that log for every
// answer costs the hot path, so the producers' logger asks for debug only
// while records have waited longer than a second without any
// acknowledgement, and reads those reasons from it (the format is pinned by
// TestWatchReadsARefusalFromFranzGosLog against the franz-go in go.mod).
type Watch struct {
	topics sync.Map // topic → *topicWatch
	now    func() time.Time
}

// topicWatch is one topic's records in flight. since is when its oldest
// wait began: its last acknowledgement, or the moment records became
// pending after none were (unix nanoseconds). Per topic, because a topic
// whose records are refused must not look alive through another topic's
// acknowledgements.
type topicWatch struct {
	pending atomic.Int64
	since   atomic.Int64
	refusal atomic.Pointer[string] // the broker's last answer to a produce of its waiting records
}

// NewWatch makes a watch for the producers of one pipeline.
func NewWatch() *Watch { return &Watch{now: time.Now} }

func (w *Watch) topic(t string) *topicWatch {
	if tw, ok := w.topics.Load(t); ok {
		return tw.(*topicWatch)
	}
	tw, _ := w.topics.LoadOrStore(t, &topicWatch{})
	return tw.(*topicWatch)
}

func (w *Watch) sent(topic string) { w.sentTo(w.topic(topic)) }

func (w *Watch) acked(topic string, err error) { w.ackedBy(w.topic(topic), err) }

// sentTo and ackedBy are sent and acked with the topic's watch looked up
// by the caller, once for a record's send and its acknowledgement.
func (w *Watch) sentTo(tw *topicWatch) {
	if tw.pending.Add(1) == 1 {
		tw.since.Store(w.now().UnixNano())
	}
}

func (w *Watch) ackedBy(tw *topicWatch, err error) {
	tw.pending.Add(-1)
	if err == nil {
		tw.since.Store(w.now().UnixNano())
		tw.refusal.Store(nil)
	}
}

// longest is the topic whose records have waited longest with no
// acknowledgement, and how long (0: nothing waits).
func (w *Watch) longest() (topic string, tw *topicWatch, d time.Duration) {
	now := w.now()
	w.topics.Range(func(k, v any) bool {
		t := v.(*topicWatch)
		if t.pending.Load() <= 0 {
			return true
		}
		if wd := now.Sub(time.Unix(0, t.since.Load())); wd > d {
			topic, tw, d = k.(string), t, wd
		}
		return true
	})
	return topic, tw, d
}

// Refused is "" or, when records of a topic have waited at least after
// with no acknowledgement, why: the broker's reason where it gave one.
func (w *Watch) Refused(after time.Duration) string {
	topic, tw, d := w.longest()
	if d <= 0 || d < after {
		return ""
	}
	n := tw.pending.Load()
	if r := tw.refusal.Load(); r != nil {
		return fmt.Sprintf("produce to %s refused by the broker for %s (%d records waiting): %s", topic, d.Round(time.Second), n, *r)
	}
	return fmt.Sprintf("produce to %s not acknowledged for %s (%d records waiting; no answer from the brokers)", topic, d.Round(time.Second), n)
}

// opts are the client options that report to w: the hooks, and the
// producers' franz-go logger, silent, except that it asks for the debug
// log while records wait, to read the brokers' answers.
func (w *Watch) opts() []kgo.Opt {
	return []kgo.Opt{kgo.WithHooks(watchHooks{w}), kgo.WithLogger(watchLogger{w})}
}

// refuseAll makes reason every waiting topic's.
func (w *Watch) refuseAll(reason string) {
	w.topics.Range(func(_, v any) bool {
		if tw := v.(*topicWatch); tw.pending.Load() > 0 {
			tw.refusal.Store(&reason)
		}
		return true
	})
}

type watchHooks struct{ w *Watch }

// OnBrokerE2E: a produce request not written or not answered.
func (h watchHooks) OnBrokerE2E(_ kgo.BrokerMetadata, key int16, e2e kgo.BrokerE2E) {
	if err := e2e.Err(); err != nil && key == kmsg.Produce.Int16() {
		h.w.refuseAll(err.Error())
	}
}

// OnBrokerConnect: a broker that cannot be reached.
func (h watchHooks) OnBrokerConnect(meta kgo.BrokerMetadata, _ time.Duration, _ net.Conn, err error) {
	if err != nil {
		h.w.refuseAll(fmt.Sprintf("broker %d (%s:%d): %v", meta.NodeID, meta.Host, meta.Port, err))
	}
}

type watchLogger struct{ w *Watch }

func (l watchLogger) Level() kgo.LogLevel {
	if _, _, d := l.w.longest(); d >= time.Second {
		return kgo.LogLevelDebug
	}
	return kgo.LogLevelNone
}

// The debug line of a produce answer lists each partition's outcome as
// topic[partition{retrying@offset,records(ERROR: message)}, …].
var retryingRe = regexp.MustCompile(`([^\s\[\],]+)\[(?:[^\]]*?)(\d+)\{retrying@-?\d+,\d+\(([^)]*)\)`)

func (l watchLogger) Log(_ kgo.LogLevel, msg string, kv ...any) {
	if msg != "produced" {
		return
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i] != "to" {
			continue
		}
		for _, m := range retryingRe.FindAllStringSubmatch(fmt.Sprint(kv[i+1]), -1) {
			reason := fmt.Sprintf("partition %s: %s", m[2], m[3])
			l.w.topic(m[1]).refusal.Store(&reason)
		}
	}
}
