package diff

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/ste-utility/ste/analytics/store"
	"github.com/ste-utility/ste/schemas/outcome"
)

// A namespace made again leaves rows of two incarnations: with the brokers
// unreachable both are read, and the operator is told which tables hold
// them; one incarnation is said nothing of.
func TestWarnMadeAgain(t *testing.T) {
	var b bytes.Buffer
	warnMadeAgain(&b, "sand", map[string][]uuid.UUID{
		store.TableCLS:        {uuid.New(), uuid.New()},
		store.TableExceptions: {uuid.New()},
	})
	want := "ste diff: the store holds " + store.TableCLS + " rows of 2 topics named sand.…: the namespace was made again; with the brokers unreachable all are read\n"
	if b.String() != want {
		t.Fatalf("got %q, want %q", b.String(), want)
	}
	warnMadeAgain(nil, "sand", map[string][]uuid.UUID{store.TableCLS: {uuid.New(), uuid.New()}}) // no writer: no panic
}

// Write lists at most lines differences under the tables, then the
// summary; --json is the whole comparison.
func TestWrite(t *testing.T) {
	a, b := outcome.New(), outcome.New()
	for i := range 3 {
		if err := b.AddRejection(string(rune('x'+i)), outcome.Rejection{Sender: "BANKGB2L", MsgId: "M" + string(rune('0'+i)), Reason: "SCHEMA"}); err != nil {
			t.Fatal(err)
		}
	}
	d := outcome.Compare(a, b, outcome.Options{A: "live", B: "sand"})
	if d.Equal() {
		t.Fatal("three exceptions more compared equal")
	}
	var out bytes.Buffer
	if err := Write(&out, d, false, false, 1); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	if !strings.Contains(text, "  … and 2 more (--json lists every one)\n") || !strings.HasSuffix(text, d.String()+"\n") {
		t.Fatalf("text output:\n%s", text)
	}
	out.Reset()
	if err := Write(&out, d, true, false, 1); err != nil {
		t.Fatal(err)
	}
	if !json.Valid(out.Bytes()) {
		t.Fatalf("--json output is not JSON:\n%s", out.String())
	}
}
