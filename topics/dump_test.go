package topics_test

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/internal/testing/brokertest"
	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/schemas/msgset"
	"github.com/ste-utility/ste/topics"
)

// DumpTo writes a topic's records one a line, to a writer or to a
// compressed file, and counts them.
func TestDumpTo(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a broker")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	addr, dial := brokertest.Start(t)
	cl := brokertest.Client(t, dial, kgo.AllowAutoTopicCreation())
	for _, v := range []string{"a", "b", "c"} {
		if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "dump", Value: []byte(v)}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	// One line a record; partitions in no particular order.
	if n, err := topics.DumpTo(ctx, kafkaconn.Plaintext(addr), "dump", "-", &out); err != nil || n != 3 || sorted(out.String()) != "a b c" {
		t.Fatalf("to a writer: %d %q %v", n, out.String(), err)
	}
	file := filepath.Join(t.TempDir(), "dump.gz")
	if n, err := topics.DumpTo(ctx, kafkaconn.Plaintext(addr), "dump", file, nil); err != nil || n != 3 {
		t.Fatalf("to a file: %d %v", n, err)
	}
	r, err := msgset.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var got []string
	for {
		line, _, err := r.Next()
		if err != nil {
			break
		}
		got = append(got, string(line))
	}
	if sorted(strings.Join(got, "\n")) != "a b c" {
		t.Fatalf("the file holds %q", got)
	}
}

func sorted(lines string) string {
	f := strings.Fields(lines)
	slices.Sort(f)
	return strings.Join(f, " ")
}

// Issue 45, finding 5: piped to another program, a record's control and
// bidi characters (a participant's MsgId) are escaped as on a terminal;
// to a file they are kept.
func TestDumpToEscapesForAPipe(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a broker")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	addr, dial := brokertest.Start(t)
	cl := brokertest.Client(t, dial, kgo.AllowAutoTopicCreation())
	rec := "<MsgId>M1\x1b]0;owned\x07\u202egpj.exe</MsgId>"
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "dumpesc", Value: []byte(rec)}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := topics.DumpTo(ctx, kafkaconn.Plaintext(addr), "dumpesc", "-", &out); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), `<MsgId>M1\u001b]0;owned\u0007\u202egpj.exe</MsgId>`+"\n"; got != want {
		t.Errorf("to a writer: %q, want %q", got, want)
	}
	file := filepath.Join(t.TempDir(), "dump.gz")
	if _, err := topics.DumpTo(ctx, kafkaconn.Plaintext(addr), "dumpesc", file, nil); err != nil {
		t.Fatal(err)
	}
	r, err := msgset.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if line, _, err := r.Next(); err != nil || string(line) != rec {
		t.Errorf("the file holds %q (%v), want the record's bytes", line, err)
	}
}
