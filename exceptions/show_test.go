package exceptions

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ste-utility/ste/schemas"
)

// The text ste exceptions show prints: the exception, its state and
// retries, the message's fields, and the NACK — or why each is missing.
func TestShownWriteText(t *testing.T) {
	at := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	e := Exception{Exception: schemas.Exception{ID: "e1", Reason: "UNKNOWN_SECURITY", Detail: "ISIN XS000 unknown",
		MsgId: "M1", ReceivedAt: "2026-03-02T09:59:00Z", SourcePartition: 3, SourceOffset: 42, NACK: "N1"},
		State: Record{State: Retried, By: "ann", At: at, Retries: []Retry{{By: "ann", At: at, Partition: 3, Offset: 99}}}}
	e.Payload = []byte("<Msg><Header><MsgId>M1</MsgId></Header></Msg>")
	s := Shown{Exception: e, Fields: []Field{{"Header/MsgId", "M1"}}, NACK: "<Nack/>", read: true}
	var b bytes.Buffer
	if err := s.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := "exception e1: UNKNOWN_SECURITY\n  ISIN XS000 unknown\n" +
		"  sender -, MsgId M1, received 2026-03-02T09:59:00Z, inbound partition 3 offset 42\n" +
		"state: retried by ann at 2026-03-02T10:00:00Z\n" +
		"  retried by ann at 2026-03-02T10:00:00Z → inbound partition 3 offset 99\n" +
		"message:\n  Header/MsgId  M1\nNACK sent:\n  <Nack/>\n"
	if b.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", b.String(), want)
	}

	// Not read back, and no NACK for the code: said so, no payload shown.
	s = Shown{Exception: e, FieldsErr: "the record is gone", NACKErr: "no such record"}
	s.Exception.NACK = ""
	b.Reset()
	s.WriteText(&b)
	for _, line := range []string{"  (not readable as XML: the record is gone)\n  \"\"\n", "NACK: none sent"} {
		if !strings.Contains(b.String(), line) {
			t.Errorf("missing %q in\n%s", line, b.String())
		}
	}
}

func TestWriteListAndChanges(t *testing.T) {
	list := []Exception{
		{Exception: schemas.Exception{ID: "a", Reason: "SCHEMA", Sender: "BANKGB2L", ReceivedAt: "2026-03-02T09:00:00Z"}, State: Record{State: Open}},
		{Exception: schemas.Exception{ID: "b", Reason: "SCHEMA", ReceivedAt: "2026-03-02T09:01:00Z"}, State: Record{State: Archived, By: "bo"}},
	}
	var b bytes.Buffer
	if err := WriteList(&b, "ste", list, 5, 1); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, want := range []string{"2 exceptions in ste selected (of 5)\n", "  by reason: SCHEMA 2 (1 open)\n",
		"a   2026-03-02 09:00:00  SCHEMA  BANKGB2L", "… 1 more (--limit, or a narrower filter)"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}

	results := []Result{{ID: "a", Outcome: OutcomeRetried}, {ID: "b", Outcome: OutcomeRefused, Detail: "already archived"}}
	b.Reset()
	WriteChanges(&b, results, []RetryOutcome{{ID: "a", RejectedAs: "c", Reason: "SCHEMA"}})
	if want := "a\tretried\t\nb\trefused\talready archived\na\trejected again\tas exception c (SCHEMA)\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
	if err := NotDone(results); err == nil || err.Error() != "1 of 2 not done (refused or failed; see above)" {
		t.Errorf("NotDone: %v", err)
	}
	if err := NotDone(results[:1]); err != nil {
		t.Errorf("NotDone of a retried one: %v", err)
	}
}

func TestFilterTextParse(t *testing.T) {
	f, err := FilterText{Since: "2026-03-01", Sender: " BANKGB2L ", State: ""}.Parse(Open)
	if err != nil || f.Sender != "BANKGB2L" || f.Since.IsZero() || len(f.States) != 1 || f.States[0] != Open {
		t.Fatalf("%+v, %v", f, err)
	}
	if f, err = (FilterText{State: "all"}).Parse(Open); err != nil || len(f.States) != 0 {
		t.Fatalf("all: %+v, %v", f, err)
	}
	if f, err = (FilterText{}).Parse(""); err != nil || !f.Empty() {
		t.Fatalf("empty: %+v, %v", f, err)
	}
	var fe *FilterError
	if _, err = (FilterText{State: "shut"}).Parse(""); !errors.As(err, &fe) || fe.Field != "state" || fe.Value != "shut" || !errors.Is(err, ErrState) {
		t.Fatalf("a bad state: %v", err)
	}
	if _, err = (FilterText{Until: "soonish"}).Parse(""); !errors.As(err, &fe) || fe.Field != "until" || !strings.HasPrefix(err.Error(), "until: ") {
		t.Fatalf("a bad time: %v", err)
	}
}

func TestLocalOperator(t *testing.T) {
	t.Setenv("STE_OPERATOR", "ann")
	if got := LocalOperator(); got != "ann" {
		t.Fatalf("with $STE_OPERATOR: %q", got)
	}
	t.Setenv("STE_OPERATOR", "")
	if got := LocalOperator(); got == "" {
		t.Fatal("no operator name without $STE_OPERATOR")
	}
}

// TestWriteListWraps (issue 51): the groups of ste exceptions list wrap at
// 100 columns under their title, the largest twelve and how many more —
// a realistic run's hundreds of senders were one line of thousands.
func TestWriteListWraps(t *testing.T) {
	var list []Exception
	for i := range 300 {
		list = append(list, Exception{Exception: schemas.Exception{ID: fmt.Sprint(i), Reason: "SIGNATURE",
			Sender: fmt.Sprintf("S%03dSGSGXXX", i), ReceivedAt: "2026-03-02T09:00:00Z"}, State: Record{State: Open}})
	}
	var b bytes.Buffer
	if err := WriteList(&b, "ste", list, 300, 0); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	var senders []string
	for _, line := range strings.Split(out, "\n") {
		if len(line) > 100 {
			t.Errorf("a line of %d columns: %q", len(line), line)
		}
		if strings.HasPrefix(line, "  by sender: ") || strings.HasPrefix(line, "             ") {
			senders = append(senders, line)
		}
	}
	if len(senders) < 2 || !strings.Contains(out, "and 288 more (--sender to filter)") {
		t.Errorf("senders not wrapped or not cut:\n%s", out)
	}
}
