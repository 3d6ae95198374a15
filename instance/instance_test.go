package instance_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/instance"
	"github.com/ste-utility/ste/instance/api"
	"github.com/ste-utility/ste/instance/lookup"
	"github.com/ste-utility/ste/instance/registry"
	"github.com/ste-utility/ste/internal/testing/brokertest"
	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/processors/matching"
	"github.com/ste-utility/ste/processors/query"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/msgset"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topics/lag"
	"github.com/ste-utility/ste/topology"
	"github.com/ste-utility/ste/trust"
	"github.com/ste-utility/ste/workload"
)

// TestGroupsApartFindEachOtherAndDrain runs validate in one instance and
// identity+match in another, from one $STE_HOME: they get two ids, announce
// themselves with their HTTP addresses, process a set to lag 0 with every
// CLS out, each reports lag only for the partitions it owns, and a clean
// stop takes an instance out of the registry.
func TestGroupsApartFindEachOtherAndDrain(t *testing.T) {
	const ns = "inst"
	ctx, env := brokertest.Namespace(t, ns, 4, 2*time.Minute)
	env.Refdata(t, ctx, refdata.Default())
	brokers, cl, adm := env.Conn, env.Client, env.Admin
	home := t.TempDir()
	signer := &schemas.Signer{BIC: "STEUTLSGXXX", Key: refdata.DemoPrivateKey("STEUTLSGXXX")}
	secret, err := trust.LoadOrCreate(trust.DefaultPath(home))
	if err != nil {
		t.Fatal(err)
	}
	start := func(stages ...topology.Stage) (context.CancelFunc, <-chan error) {
		ictx, stop := context.WithCancel(ctx)
		ready := make(chan struct{})
		done := make(chan error, 1)
		go func() {
			done <- instance.Run(ictx, instance.Options{Kafka: brokers, Namespace: ns, Stages: stages, Signer: signer,
				Verify: true, HTTPAddr: "127.0.0.1:0", LookupAddr: "127.0.0.1:0", Secret: secret, Home: home, Ready: ready,
				Logger:        slog.New(slog.NewTextHandler(io.Discard, nil)),
				RegistryEvery: 200 * time.Millisecond, LagEvery: 200 * time.Millisecond})
		}()
		select {
		case <-ready:
		case err := <-done:
			t.Fatalf("instance of %v stopped: %v", stages, err)
		case <-ctx.Done():
			t.Fatal("not ready")
		}
		return stop, done
	}
	stopV, doneV := start(topology.StageValidate)
	stopM, doneM := start(topology.StageIdentity, topology.StageMatch)

	var list []registry.Entry
	for {
		list, err = registry.List(ctx, brokers, ns)
		if err == nil && len(list) == 2 && list[0].Ready && list[1].Ready {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("registry never listed both ready instances: %+v %v", list, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	byGroups := map[string]registry.Entry{}
	for _, e := range list {
		if e.HTTP == "" || e.Stale || e.Namespace != ns {
			t.Fatalf("entry %+v", e)
		}
		byGroups[strings.Join(e.Groups, ",")] = e
	}
	v, m := byGroups["validate"], byGroups["identity,match"]
	if v.ID == "" || m.ID == "" || v.ID == m.ID {
		t.Fatalf("two instances from one home need two ids: %+v", list)
	}

	var buf bytes.Buffer
	man, err := workload.Generate(workload.Options{Trades: 60, Ref: refdata.Default()}, func(b []byte) error {
		buf.Write(b)
		return buf.WriteByte('\n')
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	set := bytes.Clone(buf.Bytes())
	src, _ := msgset.NewReader(&buf, "set")
	if _, err := topics.Drive(ctx, cl, ns, src, topics.DriveOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := lag.WaitZero(ctx, adm, lag.Groups(ns), lag.WaitOptions{}); err != nil {
		t.Fatal(err)
	}
	cls, err := topics.Dump(ctx, brokers, topology.Names{NS: ns}.CLS(), func(*kgo.Record) error { return nil })
	if err != nil || cls < man.Matched {
		t.Fatalf("at lag 0, %d CLS of %d are out (%v)", cls, man.Matched, err)
	}

	// /status: the validate instance owns validate's partitions and reports
	// lag for those only.
	var st api.Status
	for {
		resp, err := http.Get("http://" + v.HTTP + "/status")
		if err != nil {
			t.Fatal(err)
		}
		st = api.Status{}
		json.NewDecoder(resp.Body).Decode(&st)
		resp.Body.Close()
		if !st.LagAt.IsZero() && len(st.Lag) > 0 || ctx.Err() != nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if st.ID != v.ID || !slices.Equal(st.Assigned["validate"], []int32{0, 1, 2, 3}) || len(st.Assigned) != 1 {
		t.Fatalf("status %+v", st)
	}
	for _, p := range st.Lag {
		if p.Stage != "validate" || p.ClientID != topology.ClientID(v.ID, topology.StageValidate) {
			t.Fatalf("the validate instance reports lag it does not own: %+v", p)
		}
	}
	resp, err := http.Get("http://" + m.HTTP + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{`ste_group_lag{stage="match",topic="inst.v1.accepted"}`, `ste_consumer_lag{partition="0",stage="identity",topic="inst.v1.verdicts"}`,
		"ste_instance_ready 1", `groups="identity,match",instance_id="` + m.ID + `"`} {
		if !bytes.Contains(metrics, []byte(want)) {
			t.Errorf("/metrics of identity+match lacks %s", want)
		}
	}
	if bytes.Contains(metrics, []byte(`stage="validate"`)) {
		t.Error("/metrics of identity+match reports the validate group")
	}
	checkTradeLookup(t, ctx, brokers, ns, secret, v, m, set)

	stopV()
	if err := <-doneV; err != nil {
		t.Fatalf("clean stop: %v", err)
	}
	for {
		list, err = registry.List(ctx, brokers, ns)
		if err == nil && len(list) == 1 && list[0].ID == m.ID {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("a cleanly stopped instance stays listed: %+v", list)
		}
		time.Sleep(100 * time.Millisecond)
	}
	stopM()
	<-doneM
}

// checkTradeLookup: the trade lookups are on the lookup listener only,
// behind the lookup token; through the lookup client (routed by the match
// group) a trade of the set is found by key and by TradeRef, matched with
// its seven messages in force, for the operator and for its parties, and
// for nobody else; a forged registry entry claiming the match group is
// never asked.
func checkTradeLookup(t *testing.T, ctx context.Context, brokers kafkaconn.Config, ns string, secret *trust.Secret, v, m registry.Entry, set []byte) {
	t.Helper()
	var dec schemas.Decoder
	msg, rej := dec.Decode(bytes.SplitN(set, []byte("\n"), 2)[0])
	if rej != nil {
		t.Fatal(rej)
	}
	key := msg.Key.TradeKey()
	if m.Lookup == "" || v.Lookup == "" || m.Lookup == m.HTTP {
		t.Fatalf("lookup listeners not announced apart: %+v %+v", m, v)
	}
	get := func(host, path, token string) int {
		req, _ := http.NewRequest(http.MethodGet, "http://"+host+path, nil)
		if token != "" {
			lookup.Authorize(req, token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	token := secret.Token(lookup.TokenPurpose)
	other, _ := trust.New(bytes.Repeat([]byte{7}, trust.Size))
	for _, c := range []struct {
		host, path, token string
		want              int
	}{
		{m.HTTP, "/trades/" + key.String(), token, http.StatusNotFound}, // not on the metrics listener
		{m.Lookup, "/trades/" + key.String(), "", http.StatusUnauthorized},
		{m.Lookup, "/trades/" + key.String(), other.Token(lookup.TokenPurpose), http.StatusUnauthorized},
		{m.Lookup, "/trades?ref=" + msg.Key.TradeRef, secret.Token("another purpose"), http.StatusUnauthorized},
		{m.Lookup, "/trades/" + key.String(), token, http.StatusOK},
		{m.Lookup, "/trades/0000000000000000", token, http.StatusNotFound},
		{v.Lookup, "/trades/" + key.String(), token, http.StatusNotFound}, // the validate instance holds no trades
	} {
		if got := get(c.host, c.path, c.token); got != c.want {
			t.Errorf("GET %s%s (token %v): %d, want %d", c.host, c.path, c.token != "", got, c.want)
		}
	}

	// A forged entry claiming the match group, its listener counting the
	// requests it gets.
	var forged atomic.Int32
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		forged.Add(1)
		w.Write([]byte(`{"instance":"evil","owned":[0,1,2,3],"trades":[]}`))
	}))
	defer evil.Close()
	cl, err := topics.Connect(ctx, brokers)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	fake := registry.Entry{ID: "evil", Namespace: ns, Groups: []string{"identity", "match"}, HTTP: strings.TrimPrefix(evil.URL, "http://"),
		Lookup: strings.TrimPrefix(evil.URL, "http://"), Ready: true, LastSeen: time.Now().UTC(), Every: 3600}
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: topology.Names{NS: ns}.Instances(), Key: []byte("evil"), Value: fake.Marshal()}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	defer cl.ProduceSync(ctx, &kgo.Record{Topic: topology.Names{NS: ns}.Instances(), Key: []byte("evil")}) // gone again

	lc, err := lookup.New(lookup.Options{Kafka: brokers, Namespace: ns, Token: token})
	if err != nil {
		t.Fatal(err)
	}
	defer lc.Close()
	checkView := func(what string, tr matching.View) {
		t.Helper()
		inForce := 0
		for _, mv := range tr.Messages {
			if mv.InForce {
				inForce++
			}
		}
		if tr.TradeKey != key.String() || tr.State != "matched" || inForce != 7 || len(tr.CLS) != 1 || !tr.CLS[0].Standing || tr.Missing == nil {
			t.Fatalf("%s: trade %+v", what, tr)
		}
	}
	h, ok, err := lc.Find(ctx, key, "")
	if err != nil || !ok || h.Instance != m.ID {
		t.Fatalf("Find: %+v %v %v", h, ok, err)
	}
	checkView("Find", h.Trade)
	hits, err := lc.FindRef(ctx, lookup.Query{Ref: msg.Key.TradeRef})
	if err != nil || len(hits) != 1 || hits[0].Instance != m.ID {
		t.Fatalf("FindRef: %+v %v", hits, err)
	}
	checkView("FindRef", hits[0].Trade)
	for _, party := range []string{msg.Key.Broker, msg.Key.InvMgr} {
		tr, ok, err := lc.Trade(ctx, key.String(), party)
		if err != nil || !ok {
			t.Fatalf("Trade for party %s: %v %v", party, ok, err)
		}
		checkView("Trade", tr)
		vs, err := lc.ByRef(ctx, msg.Key.TradeRef, msg.Key.TradeDate, party)
		if err != nil || len(vs) != 1 {
			t.Fatalf("ByRef for party %s: %d %v", party, len(vs), err)
		}
	}
	if _, ok, err := lc.Trade(ctx, key.String(), "NOTAPARTYXXX"); ok || err != nil {
		t.Fatalf("Trade for a participant that is no party: %v %v", ok, err)
	}
	if vs, err := lc.ByRef(ctx, msg.Key.TradeRef, "", "NOTAPARTYXXX"); len(vs) != 0 || err != nil {
		t.Fatalf("ByRef for a participant that is no party: %d %v", len(vs), err)
	}
	if vs, err := lc.ByRef(ctx, msg.Key.TradeRef, "1999-01-01", msg.Key.Broker); len(vs) != 0 || err != nil {
		t.Fatalf("ByRef of another TradeDate: %d %v", len(vs), err)
	}
	if _, ok, err := lc.Trade(ctx, "not-a-key", msg.Key.Broker); ok || err != nil {
		t.Fatalf("a malformed key: %v %v", ok, err)
	}
	rt, err := lc.Routing(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(rt.Owners) != 1 || rt.Owners[0].ID != m.ID {
		t.Fatalf("routing %+v", rt)
	}
	// The work queue (gateway.md v2 §4c) through the routed lookup: the
	// trade in its parties' queues, in nobody else's.
	for _, party := range []string{msg.Key.Broker, msg.Key.InvMgr, "NOTAPARTYXXX"} {
		var q []query.QueueTrade
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			if q, err = lc.Queue(ctx, query.QueueQuery{Party: party, Limit: 10, Now: time.Now()}); err == nil || time.Now().After(deadline) {
				break // a partition's queue index is built in the background after its recovery
			}
		}
		if err != nil {
			t.Fatalf("Queue for %s: %v", party, err)
		}
		listed := slices.ContainsFunc(q, func(e query.QueueTrade) bool { return e.TradeKey == key.String() })
		if listed != (party != "NOTAPARTYXXX") {
			t.Fatalf("Queue for %s: %+v", party, q)
		}
	}
	if n := forged.Load(); n != 0 {
		t.Fatalf("the forged registry entry was asked %d times", n)
	}
}
