package access_test

import (
	"bytes"
	"context"
	"errors"

	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/instance"
	"github.com/ste-utility/ste/internal/testing/kafka"
	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/kafkaconn/testca"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/msgset"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/testgate"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topics/access"
	"github.com/ste-utility/ste/topology"
	"github.com/ste-utility/ste/workload"
)

// TestACLsOnKafka (make acl): on Apache Kafka 4 with the StandardAuthorizer
// (deny by default) and the SCRAM users and ACLs of topics/access created
// by the test, the processors run a set under their own user with
// per-participant delivery; participant A reads its own <ns>.out.A and is
// refused <ns>.out.B and <ns>.outbound, may write <ns>.inbound and may not
// write <ns>.out.A. A rule widened in topics/access (say a prefix for the
// participant's topic) turns a refusal into a read, and the test fails.
func TestACLsOnKafka(t *testing.T) {
	testgate.Opt(t, "acl")
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	ca, err := testca.Write(filepath.Join(t.TempDir(), "ca"), "ste-acl")
	if err != nil {
		t.Fatal(err)
	}
	b := kafka.StartSecure(t, kafka.Secure{Keystore: ca.ServerKeystore, Users: map[string]string{"unused": "unused-pw-1"}, Authorizer: true})
	admin := kafkaconn.Plaintext(b.Bootstrap) // ANONYMOUS: the super user
	acl, err := topics.Connect(ctx, admin)
	if err != nil {
		t.Fatal(err)
	}
	defer acl.Close()
	adm := kadm.NewClient(acl)

	const ns = "acl"
	ref := refdata.Default()
	var buf bytes.Buffer
	_, err = workload.Generate(workload.Options{Trades: 10, Ref: ref}, func(m []byte) error {
		buf.Write(m)
		return buf.WriteByte('\n')
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var dec schemas.Decoder
	first, rej := dec.Decode(bytes.SplitN(buf.Bytes(), []byte("\n"), 2)[0])
	if rej != nil {
		t.Fatal(rej)
	}
	bicA, bicB := first.Key.Broker, first.Key.InvMgr // both get outputs of the set

	if _, err := topics.Create(ctx, adm, ns, topics.Options{Partitions: 2}); err != nil {
		t.Fatal(err)
	}
	if _, err := topics.CreateDelivery(ctx, adm, ns, []string{bicA, bicB}, topics.Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := topics.PublishRefdata(ctx, acl, ns, ref); err != nil {
		t.Fatal(err)
	}
	// The users and their ACLs, from the code that renders the manifest.
	const pw = "Acl-test-pw-7c2e"
	principals := access.Principals(ns, []string{bicA, bicB})
	var ups []kadm.UpsertSCRAM
	for _, p := range principals {
		ups = append(ups, kadm.UpsertSCRAM{User: p.User, Mechanism: kadm.ScramSha512, Iterations: 4096, Password: pw})
		for _, a := range p.ACLs() {
			res, err := adm.CreateACLs(ctx, a)
			if err == nil {
				for _, r := range res {
					err = errors.Join(err, r.Err)
				}
			}
			if err != nil {
				t.Fatalf("ACLs of %s: %v", p.User, err)
			}
		}
	}
	if res, err := adm.AlterUserSCRAMs(ctx, nil, ups); err != nil || res.Error() != nil {
		t.Fatalf("SCRAM users: %v %v", err, res.Error())
	}
	as := func(p access.Principal) kafkaconn.Config {
		c, err := kafkaconn.Load(kafkaconn.Settings{Brokers: b.SecureBootstrap, CAFile: ca.CA,
			Mechanism: kafkaconn.ScramSHA512, Username: p.User, Password: pw})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	procs, partA := principals[0], access.Participant(ns, bicA)
	if procs.Role != access.RoleProcessors {
		t.Fatal("principals[0] is not the processors")
	}

	// The processors, under their own user.
	ictx, stop := context.WithCancel(ctx)
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- instance.Run(ictx, instance.Options{Kafka: as(procs), Namespace: ns, Verify: true,
			DeliverPerParticipant: true, // the participants' topics made on first use (Create on <ns>.out.*)
			Signer:                &schemas.Signer{BIC: refdata.DefaultUtilityBIC, Key: refdata.DemoPrivateKey(refdata.DefaultUtilityBIC)},
			Tables:                instance.TablesMemory, Home: t.TempDir(), Ready: ready,
			Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	}()
	defer func() { stop(); <-done }()
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("the processors did not start under their own user: %v", err)
	case <-ctx.Done():
		t.Fatal("the processors not ready")
	}

	// Participant A sends the set (writing inbound is all it may write).
	clA, err := topics.Client(as(partA))
	if err != nil {
		t.Fatal(err)
	}
	defer clA.Close()
	src, _ := msgset.NewReader(&buf, "set")
	if _, err := topics.Drive(ctx, clA, ns, src, topics.DriveOptions{}); err != nil {
		t.Fatalf("participant A cannot write %s: %v", topology.Names{NS: ns}.Inbound(), err)
	}

	// A reads its own topic: the processors delivered its outputs there.
	read := func(topic string) (int, error) {
		cl, err := topics.Client(as(partA), kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
			kgo.ConsumerGroup(access.ParticipantGroupPrefix(ns, bicA)+"test"))
		if err != nil {
			return 0, err
		}
		defer cl.Close()
		n := 0
		for deadline := time.Now().Add(90 * time.Second); time.Now().Before(deadline) && n == 0; {
			pctx, pc := context.WithTimeout(ctx, 3*time.Second)
			fs := cl.PollFetches(pctx)
			pc()
			var ferr error
			fs.EachError(func(_ string, _ int32, err error) {
				if !errors.Is(err, context.DeadlineExceeded) {
					ferr = err
				}
			})
			if ferr != nil {
				return n, ferr
			}
			n += fs.NumRecords()
		}
		return n, nil
	}
	if n, err := read(topics.DeliveryTopic(ns, bicA)); err != nil || n == 0 {
		t.Fatalf("A reading its own %s: %d records, %v", topics.DeliveryTopic(ns, bicA), n, err)
	}
	for _, topic := range []string{topics.DeliveryTopic(ns, bicB), topology.Names{NS: ns}.Outbound()} {
		if n, err := read(topic); !errors.Is(err, kerr.TopicAuthorizationFailed) || n > 0 {
			t.Errorf("A reading %s: %d records, err %v; want TOPIC_AUTHORIZATION_FAILED", topic, n, err)
		}
	}
	pctx, pc := context.WithTimeout(ctx, 30*time.Second)
	defer pc()
	err = clA.ProduceSync(pctx, &kgo.Record{Topic: topics.DeliveryTopic(ns, bicA), Key: []byte(bicA), Value: []byte("<forged/>")}).FirstErr()
	if !errors.Is(err, kerr.TopicAuthorizationFailed) {
		t.Errorf("A writing its own %s: err %v, want TOPIC_AUTHORIZATION_FAILED", topics.DeliveryTopic(ns, bicA), err)
	}
}
