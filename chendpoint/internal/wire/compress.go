package wire

import (
	"compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	chcompress "github.com/ClickHouse/ch-go/compress"
	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// Two unrelated kinds of compression travel over ClickHouse's HTTP interface,
// and clickhouse-go uses both:
//
//   - HTTP Content-Encoding (gzip, deflate, br, zstd): the driver's
//     CompressionGZIP/Deflate/Brotli. Request bodies are always decoded;
//     responses are encoded only when the client sends Accept-Encoding AND the
//     enable_http_compression setting is 1, exactly as ClickHouse does (the
//     driver does not set it, so by default it receives plain responses).
//   - ClickHouse block compression (compress=1 for the response,
//     decompress=1 for the request body): the driver's CompressionLZ4/ZSTD.
//     Data is framed as [16-byte CityHash128][method][compressed size]
//     [raw size][payload] blocks — ch-go's compress package implements it.

// maxFrame is the uncompressed size of one response frame, ClickHouse's
// max_compress_block_size default.
const maxFrame = 1 << 20

// BlockWriter frames data in ClickHouse compressed blocks.
type BlockWriter struct {
	w       io.Writer
	c       *chcompress.Writer
	pending []byte
}

// NewBlockWriter returns a writer compressing with method ("LZ4", "LZ4HC",
// "ZSTD" or "NONE", case-insensitive; "" means LZ4, ClickHouse's default).
func NewBlockWriter(w io.Writer, method string, level int) (*BlockWriter, error) {
	var m chcompress.Method
	switch strings.ToUpper(method) {
	case "", "LZ4":
		m = chcompress.LZ4
	case "LZ4HC":
		m = chcompress.LZ4HC
	case "ZSTD":
		m = chcompress.ZSTD
	case "NONE":
		m = chcompress.None
	default:
		return nil, Errorf(CodeBadArguments, "Unknown compression method %s", method)
	}
	return &BlockWriter{w: w, c: chcompress.NewWriter(chcompress.Level(level), m)}, nil
}

func (b *BlockWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if len(b.pending) == 0 && len(p) >= maxFrame {
			if err := b.frame(p[:maxFrame]); err != nil {
				return 0, err
			}
			p = p[maxFrame:]
			continue
		}
		k := min(maxFrame-len(b.pending), len(p))
		b.pending = append(b.pending, p[:k]...)
		p = p[k:]
		if len(b.pending) == maxFrame {
			if err := b.Flush(); err != nil {
				return 0, err
			}
		}
	}
	return n, nil
}

// Flush writes what is pending as one (possibly short) frame.
func (b *BlockWriter) Flush() error {
	if len(b.pending) == 0 {
		return nil
	}
	err := b.frame(b.pending)
	b.pending = b.pending[:0]
	return err
}

func (b *BlockWriter) frame(p []byte) error {
	if err := b.c.Compress(p); err != nil {
		return err
	}
	_, err := b.w.Write(b.c.Data)
	return err
}

// NewBlockReader decompresses a ClickHouse compressed-block stream
// (decompress=1). ch-go checks every block's checksum and caps one block at
// 128 MiB of data; clickhouse-go sends a whole batch as one block, so a
// single batch must stay below that.
func NewBlockReader(r io.Reader) io.Reader {
	return eofReader{chcompress.NewReader(r)}
}

// eofReader reports a clean end of the block stream as io.EOF: ch-go wraps
// it ("read next block: header: EOF"), which io.Copy would take for a
// failure. A block cut short is io.ErrUnexpectedEOF and stays an error.
type eofReader struct{ r io.Reader }

func (e eofReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && errors.Is(err, io.EOF) {
		err = io.EOF
	}
	return n, err
}

// DecodeBody undoes the request's Content-Encoding.
func DecodeBody(encoding string, r io.Reader) (io.ReadCloser, error) {
	switch strings.ToLower(strings.TrimSpace(encoding)) {
	case "", "identity":
		return io.NopCloser(r), nil
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(r)
		if err != nil {
			return nil, Errorf(CodeCannotDecompress, "Cannot decompress gzip request body: %v", err)
		}
		return zr, nil
	case "deflate":
		// ClickHouse's (and clickhouse-go's) "deflate" is the zlib format.
		zr, err := zlib.NewReader(r)
		if err != nil {
			return nil, Errorf(CodeCannotDecompress, "Cannot decompress deflate request body: %v", err)
		}
		return zr, nil
	case "br":
		return io.NopCloser(brotli.NewReader(r)), nil
	case "zstd":
		zr, err := zstd.NewReader(r)
		if err != nil {
			return nil, Errorf(CodeCannotDecompress, "Cannot decompress zstd request body: %v", err)
		}
		return zr.IOReadCloser(), nil
	case "lz4":
		// The LZ4 frame format, as ClickHouse's HTTP interface and
		// clickhouse-connect (its default for inserts) use it.
		return io.NopCloser(lz4.NewReader(r)), nil
	}
	return nil, Errorf(CodeBadArguments, "Unknown Content-Encoding of HTTP request: %s", encoding)
}

// NegotiateEncoding picks the first encoding of an Accept-Encoding header
// that the endpoint can produce, or "". Entries with q=0 are refused.
func NegotiateEncoding(accept string) string {
	for _, part := range strings.Split(accept, ",") {
		fields := strings.Split(part, ";")
		refused := false
		for _, f := range fields[1:] {
			k, v, _ := strings.Cut(strings.TrimSpace(f), "=")
			if strings.EqualFold(k, "q") {
				if q, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil && q == 0 {
					refused = true
				}
			}
		}
		if refused {
			continue
		}
		switch n := strings.ToLower(strings.TrimSpace(fields[0])); n {
		case "gzip", "deflate", "br", "zstd", "lz4":
			return n
		case "x-gzip":
			return "gzip"
		}
	}
	return ""
}

// NewEncoder wraps w in the given Content-Encoding. level is
// http_zlib_compression_level (ClickHouse default 3), used for gzip/deflate.
func NewEncoder(encoding string, w io.Writer, level int) (io.WriteCloser, error) {
	if level <= 0 {
		level = 3
	}
	switch encoding {
	case "gzip":
		return gzip.NewWriterLevel(w, min(level, gzip.BestCompression))
	case "deflate":
		return zlib.NewWriterLevel(w, min(level, zlib.BestCompression))
	case "br":
		return brotli.NewWriterLevel(w, brotli.DefaultCompression), nil
	case "zstd":
		return zstd.NewWriter(w, zstd.WithEncoderLevel(zstd.SpeedFastest))
	case "lz4":
		return lz4.NewWriter(w), nil
	}
	return nil, fmt.Errorf("unsupported encoding %q", encoding)
}

// atoiDefault parses s, returning def when it is empty or malformed.
func atoiDefault(s string, def int) int {
	if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil {
		return n
	}
	return def
}
