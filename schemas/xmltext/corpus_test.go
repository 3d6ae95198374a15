package xmltext

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// seedCorpus returns the committed fuzz seeds: the realistic message, its
// decorated and broken variants, and every table case. They live in
// testdata/fuzz so that plain `go test` replays them and the fuzzer starts
// from interesting shapes; TestWriteCorpus regenerates them.
func seedCorpus(t *testing.T) map[string][]byte {
	msg, err := os.ReadFile("testdata/message.xml")
	if err != nil {
		t.Fatal(err)
	}
	m := string(msg)
	body := strings.TrimPrefix(m, `<?xml version="1.0" encoding="UTF-8"?>`+"\n")
	seeds := map[string]string{
		"message":              m,
		"message-no-decl":      body,
		"message-bom":          "\uFEFF" + m,
		"message-crlf":         strings.ReplaceAll(m, "\n", "\r\n"),
		"message-comments-pis": strings.Replace(strings.Replace(body, "<Header>", "<!-- routing --><?trace id=7?><Header>", 1), "</Msg>", "</Msg>\n<!-- signed -->\n", 1),
		"message-cdata":        strings.Replace(body, "<TradeRef>T1</TradeRef>", "<TradeRef><![CDATA[T1&<x>]]></TradeRef>", 1),
		"message-entities":     strings.Replace(body, "<Side>BUY</Side>", "<Side>&#66;&#x55;&#x59;&lt;&gt;&quot;&apos;</Side>", 1),
		"message-namespaced":   strings.Replace(body, "<Msg>", `<m:Msg xmlns:m="urn:x" m:v='1'>`, 1),
		"message-mismatch":     strings.Replace(body, "</Header>", "</Body>", 1),
		"message-truncated":    body[:len(body)/2],
		"message-doctype":      "<!DOCTYPE Msg>" + body,
		"message-dup-attr":     strings.Replace(body, `alg="ed25519"`, `alg="ed25519" alg="rsa"`, 1),
		"message-two-roots":    body + body,
		"message-text-after":   body + "trailing",
		"message-bad-entity":   strings.Replace(body, "&amp;", "&nbsp;", 1),
		"message-cdata-end":    strings.Replace(body, "T1", "T]]>1", 1),
		"message-bad-utf8":     strings.Replace(body, "T1", "T\xff1", 1),
		"message-late-decl":    body + `<?xml version="1.0"?>`,
	}
	out := map[string][]byte{}
	for name, s := range seeds {
		out[name] = []byte(s)
	}
	for _, tc := range wellFormed {
		out["ok-"+tc.name] = []byte(tc.src)
	}
	for _, tc := range malformed {
		out["bad-"+tc.name] = []byte(tc.src)
	}
	return out
}

// TestWriteCorpus rewrites the seed corpus when XMLTEXT_WRITE_CORPUS=1.
func TestWriteCorpus(t *testing.T) {
	if os.Getenv("XMLTEXT_WRITE_CORPUS") != "1" {
		t.Skip("set XMLTEXT_WRITE_CORPUS=1 to regenerate testdata/fuzz seeds")
	}
	for _, target := range []string{"FuzzParse", "FuzzParseDifferential"} {
		dir := filepath.Join("testdata", "fuzz", target)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		old, _ := filepath.Glob(filepath.Join(dir, "seed-*"))
		for _, f := range old {
			os.Remove(f)
		}
		for name, src := range seedCorpus(t) {
			file := "seed-" + strings.Map(func(r rune) rune {
				if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '-' {
					return r
				}
				return '-'
			}, name)
			file += fmt.Sprintf("-%x", sha256.Sum256(src))[:9]
			data := "go test fuzz v1\n[]byte(" + strconv.Quote(string(src)) + ")\n"
			if err := os.WriteFile(filepath.Join(dir, file), []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
