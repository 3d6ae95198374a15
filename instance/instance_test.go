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
	start := func(stages ...pipeline.Stage) (context.CancelFunc, <-chan error) {
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
	stopV, doneV := start(pipeline.StageValidate)
	stopM, doneM := start(pipeline.StageIdentity, pipeline.StageMatch)

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
	src, _ := msgset.NewReader(&buf, "set")
	if _, err := topics.Drive(ctx, cl, ns, src, topics.DriveOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := lag.WaitZero(ctx, adm, lag.Groups(ns), lag.WaitOptions{}); err != nil {
		t.Fatal(err)
	}
	cls, err := topics.Dump(ctx, brokers, pipeline.Names{NS: ns}.CLS(), func(*kgo.Record) error { return nil })
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
		if p.Stage != "validate" || p.ClientID != pipeline.ClientID(v.ID, pipeline.StageValidate) {
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
