package msgset

import (
	"bytes"
	"io"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestRoundTripCompressed(t *testing.T) {
	for _, name := range []string{"s.xml", "s.xml.gz", "s.xml.zst"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), name)
			w, err := Create(path)
			if err != nil {
				t.Fatal(err)
			}
			big := bytes.Repeat([]byte("x"), 3<<20) // longer than the reader's buffer
			recs := [][]byte{[]byte("<a/>"), big, []byte("<b/>")}
			for _, r := range recs {
				if err := w.Write(r); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			r, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			for i, want := range recs {
				got, n, err := r.Next()
				if err != nil || !bytes.Equal(got, want) || n != i+1 {
					t.Fatalf("record %d: n=%d err=%v len=%d", i, n, err, len(got))
				}
			}
			if _, _, err := r.Next(); err != io.EOF {
				t.Fatalf("want EOF, got %v", err)
			}
		})
	}
}

func TestLineNumbersCountEmptyLines(t *testing.T) {
	r, err := NewReader(strings.NewReader("a\n\n\nb\r\n\nc"), "x")
	if err != nil {
		t.Fatal(err)
	}
	type rec struct {
		s string
		n int
	}
	var got []rec
	for {
		l, n, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, rec{string(l), n})
	}
	want := []rec{{"a", 1}, {"b\r", 4}, {"c", 6}}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}

// Issue 15: only regular files are message sets; /dev/zero is one endless
// line and a FIFO blocks until written.
func TestOpenRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/dev/zero", fifo, dir} {
		if r, err := Open(p); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("%s: %v", p, err)
			if r != nil {
				r.Close()
			}
		}
	}
}

func TestLimitLinesKeepsSizes(t *testing.T) {
	r, err := NewReader(strings.NewReader("abcdef\n\nxy\n"+strings.Repeat("z", 3<<20)), "s.xml")
	if err != nil {
		t.Fatal(err)
	}
	r.LimitLines(4)
	for _, want := range []struct {
		line string
		n    int
		size int64
	}{{"abcd", 1, 6}, {"xy", 3, 2}, {"zzzz", 4, 3 << 20}} {
		line, n, err := r.Next()
		if err != nil || string(line) != want.line || n != want.n || r.Size() != want.size {
			t.Fatalf("got %q line %d size %d (%v), want %+v", line, n, r.Size(), err, want)
		}
	}
	if _, _, err := r.Next(); err != io.EOF {
		t.Fatalf("end: %v", err)
	}
}
