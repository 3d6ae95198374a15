package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topics/access"
	"github.com/ste-utility/ste/topics/lag"
	"github.com/ste-utility/ste/topology"
)

// TestDeliverPerParticipantFromTheCommandLine (issue 51): the participants'
// Kafka route as an operator runs it — `ste process
// --deliver-per-participant` started from the command line, under the
// processors' own SCRAM user, on an embedded broker with SASL and ACLs
// (deny by default; the users and rules of topics/access, as ste topics
// manifest deploys them). Each of two participants then reads, as its own
// Kafka user, exactly its records of <ns>.outbound from <ns>.out.<BIC>, and
// is refused the other's topic. Before the fix the flag was parsed and
// dropped: no <ns>.out.<BIC> was ever written, and this test timed out
// waiting for one.
func TestDeliverPerParticipantFromTheCommandLine(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a broker and ste process")
	}
	const adminPW, userPW = "Admin-pw-51a", "User-pw-51b"
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.DefaultNumPartitions(2),
		kfake.EnableSASL(), kfake.Superuser(kafkaconn.ScramSHA256, "admin", adminPW), kfake.EnableACLs(),
		kfake.GroupMinSessionTimeout(time.Second),
		kfake.BrokerConfigs(map[string]string{"group.initial.rebalance.delay.ms": "0"}))
	must(t, err)
	defer c.Close()
	addr := c.ListenAddrs()[0]
	as := func(user, pw string) ([]string, kafkaconn.Config) {
		s := kafkaconn.Settings{Brokers: addr, Mechanism: kafkaconn.ScramSHA256, Username: user, Password: kafkaconn.Secret(pw)}
		conn, err := kafkaconn.Load(s)
		must(t, err)
		return []string{"STE_BROKERS=" + addr, "STE_KAFKA_SASL_MECHANISM=" + s.Mechanism, "STE_KAFKA_SASL_USERNAME=" + user,
			"STE_KAFKA_SASL_PASSWORD=" + pw}, conn
	}

	f := prepareFixture(t, addr, 60)
	adminEnv, adminConn := as("admin", adminPW)
	f.env = append(f.env, adminEnv...)
	f.conn = adminConn
	ste(t, f.env, "topics", "create", "--partitions", "2")
	ste(t, f.env, "refdata", "load", "--dir", f.refdata)

	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cl, err := topics.Connect(ctx, adminConn)
	must(t, err)
	defer cl.Close()
	adm := kadm.NewClient(cl)
	// SCRAM users and their ACLs, from the code that renders the manifest.
	addUser := func(p access.Principal) {
		t.Helper()
		res, err := adm.AlterUserSCRAMs(ctx, nil, []kadm.UpsertSCRAM{{User: p.User, Mechanism: kadm.ScramSha256, Iterations: 4096, Password: userPW}})
		if err == nil {
			err = res.Error()
		}
		must(t, err)
		for _, a := range p.ACLs() {
			rs, err := adm.CreateACLs(ctx, a)
			for _, r := range rs {
				err = errors.Join(err, r.Err)
			}
			if err != nil {
				t.Fatalf("ACLs of %s: %v", p.User, err)
			}
		}
	}
	procs := access.Processors(f.ns)
	addUser(procs)
	procEnv, _ := as(procs.User, userPW)

	// The processors, from the command line, under their own user.
	p := startProcess(t, append(append([]string{}, f.env...), procEnv...),
		"--deliver-per-participant", "--tables", "memory")
	f.drive(0)
	if _, err := lag.WaitZero(ctx, adm, lag.Groups(f.ns), lag.WaitOptions{}); err != nil {
		t.Fatalf("not processed: %v\n%s", err, p.log)
	}
	// Then the delivery group has copied outbound (it exists only when the
	// flag reached the processors).
	dctx, dcancel := context.WithTimeout(ctx, time.Minute)
	defer dcancel()
	deliver := lag.Group{Name: topics.DeliveryGroup(f.ns), Stage: "deliver", Topics: []string{topology.Names{NS: f.ns}.Outbound()}}
	if _, err := lag.WaitZero(dctx, adm, []lag.Group{deliver}, lag.WaitOptions{}); err != nil {
		t.Fatalf("outbound not delivered to the participants' topics within a minute of its processing (%v): was --deliver-per-participant dropped?\n%s", err, p.log)
	}

	// <ns>.outbound, read as the administrator: each participant's records.
	want := map[string][]string{}
	_, err = topics.Dump(ctx, adminConn, topology.Names{NS: f.ns}.Outbound(), func(r *kgo.Record) error {
		want[string(r.Key)] = append(want[string(r.Key)], msgIDOf(t, r.Value))
		return nil
	})
	must(t, err)
	var bics []string
	for b := range want {
		bics = append(bics, b)
	}
	sort.Slice(bics, func(i, j int) bool {
		return len(want[bics[i]]) > len(want[bics[j]]) || len(want[bics[i]]) == len(want[bics[j]]) && bics[i] < bics[j]
	})
	if len(bics) < 2 {
		t.Fatalf("outbound holds the outputs of %d participants", len(bics))
	}
	bicA, bicB := bics[0], bics[1]
	for _, b := range []string{bicA, bicB} {
		addUser(access.Participant(f.ns, b))
	}

	// Each participant reads its own topic as its own user.
	read := func(bic, topic string, n int) ([]string, error) {
		_, conn := as(access.UserName(f.ns, bic), userPW)
		pc, err := topics.Client(conn, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
			kgo.ConsumerGroup(access.ParticipantGroupPrefix(f.ns, bic)+"e2e"))
		if err != nil {
			return nil, err
		}
		defer pc.Close()
		var ids []string
		for deadline := time.Now().Add(90 * time.Second); time.Now().Before(deadline) && len(ids) < n; {
			pctx, pcancel := context.WithTimeout(ctx, 3*time.Second)
			fs := pc.PollFetches(pctx)
			pcancel()
			var ferr error
			fs.EachError(func(_ string, _ int32, err error) {
				if !errors.Is(err, context.DeadlineExceeded) {
					ferr = err
				}
			})
			if ferr != nil {
				return ids, ferr
			}
			fs.EachRecord(func(r *kgo.Record) {
				if string(r.Key) != bic {
					t.Errorf("%s holds a record keyed %q", topic, r.Key)
				}
				ids = append(ids, msgIDOf(t, r.Value))
			})
		}
		return ids, nil
	}
	for _, bic := range []string{bicA, bicB} {
		topic := topics.DeliveryTopic(f.ns, bic)
		got, err := read(bic, topic, len(want[bic]))
		if err != nil {
			t.Fatalf("%s reading its own %s: %v", bic, topic, err)
		}
		if fmt.Sprint(got) != fmt.Sprint(want[bic]) {
			t.Errorf("%s read %d records from %s, outbound holds %d for it:\n got %v\nwant %v", bic, len(got), topic, len(want[bic]), got, want[bic])
		}
	}
	// And never the other's.
	if got, err := read(bicA, topics.DeliveryTopic(f.ns, bicB), 1); !errors.Is(err, kerr.TopicAuthorizationFailed) || len(got) > 0 {
		t.Errorf("%s reading %s's topic: %d records, err %v; want TOPIC_AUTHORIZATION_FAILED", bicA, bicB, len(got), err)
	}
	must(t, p.stop(t, syscall.SIGTERM))
}

// msgIDOf is an output's MsgId.
func msgIDOf(t *testing.T, v []byte) string {
	t.Helper()
	_, after, ok := bytes.Cut(v, []byte("<MsgId>"))
	id, _, ok2 := bytes.Cut(after, []byte("</MsgId>"))
	if !ok || !ok2 {
		t.Fatalf("an output without a MsgId: %.200s", v)
	}
	return string(id)
}
