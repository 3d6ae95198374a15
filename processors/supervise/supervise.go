// Package supervise runs a goka processor group again and again: a group
// that fails in a way a restart can mend (a broker restarting, a network
// error, a rebalance gone wrong) is rebuilt with capped exponential
// backoff and jitter, one that fails in a way no restart can mend
// (Permanent) is given up, and one that cannot start while no broker
// answers is given up after a start budget.
package supervise

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"time"

	"github.com/IBM/sarama"
	"github.com/lovoo/goka"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/kafkaconn"
)

// Backoff is the delay before a failed group is restarted: Base doubled per
// failure in a row up to Max, drawn between half and all of it (jitter, so
// that instances failing together — a broker restart — do not come back in
// lock step). A group that ran for Reset before failing starts again from
// Base. A group that has never run is given up after Start if the cluster
// then answers nothing.
type Backoff struct {
	Base, Max, Reset, Start time.Duration
}

// DefaultRestart: 250 ms, 500 ms, 1 s, then every 2 s at most; a minute of
// running forgives; a group that cannot start for 25 s while the cluster answers
// nothing fails Run. The start budget rides out a broker restarting as the
// instance starts (the Kafka JVM took up to 22 s here); a group refused for
// longer by a cluster that does not answer — credentials it cannot use,
// brokers gone as it started — is an error to see at once
// (docs/spec/cli.md: an unreachable service is a non-zero exit), since the
// instance had reached the brokers just before. While any broker answers,
// a group that cannot start yet (its coordinator, or a partition's leader,
// on a node that is down) waits for the cluster to heal: a node of a
// cluster takes longer than the budget to come back, and an instance
// restarted meanwhile must not exit. Once a group has run, it is restarted
// for ever.
//
// The cap is short because a group fails over and over while a Kafka node
// is lost and not yet fenced (its coordinator or a partition's leader does
// not answer for broker.session.timeout.ms), and must be back soon after
// the cluster heals: with 1 s doubling to 30 s, the restart that followed
// the fencing came up to 20 s later, and a leader loss on Kafka 4 stalled a
// group for 11–28 s (docs/benchmarks.md, "Kafka 4: the brokers' rolling
// restart"). A restart that meets a cluster still down fails fast (a
// refused connection) or waits out sarama's metadata retries (~9 s,
// gokaconf), so a long outage costs a warning every few seconds per group.
var DefaultRestart = Backoff{Base: 250 * time.Millisecond, Max: 2 * time.Second, Reset: time.Minute, Start: 25 * time.Second}

// OrDefault fills the zero fields from DefaultRestart.
func (b Backoff) OrDefault() Backoff {
	d := DefaultRestart
	for _, f := range []struct{ v, def *time.Duration }{{&b.Base, &d.Base}, {&b.Max, &d.Max}, {&b.Reset, &d.Reset}, {&b.Start, &d.Start}} {
		if *f.v <= 0 {
			*f.v = *f.def
		}
	}
	return b
}

// Delay is the wait before restart number n (0-based) of a failure streak.
func (b Backoff) Delay(n int) time.Duration {
	d := b.Base
	for i := 0; i < n && d < b.Max; i++ {
		d *= 2
	}
	d = min(d, b.Max)
	return d/2 + rand.N(d/2+1)
}

// Permanent reports an error no restart can mend, which ends `ste process`:
// another process runs under this instance id (the coordinator fenced us),
// the broker refused our credentials or rights, or the configuration or the
// topics are wrong. Everything else — connections lost, a broker restarting,
// timeouts, a rebalance that went wrong — is transient.
func Permanent(err error) bool {
	for _, kerr := range []error{sarama.ErrFencedInstancedId, sarama.ErrSASLAuthenticationFailed,
		sarama.ErrTopicAuthorizationFailed, sarama.ErrGroupAuthorizationFailed,
		sarama.ErrClusterAuthorizationFailed, sarama.ErrInvalidSessionTimeout,
		sarama.ErrInconsistentGroupProtocol, sarama.ErrInvalidGroupId} {
		if errors.Is(err, kerr) {
			return true
		}
	}
	// The same refusals from franz-go (goka's topic manager is on franz-go:
	// gokaconf.TopicManagerBuilder).
	for _, e := range []error{kerr.SaslAuthenticationFailed, kerr.TopicAuthorizationFailed,
		kerr.GroupAuthorizationFailed, kerr.ClusterAuthorizationFailed} {
		if errors.Is(err, e) {
			return true
		}
	}
	var cfgErr sarama.ConfigurationError
	if errors.As(err, &cfgErr) {
		return true
	}
	// goka formats these with %v: only the text is left of them.
	msg := err.Error()
	return strings.Contains(msg, "not copartitioned") || strings.Contains(msg, "partition gap")
}

// Group runs one group's processor again and again until ctx ends or it
// fails permanently. A goka processor runs once: each restart builds a new
// one, which rebuilds the group's tables from their changelogs.
type Group struct {
	Backoff Backoff
	Log     *slog.Logger
	Build   func() (*goka.Processor, error)
	// Answers says whether any broker of the cluster answers now (nil:
	// none is asked, the start budget alone decides).
	Answers func(ctx context.Context) bool
	OnUp    func()                                   // the group's tables recovered, it runs
	OnFail  func(err error, restartIn time.Duration) // it failed, and restarts after the delay
	ran     atomic.Bool                              // the group has been up at least once
}

// Run runs the group until ctx ends (nil) or it fails permanently.
func (s *Group) Run(ctx context.Context) error {
	streak := 0
	first := time.Now()
	for {
		started := time.Now()
		err := s.once(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if err == nil {
			err = errors.New("processor stopped on its own")
		}
		if Permanent(err) {
			return err
		}
		if !s.ran.Load() && time.Since(first) >= s.Backoff.Start && (s.Answers == nil || !s.Answers(ctx)) {
			return fmt.Errorf("did not start in %v (%d attempts): %w", time.Since(first).Round(time.Second), streak+1, err)
		}
		if time.Since(started) >= s.Backoff.Reset {
			streak = 0
		}
		wait := s.Backoff.Delay(streak)
		streak++
		s.Log.Warn("group failed, restarting", "err", oneLine(err), "restart", streak, "in", wait.Round(time.Millisecond))
		s.OnFail(err, wait)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
	}
}

// once builds and runs the processor until it stops.
func (s *Group) once(ctx context.Context) error {
	p, err := s.Build()
	if err != nil {
		return err
	}
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		if p.WaitForReadyContext(pctx) == nil && p.Recovered() {
			s.ran.Store(true)
			s.OnUp()
		}
	}()
	err = p.Run(pctx)
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		return nil
	}
	return err
}

// oneLine folds goka's multi-line errors (multierror lists, stack traces of
// panics) into one log line.
func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

// ClusterAnswers says whether any broker of c answers a metadata request
// within 5 s, logged in with c's credentials (Group.Answers).
func ClusterAnswers(ctx context.Context, c kafkaconn.Config) bool {
	cl, err := kgo.NewClient(c.Opts()...)
	if err != nil {
		return false
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	return cl.Ping(ctx) == nil
}

// Leave takes the static member instanceID out of the groups (after a
// clean stop of a one-shot run, whose partitions and groups are then free
// when it returns).
func Leave(k kafkaconn.Config, groups []string, instanceID string, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cl, err := kgo.NewClient(k.Opts()...)
	if err == nil {
		defer cl.Close()
		adm := kadm.NewClient(cl)
		for _, g := range groups {
			var resp kadm.LeaveGroupResponses
			if resp, err = adm.LeaveGroup(ctx, kadm.LeaveGroup(g).InstanceIDs(instanceID).Reason("the instance stopped")); err == nil {
				err = resp.Error()
			}
			if err != nil {
				break
			}
		}
	}
	if err != nil {
		log.Warn("groups not left: the partitions move when the session times out", "instance", instanceID, "err", err)
	}
}
