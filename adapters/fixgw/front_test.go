package fixgw

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

type chunks struct{ parts [][]byte }

func (c *chunks) Read(p []byte) (int, error) {
	if len(c.parts) == 0 {
		return 0, io.EOF
	}
	n := copy(p, c.parts[0])
	c.parts[0] = c.parts[0][n:]
	if len(c.parts[0]) == 0 {
		c.parts = c.parts[1:]
	}
	return n, nil
}

// byteWise feeds the stream one byte per read: framing never depends on
// how the bytes arrive.
func byteWise(b []byte) io.Reader {
	c := &chunks{}
	for i := range b {
		c.parts = append(c.parts, b[i:i+1])
	}
	return c
}

func TestFramer(t *testing.T) {
	good := rawFIX("35=0|34=2|49=AQGOSGSG|52=20261127-09:31:00.000|56=STEUTLSGXXX|")
	good2 := rawFIX("35=0|34=3|49=AQGOSGSG|52=20261127-09:31:00.000|56=STEUTLSGXXX|")
	badSum := append([]byte(nil), good...)
	copy(badSum[len(badSum)-4:], "000")
	if bytes.Equal(badSum, good) {
		t.Fatal("the checksum was 000")
	}
	badLen := bytes.Replace(good, []byte("9="), []byte("9=1"), 1)
	// quickfixgo's resend of a message ending with a group: the stored
	// CheckSum field, then the new one.
	sum := good[len(good)-7:]
	stale := append(append(append([]byte(nil), good[:len(good)-7]...), []byte("10=999\x01")...), sum...)
	stream := bytes.Join([][]byte{[]byte("junk"), good, badSum, badLen, good2, stale, good}, nil)
	for name, r := range map[string]io.Reader{"whole": bytes.NewReader(stream), "byte by byte": byteWise(stream)} {
		f := &framer{r: r}
		var got []string
		for {
			m, err := f.next(1 << 20)
			if errors.Is(err, errGarbled) {
				got = append(got, "garbled")
				continue
			}
			if err != nil {
				break
			}
			got = append(got, string(m))
		}
		want := []string{string(good), "garbled", "garbled", string(good2), string(good), string(good)}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: got\n%q\nwant\n%q", name, got, want)
		}
	}
	// Over the limit: known from BodyLength before the body is read.
	big := rawFIX("35=0|34=2|58=" + strings.Repeat("x", 5000) + "|")
	f := &framer{r: io.MultiReader(bytes.NewReader(big[:40]), errReader{})}
	if _, err := f.next(4096); !errors.Is(err, errTooLarge) {
		t.Fatalf("over the limit: %v", err)
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { panic("read past the header of a message over the limit") }
