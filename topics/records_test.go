package topics_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/workload"
)

// PartitionOf is where the producer put each key; ReadRecord finds one
// record by partition and offset and reports one past the end as gone;
// ReadPartitionSince starts at the first record at or after a time.
func TestReadRecordsBack(t *testing.T) {
	ctx := context.Background()
	addr, cl := startBroker(t)
	conn := kafkaconn.Plaintext(addr)
	const topic = "rec.t"
	if _, err := kadm.NewClient(cl).CreateTopic(ctx, 4, 1, nil, topic); err != nil {
		t.Fatal(err)
	}
	base := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	var sent []*kgo.Record
	for i := range 40 {
		r := &kgo.Record{Topic: topic, Key: []byte(fmt.Sprintf("%016x", i*7919)), Value: []byte(fmt.Sprint(i)),
			Timestamp: base.Add(time.Duration(i) * time.Minute)}
		if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
			t.Fatal(err)
		}
		sent = append(sent, r)
	}
	if n, err := topics.Partitions(ctx, kadm.NewClient(cl), topic); err != nil || n != 4 {
		t.Fatalf("partitions %d %v", n, err)
	}
	for _, r := range sent {
		if p := topics.PartitionOf(string(r.Key), 4); p != r.Partition {
			t.Fatalf("key %s: PartitionOf %d, produced to %d", r.Key, p, r.Partition)
		}
	}
	last := sent[len(sent)-1]
	got, err := topics.ReadRecord(ctx, conn, topic, last.Partition, last.Offset)
	if err != nil || string(got.Value) != string(last.Value) {
		t.Fatalf("ReadRecord: %v %v", got, err)
	}
	if _, err := topics.ReadRecord(ctx, conn, topic, last.Partition, last.Offset+1); !errors.Is(err, topics.ErrGone) {
		t.Fatalf("past the end: %v", err)
	}
	// From minute 30 on, in partition p: exactly the records sent then.
	p := sent[35].Partition
	want := 0
	for _, r := range sent[30:] {
		if r.Partition == p {
			want++
		}
	}
	n := 0
	err = topics.ReadPartitionSince(ctx, conn, topic, p, base.Add(30*time.Minute), func(r *kgo.Record) bool {
		if r.Timestamp.Before(base.Add(30 * time.Minute)) {
			t.Errorf("record of %v read", r.Timestamp)
		}
		n++
		return true
	})
	if err != nil || n != want {
		t.Fatalf("since minute 30: %d records, want %d (%v)", n, want, err)
	}
}

// The driver's key, found without decoding, is the decoded message's
// Sender for every message of a generated set that decodes (both mixes,
// forgeries too) and for records written otherwise; a record that does
// not decode is keyed by the BIC its Sender element holds, if any.
func TestInboundKeyOfIsTheDecodedSender(t *testing.T) {
	var recs [][]byte
	for _, o := range []workload.Options{{Trades: 200}, {Trades: 200, Mix: workload.Realistic, Forged: 0.1}} {
		if _, err := workload.Generate(o, func(b []byte) error { recs = append(recs, b); return nil }, nil); err != nil {
			t.Fatal(err)
		}
	}
	recs = append(recs,
		[]byte("not xml"),
		[]byte("<Msg><Header><Sender> BRKASGSGXXX </Sender></Header></Msg>"),
		[]byte("<Msg><Header><Sender>BRKA&#83;GSGXXX</Sender><MsgId>1</MsgId></Header></Msg>"),
		[]byte("<Msg><Header><Sender>not a bic</Sender></Header></Msg>"))
	for _, r := range recs {
		var dec schemas.Decoder
		m, _ := dec.Decode(r)
		got := topics.InboundKeyOf(r)
		if m == nil {
			if got != nil && (!schemas.IsBIC(string(got)) || !bytes.Contains(r, []byte("<Sender>"+string(got)+"</Sender>"))) {
				t.Fatalf("key %q of a record that does not decode: %.120s", got, r)
			}
			continue
		}
		if want := topics.InboundKey(m); !bytes.Equal(got, want) {
			t.Fatalf("key %q, want %q, of %.120s", got, want, r)
		}
	}
}
