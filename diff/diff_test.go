package diff

import (
	"bytes"
	"encoding/json"
	"fmt"
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

// Issue 45, finding 5: a participant's MsgId and Sender with control and
// bidi characters are printed escaped, in the text and in --json (where
// the escape is the same JSON string).
func TestWriteEscapesParticipantsText(t *testing.T) {
	a, b := outcome.New(), outcome.New()
	msgID, sender := "M\x1b]0;pwned\x07\u202egpj.exe", "BANK\rGB2L\u2066"
	if err := b.AddRejection("k", outcome.Rejection{Sender: sender, MsgId: msgID, Reason: "SCHEMA"}); err != nil {
		t.Fatal(err)
	}
	d := outcome.Compare(a, b, outcome.Options{A: "live", B: "sand"})
	for _, asJSON := range []bool{false, true} {
		var out bytes.Buffer
		if err := Write(&out, d, asJSON, false, 20); err != nil {
			t.Fatal(err)
		}
		if strings.ContainsAny(out.String(), "\x1b\x07\r\u202e\u2066") {
			t.Errorf("json=%v: raw control or bidi characters printed:\n%q", asJSON, out.String())
		}
		if asJSON {
			var v any
			if err := json.Unmarshal(out.Bytes(), &v); err != nil {
				t.Fatalf("--json output is not JSON: %v", err)
			}
			if !strings.Contains(fmt.Sprint(v), msgID) {
				t.Errorf("--json lost the MsgId's text: %q", out.String())
			}
		} else if !strings.Contains(out.String(), `\u202egpj.exe`) {
			t.Errorf("text: the MsgId not shown escaped:\n%s", out.String())
		}
	}
}
