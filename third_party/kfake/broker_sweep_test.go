package kfake

import (
	"context"
	"fmt"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"
	"github.com/twmb/franz-go/pkg/sasl/plain"
)

// Regression tests for broker.go. Each TestAudit* below fails before its
// corresponding kgo fix.

func saslPlainOpts(c *Cluster) []kgo.Opt {
	return []kgo.Opt{
		kgo.SeedBrokers(c.ListenAddrs()...),
		kgo.SASL(plain.Auth{User: "admin", Pass: "admin"}.AsMechanism()),
	}
}

// countHandshakes installs an observing fault that counts every
// SASLHandshake the cluster receives.
func countHandshakes(c *Cluster) *FaultHandle {
	return c.Fault(Fault{Keys: []kmsg.Key{kmsg.SASLHandshake}, Observe: true, Count: -1})
}

// discoverBroker returns a Broker handle for the cluster's single broker,
// discovered via a metadata request over the seed connection. All subsequent
// test requests go through this handle so they share one connection whose
// sasl session the test controls.
func discoverBroker(t *testing.T, cl *kgo.Client) *kgo.Broker {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req := kmsg.NewPtrMetadataRequest()
	resp, err := cl.Request(ctx, req)
	if err != nil {
		t.Fatalf("metadata discovery failed: %v", err)
	}
	brokers := resp.(*kmsg.MetadataResponse).Brokers
	if len(brokers) != 1 {
		t.Fatalf("expected 1 broker, got %d", len(brokers))
	}
	return cl.Broker(int(brokers[0].NodeID))
}

// reauthOrderHook tracks, per broker node, how many written requests are
// still awaiting their response, and records a violation if a SASLHandshake
// is ever written while any response is outstanding: a reauth read would race
// the connection's response reader byte-by-byte. Writes and reads for one
// connection are serial on their respective goroutines, so the count is exact
// for tests that drive a single connection per node.
type reauthOrderHook struct {
	mu          sync.Mutex
	outstanding map[int32]int
	violations  []string
}

func newReauthOrderHook() *reauthOrderHook {
	return &reauthOrderHook{outstanding: make(map[int32]int)}
}

func (h *reauthOrderHook) OnBrokerWrite(meta kgo.BrokerMetadata, key int16, _ int, _, _ time.Duration, err error) {
	if err != nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	switch key {
	case 17: // SASLHandshake: must only be written on a quiet connection
		if n := h.outstanding[meta.NodeID]; n > 0 {
			h.violations = append(h.violations,
				fmt.Sprintf("sasl handshake written to node %d with %d responses outstanding", meta.NodeID, n))
		}
	case 36: // SASLAuthenticate: part of the (re)auth flow, not counted
	default:
		h.outstanding[meta.NodeID]++
	}
}

func (h *reauthOrderHook) OnBrokerRead(meta kgo.BrokerMetadata, key int16, _ int, _, _ time.Duration, _ error) {
	if key == 17 || key == 36 {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.outstanding[meta.NodeID] > 0 {
		h.outstanding[meta.NodeID]--
	}
}

func (h *reauthOrderHook) OnBrokerDisconnect(meta kgo.BrokerMetadata, _ net.Conn) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.outstanding[meta.NodeID] = 0
}

func (h *reauthOrderHook) takeViolations() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.violations
}

// A sasl reauthentication (KIP-368) reads the handshake response on the
// broker's request-handling goroutine. Before the fix, it did so even while a
// pipelined response was in flight, racing handleResps byte-by-byte on the
// shared connection: both readers got fragments of each other's responses and
// every in-flight request failed. The fix parks requests for the connection
// while its pipeline drains (sustained traffic would otherwise never leave
// the connection quiet), reauthenticates once the last in-flight response is
// read, and then replays the parked requests in order.
//
// Flow: request A is stalled server-side past the session expiry; request B
// arrives after expiry while A's response is in flight. Pre-fix, B's handleReq
// writes the reauth handshake immediately - while A is outstanding - which the
// reauthOrderHook flags deterministically (the byte-level corruption itself
// depends on kernel reader-wakeup ordering and only sometimes fires). With
// the fix, B parks, the reauth runs only after A's response drains, and B is
// replayed after it: by the time B completes, exactly one reauth handshake
// has happened and no handshake ever overlapped an outstanding response. A
// postpone-only approach also fails here: B would complete with no reauth
// having happened at all.
func TestAuditSaslReauthPipelinedNoCorruption(t *testing.T) {
	t.Parallel()
	c := newCluster(t,
		NumBrokers(1),
		EnableSASL(),
		Superuser("PLAIN", "admin", "admin"),
		// Lifetime 2s; the client's minimum pessimism is 1s, so the
		// client schedules reauth ~1s after authenticating.
		BrokerConfigs(map[string]string{"connections.max.reauth.ms": "2000"}),
	)
	handshakes := countHandshakes(c)

	// Stall the response to a metadata request for the marker topic. The
	// control is left installed (unhandled returns keep it); only the
	// marker request matches.
	const stallTopic = "stallme"
	c.ControlKey(3, func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		req := kreq.(*kmsg.MetadataRequest)
		if len(req.Topics) == 1 && req.Topics[0].Topic != nil && *req.Topics[0].Topic == stallTopic {
			c.SleepControl(func() { time.Sleep(1500 * time.Millisecond) })
		}
		return nil, nil, false
	})

	hook := newReauthOrderHook()
	cl := newPlainClient(t, c, append(saslPlainOpts(c), kgo.WithHooks(hook))...)
	br := discoverBroker(t, cl)

	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()

	// Warm the broker connection; its sasl session starts now and the
	// client considers it expired ~1s from now.
	if _, err := br.Request(ctx, kmsg.NewPtrMetadataRequest()); err != nil {
		t.Fatalf("warm request failed: %v", err)
	}
	base := handshakes.Hits()

	// A: stalled server-side for 1.5s; its response is in flight across
	// the expiry boundary.
	errA := make(chan error, 1)
	go func() {
		req := kmsg.NewPtrMetadataRequest()
		reqTopic := kmsg.NewMetadataRequestTopic()
		topic := stallTopic
		reqTopic.Topic = &topic
		req.Topics = append(req.Topics, reqTopic)
		_, err := br.Request(ctx, req)
		errA <- err
	}()

	// B: crosses the expiry while A's response is pending; it must park,
	// and the reauth+replay happens once A's response drains.
	time.Sleep(1200 * time.Millisecond)
	errB := make(chan error, 1)
	go func() {
		_, err := br.Request(ctx, kmsg.NewPtrMetadataRequest())
		errB <- err
	}()

	for name, ch := range map[string]chan error{"A (stalled)": errA, "B (crossed expiry)": errB} {
		select {
		case err := <-ch:
			if err != nil {
				t.Errorf("request %s failed: %v", name, err)
			}
		case <-time.After(8 * time.Second):
			t.Errorf("request %s did not complete", name)
		}
	}

	// No reauth handshake may ever overlap an outstanding response: this
	// catches the original in-place reauth deterministically (B's
	// handshake was written while A was in flight, whether or not the
	// kernel interleaved the response bytes).
	for _, v := range hook.takeViolations() {
		t.Errorf("read-ownership violation: %s", v)
	}

	// B completing means the parked request was replayed, which happens
	// only after the drain-triggered reauthentication: exactly one reauth
	// handshake must exist by now. A postpone-only behavior fails here
	// with zero reauths (B would have been issued on the old session and
	// nothing afterward reauthenticated).
	if got := handshakes.Hits(); got != base+1 {
		t.Errorf("expected exactly one reauthentication handshake once the parked request completed: handshakes went %d -> %d", base, got)
	}
}

// acks=0 produce connections run the discard goroutine, which owns all reads
// on the connection. Before the fix, a produce request crossing the session
// expiry reauthenticated in place: the discard goroutine consumed the
// handshake response bytes, the reauth read timed out, and the connection
// died (the produce then succeeded only via a slow retry on a fresh
// connection). After the fix, loadConnection recreates an expired discard
// connection up front, so the produce proceeds immediately on a freshly
// authenticated connection.
func TestAuditSaslReauthAcks0DiscardConn(t *testing.T) {
	t.Parallel()
	c := newCluster(t,
		NumBrokers(1),
		EnableSASL(),
		Superuser("PLAIN", "admin", "admin"),
		SeedTopics(1, "t0"),
		BrokerConfigs(map[string]string{"connections.max.reauth.ms": "2000"}),
	)

	opts := append(saslPlainOpts(c),
		kgo.RequiredAcks(kgo.NoAck()),
		kgo.DisableIdempotentWrite(),
		kgo.DefaultProduceTopic("t0"),
		// Bound the pre-fix failure mode: the reauth read that loses
		// its response to the discard goroutine fails at this read
		// timeout (and the produce then retries on a new connection).
		kgo.RequestTimeoutOverhead(2*time.Second),
	)
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()

	// First produce: opens the produce connection (sasl session starts;
	// client-side expiry ~1s from now) and spawns the discard goroutine.
	if err := cl.ProduceSync(ctx, kgo.StringRecord("r1")).FirstErr(); err != nil {
		t.Fatalf("first produce failed: %v", err)
	}

	// Cross the expiry, then produce again. Post-fix this recreates the
	// connection and completes in milliseconds; pre-fix it burns the 2s
	// read timeout before recovering on a retry.
	time.Sleep(1300 * time.Millisecond)
	start := time.Now()
	if err := cl.ProduceSync(ctx, kgo.StringRecord("r2")).FirstErr(); err != nil {
		t.Errorf("second produce failed: %v", err)
	}
	if elapsed := time.Since(start); elapsed > 1500*time.Millisecond {
		t.Errorf("second produce took %v; reauthentication raced the discard goroutine (expected immediate completion on a recreated connection)", elapsed)
	}
}

// concReadConn wraps a net.Conn and records whether two goroutines were ever
// inside Read on the SAME connection at once. inRead is per-connection; saw is
// shared across all dialed connections so the test can assert no connection
// ever had concurrent readers.
type concReadConn struct {
	net.Conn
	inRead atomic.Int32
	saw    *atomic.Bool
}

func (c *concReadConn) Read(p []byte) (int, error) {
	if c.inRead.Add(1) >= 2 {
		c.saw.Store(true)
	}
	defer c.inRead.Add(-1)
	return c.Conn.Read(p)
}

// An acks=0 produce connection runs the discard goroutine, which owns all reads
// on the connection (no promisedResp is ever pushed for acks=0 produce). Before
// the fix, EnsureProduceConnectionIsOpen issued a force-open request that, after
// loadConnection opened+inited the connection (spawning the discard goroutine),
// was rewritten to an ApiVersions request and sent through waitResp -- starting
// a handleResps reader that raced the discard goroutine on the same socket (the
// two io.ReadFulls split one byte stream). This is the same concurrent-reader
// hazard the reauth path already avoids; the force-open arm just predated the
// hasDiscard mechanism. The fix reports success without probing a discard
// connection (init already proved it works).
//
// The ApiVersions response is delayed so the discard read and the force-open
// read are reliably both blocked at once, making the race deterministic rather
// than dependent on which reader the kernel happens to wake first.
func TestAuditEnsureProduceConnectionAcks0NoConcurrentRead(t *testing.T) {
	t.Parallel()
	c := newCluster(t, NumBrokers(1))

	c.ControlKey(18, func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		c.SleepControl(func() { time.Sleep(300 * time.Millisecond) })
		return nil, nil, false
	})

	var saw atomic.Bool
	dialer := func(ctx context.Context, network, host string) (net.Conn, error) {
		conn, err := (&net.Dialer{}).DialContext(ctx, network, host)
		if err != nil {
			return nil, err
		}
		return &concReadConn{Conn: conn, saw: &saw}, nil
	}

	cl := newPlainClient(t, c,
		kgo.RequiredAcks(kgo.NoAck()),
		kgo.DisableIdempotentWrite(),
		kgo.Dialer(dialer),
		// Bound the pre-fix symptom: the force-open read that loses its
		// response to the discard goroutine blocks until this read timeout
		// (well above the 300ms response delay), so the test fails promptly
		// instead of hanging to the context deadline.
		kgo.RequestTimeoutOverhead(3*time.Second),
	)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	err := cl.EnsureProduceConnectionIsOpen(ctx)

	// The concurrent-read detector is the direct signal of the bug; check it
	// first so the pre-fix failure reports the race rather than the
	// downstream connection error.
	if saw.Load() {
		t.Error("a second reader raced the discard goroutine on the acks=0 produce connection: the force-open request must not issue a response-expecting request on a discard-owned connection")
	}
	// Post-fix the force-open reports success without probing; pre-fix the
	// raced read corrupts the connection and this errors too.
	if err != nil {
		t.Errorf("EnsureProduceConnectionIsOpen failed: %v", err)
	}
}

// A broker replying UNSUPPORTED_VERSION to ApiVersions with a KIP-511 version
// hint that is not strictly lower than what we sent kept the client in the
// downgrade-retry loop forever - and connection init runs on no request
// context, so the initiating request hung until client close. The fix only
// accepts a strictly-lower non-negative hint and fails the connection
// otherwise.
func TestAuditApiVersionsDowngradeLoopTerminates(t *testing.T) {
	t.Parallel()
	c := newCluster(t, NumBrokers(1))

	// Always reply UNSUPPORTED_VERSION advertising max version 4 -- the
	// same version the client starts with, so a downgrade never happens.
	c.ControlKey(18, func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		req := kreq.(*kmsg.ApiVersionsRequest)
		resp := req.ResponseKind().(*kmsg.ApiVersionsResponse)
		resp.Version = 0
		resp.ErrorCode = 35 // UNSUPPORTED_VERSION
		key := kmsg.NewApiVersionsResponseApiKey()
		key.ApiKey = 18
		key.MinVersion = 0
		key.MaxVersion = 4
		resp.ApiKeys = append(resp.ApiKeys, key)
		return resp, nil, true
	})

	cl := newPlainClient(t, c)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	errCh := make(chan error, 1)
	go func() {
		_, err := cl.Request(ctx, kmsg.NewPtrMetadataRequest())
		errCh <- err
	}()
	select {
	case err := <-errCh:
		if err == nil {
			t.Error("expected the request to fail against a broker that never accepts our ApiVersions version")
		}
	case <-time.After(8 * time.Second):
		t.Fatal("ApiVersions downgrade loop did not terminate")
	}
}

// A reauthentication whose SaslAuthenticate response carries no session
// lifetime (re-auth was disabled, e.g. by a dynamic broker config change)
// must clear the connection's expiry. Before the fix the old, already-passed
// expiry stuck around and every subsequent request on the connection re-ran
// the full handshake+authenticate flow first.
func TestAuditSaslReauthLifetimeClearedWhenDisabled(t *testing.T) {
	t.Parallel()
	c := newCluster(t,
		NumBrokers(1),
		EnableSASL(),
		Superuser("PLAIN", "admin", "admin"),
		// Lifetime 1.5s => client expiry ~0.5s after authenticating
		// (1s minimum pessimism).
		BrokerConfigs(map[string]string{"connections.max.reauth.ms": "1500"}),
	)
	handshakes := countHandshakes(c)

	cl := newPlainClient(t, c, saslPlainOpts(c)...)
	br := discoverBroker(t, cl)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	// Warm the broker connection; its session carries the 1.5s lifetime.
	if _, err := br.Request(ctx, kmsg.NewPtrMetadataRequest()); err != nil {
		t.Fatalf("warm request failed: %v", err)
	}

	// Disable reauthentication broker-side.
	alter := kmsg.NewPtrIncrementalAlterConfigsRequest()
	res := kmsg.NewIncrementalAlterConfigsRequestResource()
	res.ResourceType = kmsg.ConfigResourceTypeBroker
	cfg := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
	cfg.Name = "connections.max.reauth.ms"
	cfg.Value = new("0")
	res.Configs = append(res.Configs, cfg)
	alter.Resources = append(alter.Resources, res)
	alterResp, err := br.Request(ctx, alter)
	if err != nil {
		t.Fatalf("alter configs failed: %v", err)
	}
	if ec := alterResp.(*kmsg.IncrementalAlterConfigsResponse).Resources[0].ErrorCode; ec != 0 {
		t.Fatalf("alter configs error code %d", ec)
	}

	// Cross the expiry; this request reauthenticates and its authenticate
	// response now carries no lifetime.
	time.Sleep(700 * time.Millisecond)
	if _, err := br.Request(ctx, kmsg.NewPtrMetadataRequest()); err != nil {
		t.Fatalf("reauth-triggering request failed: %v", err)
	}
	base := handshakes.Hits()

	// Subsequent requests must not re-handshake: the expiry was cleared.
	for i := 0; i < 3; i++ {
		if _, err := br.Request(ctx, kmsg.NewPtrMetadataRequest()); err != nil {
			t.Fatalf("request %d failed: %v", i, err)
		}
	}
	if got := handshakes.Hits(); got != base {
		t.Errorf("connection kept reauthenticating after the broker stopped requiring it: handshakes went %d -> %d across 3 plain requests", base, got)
	}
}

// kgo names the cluster and node on every connection to a broker it learned
// from metadata and neither on a seed connection (KIP-1242). A broker
// answering REBOOTSTRAP_REQUIRED to that ApiVersions means the address we
// have for the node belongs to some other broker: kgo drops every discovered
// broker, rediscovers the cluster from the seeds (through
// OnRebootstrapRequired if set), and the request that opened the connection
// retries to success.
func TestApiVersionsRebootstrapRequired(t *testing.T) {
	t.Parallel()
	for _, withFn := range []bool{false, true} {
		name := "default"
		if withFn {
			name = "OnRebootstrapRequired"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := newCluster(t, NumBrokers(2), ClusterID("kip-1242"))

			// Reject the first connection that names a node; accept
			// and count every one after it.
			var mu sync.Mutex
			var seeds int
			var wrong []string
			var injected atomic.Bool
			var acceptedAfter atomic.Int32
			c.ControlKey(18, func(kreq kmsg.Request) (kmsg.Response, error, bool) {
				c.KeepControl()
				req := kreq.(*kmsg.ApiVersionsRequest)
				switch {
				case req.ClusterID == nil && req.NodeID == -1:
					mu.Lock()
					seeds++
					mu.Unlock()
					return nil, nil, false
				case req.ClusterID == nil || *req.ClusterID != "kip-1242" || req.NodeID < 0:
					mu.Lock()
					wrong = append(wrong, fmt.Sprintf("v%d cluster=%v node=%d", req.Version, req.ClusterID, req.NodeID))
					mu.Unlock()
					return nil, nil, false
				}
				if injected.CompareAndSwap(false, true) {
					resp := req.ResponseKind().(*kmsg.ApiVersionsResponse)
					resp.ErrorCode = kerr.RebootstrapRequired.Code
					return resp, nil, true
				}
				acceptedAfter.Add(1)
				return nil, nil, false
			})

			var rebootstraps atomic.Int32
			var opts []kgo.Opt
			if withFn {
				opts = append(opts, kgo.OnRebootstrapRequired(func() ([]string, error) {
					rebootstraps.Add(1)
					return c.ListenAddrs(), nil
				}))
			}
			cl := newPlainClient(t, c, opts...)
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			defer cancel()

			// The first request opens a seed connection. The request
			// pinned to a discovered broker opens the connection that
			// is rejected; the client rebootstraps and the request
			// retries.
			meta, err := cl.Request(ctx, kmsg.NewPtrMetadataRequest())
			if err != nil {
				t.Fatalf("metadata: %v", err)
			}
			node := meta.(*kmsg.MetadataResponse).Brokers[0].NodeID
			if _, err := cl.Broker(int(node)).RetriableRequest(ctx, kmsg.NewPtrMetadataRequest()); err != nil {
				t.Fatalf("request to broker %d after a rebootstrap: %v", node, err)
			}

			mu.Lock()
			defer mu.Unlock()
			if seeds == 0 {
				t.Error("no seed connection sent ApiVersions without a cluster and node")
			}
			if len(wrong) > 0 {
				t.Errorf("ApiVersions requests naming only one of cluster and node, or the wrong cluster: %v", wrong)
			}
			if !injected.Load() {
				t.Fatal("no ApiVersions request named a node, nothing was rejected")
			}
			if acceptedAfter.Load() == 0 {
				t.Error("no connection named a node after the rebootstrap; the client did not rediscover the cluster")
			}
			var wantFn int32
			if withFn {
				wantFn = 1
			}
			if got := rebootstraps.Load(); got != wantFn {
				t.Errorf("OnRebootstrapRequired was called %d times, want %d", got, wantFn)
			}
		})
	}
}

// A connection to a broker we connected to before begins ApiVersions at the
// max version that broker told us, so a pre-4.4 broker pays the
// UNSUPPORTED_VERSION round trip once rather than on every connection. An
// hour after we last asked at our own max, the next connection asks at it
// again, so a broker upgraded in place is asked to check the cluster and node
// we expect (KIP-1242). Connections in between must not reset that hour.
//
// The idle reaper closes connections between requests, so every request
// after a sleep opens a new one. synctest advances the clock instantly.
func TestApiVersionsCachedStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var stack VirtualNetwork
		c, err := NewCluster(
			NumBrokers(1),
			Ports(19242),
			MaxVersions(kversion.V4_3_0()), // ApiVersions max 4
			ListenFn(stack.Listen),
		)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()

		var mu sync.Mutex
		var versions []int16
		c.ControlKey(18, func(kreq kmsg.Request) (kmsg.Response, error, bool) {
			c.KeepControl()
			mu.Lock()
			versions = append(versions, kreq.GetVersion())
			mu.Unlock()
			return nil, nil, false
		})
		take := func() []int16 {
			mu.Lock()
			defer mu.Unlock()
			got := versions
			versions = nil
			return got
		}

		// The metadata refresh at one hour must land inside the hour
		// since we learned the broker's versions, not on its edge, so
		// the first request waits a second after the client starts.
		cl, err := kgo.NewClient(
			kgo.SeedBrokers(c.ListenAddrs()...),
			kgo.Dialer(stack.DialContext),
			kgo.MetadataMaxAge(time.Hour),
		)
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close()
		time.Sleep(time.Second)

		ctx := context.Background()
		request := func() {
			t.Helper()
			if _, err := cl.Broker(0).RetriableRequest(ctx, kmsg.NewPtrMetadataRequest()); err != nil {
				t.Fatal(err)
			}
		}

		// The seed connection and the first connection to the
		// discovered broker each ask at v5 and are told v4.
		if _, err := cl.Request(ctx, kmsg.NewPtrMetadataRequest()); err != nil {
			t.Fatal(err)
		}
		request()
		if got := take(); !slices.Equal(got, []int16{5, 4, 5, 4}) {
			t.Fatalf("first connections sent ApiVersions %v, want [5 4 5 4]", got)
		}

		// A new connection within the hour begins at v4.
		time.Sleep(time.Minute)
		request()
		if got := take(); !slices.Equal(got, []int16{4}) {
			t.Fatalf("connection within the hour sent ApiVersions %v, want [4]", got)
		}

		// The metadata refresh at one hour opens a connection that also
		// begins at v4 and must not count as asking at our max. Past the
		// hour since we did, the next connection asks at v5 again.
		time.Sleep(time.Hour)
		if got := take(); !slices.Equal(got, []int16{4}) {
			t.Fatalf("metadata refresh within the hour sent ApiVersions %v, want [4]", got)
		}
		request()
		if got := take(); !slices.Equal(got, []int16{5, 4}) {
			t.Fatalf("connection after the hour sent ApiVersions %v, want [5 4]", got)
		}
	})
}

// A user-built ApiVersionsRequest literal has NodeID 0 rather than kmsg's
// default of -1, which a v5 broker rejects as a node named without a
// cluster. kgo unsets NodeID when ClusterID is unset, the way it fills a
// missing software name.
func TestApiVersionsLiteralRequest(t *testing.T) {
	t.Parallel()
	c := newCluster(t, NumBrokers(1))
	cl := newPlainClient(t, c)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	kresp, err := cl.Request(ctx, &kmsg.ApiVersionsRequest{ClientSoftwareName: "kgo", ClientSoftwareVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	resp := kresp.(*kmsg.ApiVersionsResponse)
	if resp.Version < 5 {
		t.Fatalf("request went out at v%d, want v5+", resp.Version)
	}
	if resp.ErrorCode != 0 || len(resp.ApiKeys) == 0 {
		t.Fatalf("got error code %d with %d keys, want no error and the key table", resp.ErrorCode, len(resp.ApiKeys))
	}
}
