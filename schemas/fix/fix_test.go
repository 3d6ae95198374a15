package fix

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// stock is quickfixgo v0.9.10's own spec/FIX44.xml, from the module cache.
func stock(t *testing.T) []byte {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/quickfixgo/quickfix").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	b, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "spec", "FIX44.xml"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestOneDocumentedChange holds FIX44-ste.xml to the stock dictionary plus
// exactly the diff of its header comment: the two groups of AK, nothing
// else.
func TestOneDocumentedChange(t *testing.T) {
	ours := Dictionary
	end := bytes.Index(ours, []byte("-->\r\n"))
	if end < 0 || !bytes.HasPrefix(ours, []byte("<!--")) {
		t.Fatal("no header comment")
	}
	body := ours[end+len("-->\r\n"):]
	want := stock(t)
	gotLines, wantLines := bytes.Split(body, []byte("\r\n")), bytes.Split(want, []byte("\r\n"))
	if len(gotLines) != len(wantLines) {
		t.Fatalf("%d lines, stock has %d", len(gotLines), len(wantLines))
	}
	inAK := false
	var changed []string
	for i := range gotLines {
		if bytes.Contains(wantLines[i], []byte("<message ")) {
			inAK = bytes.Contains(wantLines[i], []byte("msgtype='AK'"))
		}
		if bytes.Equal(gotLines[i], wantLines[i]) {
			continue
		}
		if !inAK {
			t.Errorf("line %d differs outside Confirmation (AK): %q", i+1, gotLines[i])
		}
		changed = append(changed, strings.TrimSpace(string(wantLines[i]))+" -> "+strings.TrimSpace(string(gotLines[i])))
	}
	wantChanged := []string{
		"<group name='NoUnderlyings' required='Y'> -> <group name='NoUnderlyings' required='N'>",
		"<group name='NoLegs' required='Y'> -> <group name='NoLegs' required='N'>",
	}
	if strings.Join(changed, "\n") != strings.Join(wantChanged, "\n") {
		t.Errorf("changes:\n%s\nwant:\n%s", strings.Join(changed, "\n"), strings.Join(wantChanged, "\n"))
	}
	for _, c := range wantChanged {
		if !bytes.Contains(ours[:end], []byte(strings.TrimSpace(strings.Split(c, " -> ")[1]))) {
			t.Errorf("the header comment does not show %q", c)
		}
	}
}

func TestParses(t *testing.T) {
	dd, err := Parsed()
	if err != nil {
		t.Fatal(err)
	}
	ak := dd.Messages["AK"]
	has := func(tag int) bool { _, ok := ak.RequiredTags[tag]; return ok }
	if ak == nil || has(711) || has(555) || !has(862) {
		t.Fatalf("AK's required tags: 711 %v 555 %v 862 %v", has(711), has(555), has(862))
	}
}
