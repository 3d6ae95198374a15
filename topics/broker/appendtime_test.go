package broker_test

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/topics"
)

// Patch 10: a topic whose message.timestamp.type is LogAppendTime has its
// records stamped by the broker on arrival. kfake kept the setting and
// ignored it: every record kept its producer's time, so <ns>.inbound
// (topology: BrokerTime) carried the sender side's clock on the embedded
// broker, and a lookup by time found records by that clock. Two records
// made an hour and half an hour ago go to a topic of each kind: on the
// broker-stamped one the fetch and a lookup by time both say "now"; on the
// other each keeps its own time.
func TestLogAppendTimeStampsOnArrival(t *testing.T) {
	c, cl := onDisk(t, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	adm := kadm.NewClient(cl)
	appendTime := "LogAppendTime"
	for topic, cfg := range map[string]map[string]*string{"stamped": {"message.timestamp.type": &appendTime}, "kept": nil} {
		if _, err := adm.CreateTopic(ctx, 1, 1, cfg, topic); err != nil {
			t.Fatal(err)
		}
	}
	made := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	for _, topic := range []string{"stamped", "kept"} {
		start := time.Now().Truncate(time.Millisecond)
		for i, ago := range []time.Duration{0, 30 * time.Minute} {
			r := &kgo.Record{Topic: topic, Value: []byte{byte(i)}, Timestamp: made.Add(ago)}
			if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
				t.Fatal(err)
			}
		}
		var read []*kgo.Record
		if _, err := topics.Dump(ctx, kafkaconn.Config{Brokers: c.ListenAddrs()}, topic, func(r *kgo.Record) error {
			read = append(read, r)
			return nil
		}); err != nil || len(read) != 2 {
			t.Fatalf("read back %d records of %s, %v", len(read), topic, err)
		}
		// A lookup by a time between the two producers' times.
		lo, err := adm.ListOffsetsAfterMilli(ctx, made.Add(15*time.Minute).UnixMilli(), topic)
		if err != nil {
			t.Fatal(err)
		}
		found, _ := lo.Lookup(topic, 0)
		for i, r := range read {
			stamped := r.Attrs.TimestampType() == 1
			switch {
			case topic == "kept" && (stamped || !r.Timestamp.Equal(made.Add(time.Duration(i)*30*time.Minute))):
				t.Fatalf("kept: record %d read as %v (broker-stamped %v); made %v", i, r.Timestamp, stamped, made.Add(time.Duration(i)*30*time.Minute))
			case topic == "stamped" && (!stamped || r.Timestamp.Before(start)):
				t.Fatalf("stamped: record %d read as %v (broker-stamped %v); sent at or after %v", i, r.Timestamp, stamped, start)
			}
		}
		want := map[string]int64{"kept": 1, "stamped": 0}[topic]
		if found.Err != nil || found.Offset != want {
			t.Fatalf("%s: the first record at or after %v is offset %d (%v), want %d", topic, made.Add(15*time.Minute), found.Offset, found.Err, want)
		}
	}
}
