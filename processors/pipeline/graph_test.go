package pipeline

import (
	"testing"

	"github.com/lovoo/goka"
)

// Every stream STE's groups read decodes by reference (goka patch 10), and
// a callback reads the bytes either way they come.
func TestRawDecodesByReference(t *testing.T) {
	var c goka.Codec = raw{}
	rd, ok := c.(goka.RefDecoder)
	if !ok {
		t.Fatal("raw is not a goka.RefDecoder: every record's bytes would be put in an interface")
	}
	b := []byte("<Msg/>")
	v, err := rd.DecodeRef(&b)
	if err != nil || string(bytesOf(v)) != "<Msg/>" {
		t.Fatalf("by reference: %v %q", err, bytesOf(v))
	}
	if n := testing.AllocsPerRun(100, func() { v, _ = rd.DecodeRef(&b) }); n != 0 {
		t.Fatalf("decoding by reference allocates %.0f times", n)
	}
	if v, _ := c.Decode(b); string(bytesOf(v)) != "<Msg/>" || bytesOf(nil) != nil {
		t.Fatal("a slice, or nothing, read wrong")
	}
}
