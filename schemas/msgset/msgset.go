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
	br     *bufio.Reader
	closer func() error
	line   int
	buf    []byte
}

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
		r.buf = r.buf[:0]
		for {
			chunk, err := r.br.ReadSlice('\n')
			r.buf = append(r.buf, chunk...)
			if err == nil {
				break
			}
			if errors.Is(err, bufio.ErrBufferFull) {
				continue
			}
			if errors.Is(err, io.EOF) {
				if len(r.buf) == 0 {
					return nil, 0, io.EOF
				}
				break
			}
			return nil, 0, err
		}
		r.line++
		if len(r.buf) > 0 && r.buf[len(r.buf)-1] == '\n' {
			r.buf = r.buf[:len(r.buf)-1]
		}
		if len(r.buf) > 0 {
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

// Count is the number of records written.
func (w *Writer) Count() int { return w.n }

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
