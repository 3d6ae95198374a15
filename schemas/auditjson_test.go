package schemas

import (
	"encoding/json"
	"math"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"time"
)

// Marshal and ParseAuditEvent are one codec: what is written reads back.
func TestAuditRoundTrip(t *testing.T) {
	for _, ev := range []AuditEvent{
		{TradeKey: "00000000000000ab", Sender: "BRKASGSGXXX", MsgId: "M-\"1\"", Type: "NOE", Function: "NEW",
			Partition: 5, Offset: 77, InboundAt: MicroTime(1_700_000_000_000_100), Outcome: "accepted",
			Steps:   []AuditStep{{Stage: "validate", Event: "valid", At: MicroTime(1_700_000_000_000_200)}},
			Outputs: []string{"ACK:BRKASGSGXXX:M-1", "CLS-00000000000000ab-1"}, RetryOf: "3-4", RetriedBy: "alice"},
		{Partition: -1, Offset: -1, Outcome: "expired", Steps: []AuditStep{}},
		{Outcome: "rejected", Reason: "INTERNAL", Sender: "\xff\u2028"},
	} {
		got, err := ParseAuditEvent(ev.Marshal())
		if err != nil {
			t.Fatal(err)
		}
		want := ev
		want.Sender = string([]rune(want.Sender)) // invalid UTF-8 is written as U+FFFD
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round trip:\n got %+v\nwant %+v", got, want)
		}
		if ev.InboundAt != "" {
			at, err := ParseMicroTime(got.InboundAt)
			if err != nil || MicroTime(at.UnixMicro()) != ev.InboundAt {
				t.Fatalf("inbound_at %s read back as %v %v", ev.InboundAt, at, err)
			}
		}
	}
	if _, err := ParseAuditEvent([]byte("{")); err == nil {
		t.Fatal("a broken record parsed")
	}
}

// A batch reads back as its events, in order; a record of one event (what
// every earlier release wrote) is a batch of one; a broken event is an error
// that names it.
func TestAuditBatchRoundTrip(t *testing.T) {
	evs := []AuditEvent{
		{TradeKey: "00000000000000ab", Sender: "BRKASGSGXXX", MsgId: "M1", Partition: 1, Offset: 2, Outcome: "accepted",
			Steps: []AuditStep{{Stage: "match", Event: "matched", At: MicroTime(1_700_000_000_000_100)}}},
		{Outcome: "rejected", Reason: "SCHEMA", Sender: "line\nbreak\r\n"}, // newlines in a value are escaped
		{Partition: -1, Offset: -1, Outcome: "expired", Steps: []AuditStep{}},
	}
	var batch []byte
	for i := range evs {
		batch = AppendAuditBatch(batch, &evs[i])
	}
	if got := strings.Count(string(batch), "\n"); got != len(evs)-1 {
		t.Fatalf("%d separators in a batch of %d", got, len(evs))
	}
	if n := CountAuditEvents(batch); n != len(evs) {
		t.Fatalf("counted %d events in a batch of %d", n, len(evs))
	}
	got, err := AuditEvents(batch)
	if err != nil || !reflect.DeepEqual(got, evs) {
		t.Fatalf("batch read back as %+v, %v\nwant %+v", got, err, evs)
	}
	one, err := AuditEvents(evs[0].Marshal())
	if err != nil || len(one) != 1 || !reflect.DeepEqual(one[0], evs[0]) {
		t.Fatalf("a one-event record read back as %+v, %v", one, err)
	}
	if _, err := AuditEvents(append(batch, "\n{"...)); err == nil || !strings.Contains(err.Error(), "event 3") {
		t.Fatalf("a broken fourth event: %v", err)
	}
	if _, err := AuditEvents(nil); err == nil {
		t.Fatal("an empty record read as a batch")
	}
}

// The fast audit decoder agrees with encoding/json on everything it accepts.
func TestDecodeAuditFastAgreesWithEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	pieces := []string{"a", "Z", "é", "日本", "\"", "\\", "\n", "\t", "\x01", "\u2028", "\U0001F600", " ", "/", "<", "&"}
	rs := func() string {
		var b strings.Builder
		for i := rng.Intn(6); i > 0; i-- {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		return b.String()
	}
	inputs := [][]byte{
		[]byte(`{"outcome":"accepted","steps":[],"outputs":null}`),
		[]byte(` { "outcome" : "x" , "partition" : 0 , "extra" : {"a":[1,2.5e3,true,false,null,"s"]} } `),
		[]byte(`{"outcome":"x","Outcome":"y"}`),
		[]byte(`{"outcome":"x","partition":1.5}`),
		[]byte(`{"outcome":"x","partition":4294967296}`),
		[]byte(`{"outcome":"\ud83d\ude00 \u00e9 \/"}`),
		[]byte(`{"outcome":"\ud83d"}`),
		[]byte("{\"outcome\":\"\xff\"}"),
		[]byte(`{"outcome":"x"} trailing`),
		[]byte(`{"outcome":"x",}`),
		[]byte(`{"outcome":"x","steps":[{"stage":"a","STAGE":"b"}]}`),
	}
	for i := 0; i < 2000; i++ {
		ev := AuditEvent{TradeKey: rs(), Sender: rs(), MsgId: rs(), Type: rs(), Function: rs(),
			Partition: int32(rng.Intn(100) - 1), Offset: rng.Int63(), InboundAt: rs(), Outcome: rs(), Reason: rs(),
			RetryOf: rs(), RetriedBy: rs()}
		for j := rng.Intn(4); j > 0; j-- {
			ev.Steps = append(ev.Steps, AuditStep{Stage: rs(), Event: rs(), At: rs()})
		}
		for j := rng.Intn(3); j > 0; j-- {
			ev.Outputs = append(ev.Outputs, rs())
		}
		b := ev.Marshal()
		std, _ := json.Marshal(ev)
		inputs = append(inputs, b, std)
		if len(b) > 2 {
			inputs = append(inputs, b[:rng.Intn(len(b))]) // truncated
		}
	}
	fast := 0
	for _, in := range inputs {
		got, ok := decodeAuditFast(in)
		var want AuditEvent
		err := json.Unmarshal(in, &want)
		if !ok {
			continue
		}
		fast++
		if err != nil {
			t.Fatalf("%q: fast decoder accepted what encoding/json rejects (%v)", in, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\nfast %+v\njson %+v", in, got, want)
		}
	}
	if fast < len(inputs)/2 {
		t.Fatalf("fast path taken for only %d of %d inputs", fast, len(inputs))
	}
}

func FuzzDecodeAuditFast(f *testing.F) {
	f.Add([]byte(`{"trade_key":"k","partition":1,"offset":2,"outcome":"accepted","steps":[{"stage":"a","event":"b","at":"c"}],"outputs":["x"]}`))
	f.Add([]byte(`{"outcome":"\u00e9\ud83d\ude00","x":[{},[]]}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		got, ok := decodeAuditFast(in)
		if !ok {
			return
		}
		var want AuditEvent
		if err := json.Unmarshal(in, &want); err != nil {
			t.Fatalf("fast decoder accepted what encoding/json rejects: %v", err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("fast %+v, json %+v", got, want)
		}
	})
}

func TestParseMicroTime(t *testing.T) {
	for _, s := range []string{"2026-11-29T10:00:00.123456Z", "2024-02-29T23:59:59.999999Z", "2026-02-31T00:00:00.000000Z",
		"2026-11-29T10:00:00.123Z", "2026-11-29T10:00:00+08:00", "2026-13-01T00:00:00.000000Z"} {
		got, err1 := ParseMicroTime(s)
		want, err2 := parseTimestampUTC(s)
		if (err1 == nil) != (err2 == nil) || !got.Equal(want) {
			t.Errorf("%s: ParseMicroTime %v %v, ParseTimestamp %v %v", s, got, err1, want, err2)
		}
	}
}

// MicroTime writes what time.Format writes, over the years it covers.
func TestMicroTimeAgreesWithTimeFormat(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	cases := []int64{0, -1, 1, 999_999, -1_000_000, 1_700_000_000_123_456, -62_135_596_800_000_000, 253_402_300_799_999_999,
		253_402_300_800_000_000, -62_135_596_800_000_001, 1 << 62, -1 << 62}
	for i := 0; i < 20000; i++ {
		cases = append(cases, rng.Int63n(1<<57)-1<<56)
	}
	for _, us := range cases {
		if got, want := MicroTime(us), time.UnixMicro(us).UTC().Format(microLayout); got != want {
			t.Fatalf("MicroTime(%d) = %s, want %s", us, got, want)
		}
	}
}

// FormatTimestamp writes what time.Format writes, over every year, and
// AppendTimestamp and AppendMicroTime append exactly that after what b holds.
func TestFormatTimestampAgreesWithTimeFormat(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	cases := []int64{0, -1, 1, 999_999, 1_000_000, -1_000_000, -1_000_001, 1_700_000_000_123_456_789,
		-86_400_000_000_000, -86_400_000_000_001, math.MaxInt64, math.MinInt64}
	for i := 0; i < 20000; i++ {
		cases = append(cases, rng.Int63(), -rng.Int63(), rng.Int63n(1<<61)-1<<60)
	}
	for _, ns := range cases {
		want := time.Unix(0, ns).UTC().Format("2006-01-02T15:04:05.000Z")
		if got := FormatTimestamp(ns); got != want {
			t.Fatalf("FormatTimestamp(%d) = %s, want %s", ns, got, want)
		}
		if got := string(AppendTimestamp([]byte("x"), ns)); got != "x"+want {
			t.Fatalf("AppendTimestamp(x, %d) = %s, want x%s", ns, got, want)
		}
		us := ns / 1000
		if got, want := string(AppendMicroTime([]byte("y"), us)), "y"+time.UnixMicro(us).UTC().Format(microLayout); got != want {
			t.Fatalf("AppendMicroTime(y, %d) = %s, want %s", us, got, want)
		}
	}
}

var timeSink string

// FormatTimestamp and MicroTime allocate their string and nothing else
// (built on their appenders from nil, they allocated twice).
func TestTimestampsAllocateOnce(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() { timeSink = FormatTimestamp(1_700_000_000_123_456_789) }); n > 1 {
		t.Errorf("FormatTimestamp allocates %.0f times", n)
	}
	if n := testing.AllocsPerRun(100, func() { timeSink = MicroTime(1_700_000_000_123_456) }); n > 1 {
		t.Errorf("MicroTime allocates %.0f times", n)
	}
}
