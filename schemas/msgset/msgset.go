// Package msgset reads and writes message-set files: one record per line,
// '\n' separated, optionally gzip (.gz) or zstd (.zst) compressed by file
// suffix. It is the format of the source benchmark's stored test sets and of
// `ste match` outputs.
package msgset

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/klauspost/compress/zstd"
)

// Reader yields the non-empty lines of a message set with their physical
// (1-based) line numbers, empty lines included in the count.
type Reader struct {
	br      *bufio.Reader
	closer  func() error
	line    int
	buf     []byte
	maxLine int   // 0: keep whole lines
	size    int64 // length of the line last returned, before any cut
}

// LimitLines keeps at most n bytes of each line from now on; Size still
// reports a line's whole length. A reader that only needs to know that a
// line is too long then holds n bytes of it, not all of it (a file of
// gigabyte lines, or one endless line, would otherwise be held whole).
func (r *Reader) LimitLines(n int) { r.maxLine = n }

// Size is the length of the line Next last returned, without its '\n', and
// before any cut by LimitLines.
func (r *Reader) Size() int64 { return r.size }

// Open opens a message-set file, decompressing by suffix. Only regular files
// are opened: a device such as /dev/zero has no end (and no newline, so one
// endless line), and a FIFO blocks until someone writes to it.
func Open(path string) (*Reader, error) {
	if fi, err := os.Stat(path); err != nil {
		return nil, err
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file: a message set is a file of one message per line", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	r, err := NewReader(f, path)
	if err != nil {
		f.Close()
		return nil, err
	}
	inner := r.closer
	r.closer = func() error {
		err := inner()
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	}
	return r, nil
}

// NewReader reads from r; name selects decompression by its suffix.
func NewReader(r io.Reader, name string) (*Reader, error) {
	closer := func() error { return nil }
	switch {
	case strings.HasSuffix(name, ".gz"):
		zr, err := gzip.NewReader(r)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		r, closer = zr, zr.Close
	case strings.HasSuffix(name, ".zst"):
		zr, err := zstd.NewReader(r)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		r, closer = zr, func() error { zr.Close(); return nil }
	}
	return &Reader{br: bufio.NewReaderSize(r, 1<<20), closer: closer}, nil
}

// Next returns the next non-empty line (without its '\n') and its line
// number. The bytes are valid until the next call; io.EOF ends the set. A
// final line without '\n' counts. Lines may be of any length: a record over
// the contract's limit must still reach validation to be reported TOO_LARGE.
func (r *Reader) Next() (line []byte, n int, err error) {
	for {
		r.buf, r.size = r.buf[:0], 0
		for {
			chunk, err := r.br.ReadSlice('\n')
			if err == nil {
				chunk = chunk[:len(chunk)-1] // the '\n'
			}
			r.size += int64(len(chunk))
			if r.maxLine <= 0 {
				r.buf = append(r.buf, chunk...)
			} else if room := r.maxLine - len(r.buf); room > 0 {
				r.buf = append(r.buf, chunk[:min(room, len(chunk))]...)
			}
			if err == nil {
				break
			}
			if errors.Is(err, bufio.ErrBufferFull) {
				continue
			}
			if errors.Is(err, io.EOF) {
				if r.size == 0 {
					return nil, 0, io.EOF
				}
				break
			}
			return nil, 0, err
		}
		r.line++
		if r.size > 0 {
			return r.buf, r.line, nil
		}
	}
}

// Close releases the file.
func (r *Reader) Close() error { return r.closer() }

// Writer writes one record per line, compressing by suffix.
type Writer struct {
	bw    *bufio.Writer
	close []func() error
	n     int
}

// Create creates (truncates) a message-set file.
func Create(path string) (*Writer, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	w := &Writer{}
	var dst io.Writer = f
	switch {
	case strings.HasSuffix(path, ".gz"):
		zw := gzip.NewWriter(f)
		dst = zw
		w.close = append(w.close, zw.Close)
	case strings.HasSuffix(path, ".zst"):
		zw, err := zstd.NewWriter(f, zstd.WithEncoderLevel(zstd.SpeedFastest))
		if err != nil {
			f.Close()
			return nil, err
		}
		dst = zw
		w.close = append(w.close, zw.Close)
	}
	w.close = append(w.close, f.Close)
	w.bw = bufio.NewWriterSize(dst, 1<<20)
	return w, nil
}

// Write writes one record and its '\n'.
func (w *Writer) Write(rec []byte) error {
	w.n++
	w.bw.Write(rec)
	return w.bw.WriteByte('\n')
}

// Close flushes and closes; the first error wins.
func (w *Writer) Close() error {
	err := w.bw.Flush()
	for _, c := range w.close {
		if cerr := c(); err == nil {
			err = cerr
		}
	}
	return err
}
