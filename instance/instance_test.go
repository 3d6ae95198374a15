package instance_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/instance"
	"github.com/ste-utility/ste/instance/registry"
	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/processors/pipeline"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/msgset"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topics/broker"
	"github.com/ste-utility/ste/topics/lag"
	"github.com/ste-utility/ste/topology"
	"github.com/ste-utility/ste/workload"
)

// TestGroupsApartFindEachOtherAndDrain runs validate in one instance and
// identity+match in another, from one $STE_HOME: they get two ids, announce
// themselves with their HTTP addresses, process a set to lag 0 with every
// CLS out, each reports lag only for the partitions it owns, and a clean
// stop takes an instance out of the registry.
func TestGroupsApartFindEachOtherAndDrain(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a broker and two instances")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := broker.Start(broker.Options{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	brokers := kafkaconn.Plaintext(broker.Addr(c))
	const ns = "inst"
	cl, err := topics.Connect(ctx, brokers)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	if _, err := topics.Create(ctx, adm, ns, topics.Options{Partitions: 4}); err != nil {
		t.Fatal(err)
	}
	if _, err := topics.PublishRefdata(ctx, cl, ns, refdata.Default()); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	signer := &schemas.Signer{BIC: "STEUTLSGXXX", Key: refdata.DemoPrivateKey("STEUTLSGXXX")}
	start := func(stages ...topology.Stage) (context.CancelFunc, <-chan error) {
		ictx, stop := context.WithCancel(ctx)
		ready := make(chan struct{})
		done := make(chan error, 1)
		go func() {
			done <- instance.Run(ictx, instance.Options{Kafka: brokers, Namespace: ns, Stages: stages, Signer: signer,
				Verify: true, HTTPAddr: "127.0.0.1:0", Home: home, Ready: ready,
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
	var st instance.Status
	for {
		resp, err := http.Get("http://" + v.HTTP + "/status")
		if err != nil {
			t.Fatal(err)
		}
		st = instance.Status{}
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
		if p.Stage != "validate" || p.ClientID != pipeline.ClientID(v.ID, topology.StageValidate) {
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
	checkTradeLookup(t, v, m, set)

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

// checkTradeLookup: the match instance answers /trades for a trade of the
// set by key and by TradeRef, matched with its seven messages in force; the
// validate instance holds no trades; an unknown key is a 404.
func checkTradeLookup(t *testing.T, v, m registry.Entry, set []byte) {
	t.Helper()
	var dec schemas.Decoder
	msg, rej := dec.Decode(bytes.SplitN(set, []byte("\n"), 2)[0])
	if rej != nil {
		t.Fatal(rej)
	}
	key := msg.Key.TradeKey().String()
	get := func(host, path string) (int, instance.TradeAnswer) {
		resp, err := http.Get("http://" + host + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var ans instance.TradeAnswer
		json.NewDecoder(resp.Body).Decode(&ans)
		return resp.StatusCode, ans
	}
	for _, path := range []string{"/trades/" + key, "/trades?ref=" + msg.Key.TradeRef} {
		code, ans := get(m.HTTP, path)
		if code != http.StatusOK || ans.Instance != m.ID || len(ans.Trades) != 1 {
			t.Fatalf("%s: %d %+v", path, code, ans)
		}
		tr := ans.Trades[0].Trade
		inForce := 0
		for _, mv := range tr.Messages {
			if mv.InForce {
				inForce++
			}
		}
		if tr.TradeKey != key || tr.State != "matched" || inForce != 7 || len(tr.CLS) != 1 || !tr.CLS[0].Standing {
			t.Fatalf("%s: trade %+v", path, tr)
		}
	}
	if code, _ := get(m.HTTP, "/trades/0000000000000000"); code != http.StatusNotFound {
		t.Fatalf("unknown trade: %d", code)
	}
	if code, _ := get(v.HTTP, "/trades/"+key); code != http.StatusNotFound {
		t.Fatalf("the validate instance answered a trade lookup: %d", code)
	}
}
