package termsafe

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// Finding 7 (issue 30): nothing a terminal acts on passes; the text around
// it, newlines and tabs do; JSON stays JSON with the same meaning.
func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"plain MsgId-1\tBIC\n":       "plain MsgId-1\tBIC\n",
		"\x1b]0;pwned\x07title":      `\u001b]0;pwned\u0007title`,
		"\x1b[2Jclear":               `\u001b[2Jclear`,
		"over\rprint":                `over\u000dprint`,
		"c1 \u009b31m":               `c1 \u009b31m`,
		"file\u202egpj.exe":          `file\u202egpj.exe`,
		"iso\u2066late\u2069 \u200f": `iso\u2066late\u2069 \u200f`,
		"raw \x9b byte":              `raw \x9b byte`,
		"del\x7f":                    `del\u007f`,
		"Zürich ✓":                   "Zürich ✓",
	} {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
	var b bytes.Buffer
	json.NewEncoder(Writer(&b)).Encode(map[string]string{"detail": "a\u202eb\u009bc\x1bd"})
	var back map[string]string
	if err := json.Unmarshal(b.Bytes(), &back); err != nil || back["detail"] != "a\u202eb\u009bc\x1bd" {
		t.Errorf("JSON through the writer: %s %v %q", b.String(), err, back)
	}
	if strings.ContainsAny(b.String(), "\u202e\u009b\x1b") {
		t.Errorf("JSON through the writer kept a control: %q", b.String())
	}
}
