package schemas

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestEchoCutsCharacters(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int // runes kept
	}{
		{"", 0}, {"short", 5}, {strings.Repeat("a", 128), 128}, {strings.Repeat("a", 129), 128},
		{strings.Repeat("é", 200), 128}, {strings.Repeat("\xff", 300), 128}, {strings.Repeat("€", 128), 128},
	} {
		got := Echo(tt.in)
		if n := utf8.RuneCountInString(got); n != tt.want || !strings.HasPrefix(tt.in, got) {
			t.Errorf("Echo of %d bytes: %d characters, want %d", len(tt.in), n, tt.want)
		}
	}
}

// Issue 15, defect 6: a 63 KB MsgId gave a 127 KB NACK and a 212 KB exception.
// The exception's msg_id, sender and detail repeat at most MaxEcho characters
// of any value; the payload keeps the record whole.
func TestExceptionDoesNotAmplify(t *testing.T) {
	long := strings.Repeat("M", 63<<10)
	rec := []byte("<Msg><Header><MsgId>" + long + "</MsgId></Header></Msg>")
	var d Decoder
	m, rej := d.Decode(append(rec[:len(rec)-len("</Msg>"):len(rec)-len("</Msg>")], "<Body/></Msg>"...))
	if rej == nil || rej.Reason != Schema {
		t.Fatalf("decode: %v", rej)
	}
	m.Sender = strings.Repeat("S", 10000)
	e := NewException("line-1", rec, m, rej, -1, -1, time.Unix(0, 0))
	if e.MsgId != long[:MaxEcho] || len(e.Sender) != MaxEcho || len(e.Detail) > MaxEcho+200 || string(e.Payload) != string(rec) {
		t.Fatalf("msg_id %d, sender %d, detail %d characters, payload %d bytes", len(e.MsgId), len(e.Sender), len(e.Detail), len(e.Payload))
	}
	if n := len(e.Marshal()) - len(rec)*4/3; n > 1024 {
		t.Fatalf("exception is %d bytes over its payload", n)
	}
}
