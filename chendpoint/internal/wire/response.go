package wire

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// Responder writes a query result the way ClickHouse's HTTP handler does:
// Content-Type and X-ClickHouse-* headers, ClickHouse block compression
// (compress=1) inside HTTP Content-Encoding, errors as non-200 responses.
// It holds the first Threshold bytes back: a result that fits (the common
// case for analytics queries) is copied and sent with a Content-Length; a
// larger one is committed with status 200 and written through as it comes
// (chunked), without a second copy of it in memory.
type Responder struct {
	w   http.ResponseWriter
	opt ResponseOptions

	buf       []byte
	committed bool
	done      bool

	sink  io.Writer      // where encoded bytes go after commit
	enc   io.WriteCloser // Content-Encoding writer, or nil
	block *BlockWriter   // compress=1 framing, or nil
	err   error          // first write error after commit (client gone)
}

// ResponseOptions configure a Responder.
type ResponseOptions struct {
	Format    string            // output format, for Content-Type
	Headers   map[string]string // headers every response carries
	Threshold int               // bytes held back before streaming; < 0: hold everything

	BlockCompress bool   // compress=1
	Method        string // network_compression_method
	Level         int    // network_zstd_compression_level
	Encoding      string // negotiated Content-Encoding, "" for none
	ZlibLevel     int
}

// NewResponder prepares a response; nothing is sent before Write overflows
// the threshold, Finish or Fail.
func NewResponder(w http.ResponseWriter, opt ResponseOptions) *Responder {
	return &Responder{w: w, opt: opt}
}

// Write adds result bytes.
func (r *Responder) Write(p []byte) (int, error) {
	if r.done {
		return 0, io.ErrClosedPipe
	}
	if !r.committed {
		if r.opt.Threshold < 0 || len(r.buf)+len(p) <= r.opt.Threshold {
			r.buf = append(r.buf, p...)
			return len(p), nil
		}
		if err := r.commit(); err != nil {
			return 0, err
		}
		held := r.buf
		r.buf = nil
		if err := r.emit(held); err != nil {
			return 0, err
		}
	}
	if err := r.emit(p); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (r *Responder) emit(p []byte) error {
	if r.err != nil {
		return r.err
	}
	var err error
	if r.block != nil {
		_, err = r.block.Write(p)
	} else {
		_, err = r.sink.Write(p)
	}
	if err != nil {
		r.err = err
	}
	return err
}

func (r *Responder) setHeaders(h http.Header) {
	for k, v := range r.opt.Headers {
		h.Set(k, v)
	}
	h.Set("Content-Type", contentType(r.opt.Format))
	h.Set("X-ClickHouse-Format", r.opt.Format)
	if r.opt.Encoding != "" {
		h.Set("Content-Encoding", r.opt.Encoding)
	}
}

// pipeline sets up block compression and Content-Encoding in front of out.
func (r *Responder) pipeline(out io.Writer) error {
	r.sink = out
	if r.opt.Encoding != "" {
		enc, err := NewEncoder(r.opt.Encoding, out, r.opt.ZlibLevel)
		if err != nil {
			return err
		}
		r.enc = enc
		r.sink = enc
	}
	if r.opt.BlockCompress {
		bw, err := NewBlockWriter(r.sink, r.opt.Method, r.opt.Level)
		if err != nil {
			return err
		}
		r.block = bw
	}
	return nil
}

func (r *Responder) commit() error {
	if err := r.pipeline(r.w); err != nil {
		return err
	}
	r.committed = true
	h := r.w.Header()
	r.setHeaders(h)
	r.w.WriteHeader(http.StatusOK)
	return nil
}

func (r *Responder) closePipeline() error {
	var err error
	if r.block != nil {
		err = r.block.Flush()
	}
	if r.enc != nil {
		if cerr := r.enc.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// Finish completes a successful response.
func (r *Responder) Finish() error {
	if r.done {
		return nil
	}
	r.done = true
	if r.committed {
		if r.err != nil {
			return r.err
		}
		return r.closePipeline()
	}
	// Everything is held: encode it in memory and send it with a length.
	var body bytes.Buffer
	if len(r.buf) > 0 {
		if err := r.pipeline(&body); err != nil {
			return err
		}
		if err := r.emit(r.buf); err != nil {
			return err
		}
		if err := r.closePipeline(); err != nil {
			return err
		}
	}
	h := r.w.Header()
	r.setHeaders(h)
	if body.Len() == 0 {
		h.Del("Content-Encoding")
	}
	h.Set("Content-Length", strconv.Itoa(body.Len()))
	r.w.WriteHeader(http.StatusOK)
	_, err := r.w.Write(body.Bytes())
	return err
}

// Fail reports an error as an error response. After the status line went
// out (only possible when writing to the client failed, i.e. it is gone) the
// body is simply left incomplete.
func (r *Responder) Fail(e *Exception) {
	if r.done {
		return
	}
	r.done = true
	if !r.committed {
		WriteError(r.w, e, r.opt.Headers)
	}
}

// WriteError sends e as ClickHouse does: status from the code, the code in
// X-ClickHouse-Exception-Code, and the text as a plain body.
func WriteError(w http.ResponseWriter, e *Exception, headers map[string]string) {
	h := w.Header()
	for k, v := range headers {
		h.Set(k, v)
	}
	h.Del("Content-Encoding")
	h.Set("Content-Type", "text/plain; charset=UTF-8")
	h.Set("X-ClickHouse-Exception-Code", strconv.Itoa(e.Code))
	body := e.Text() + "\n"
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(HTTPStatus(e.Code))
	_, _ = io.WriteString(w, body)
}

func contentType(format string) string {
	f := strings.ToLower(format)
	switch {
	case strings.HasPrefix(f, "json"):
		return "application/json; charset=UTF-8"
	case strings.HasPrefix(f, "tabseparated"), strings.HasPrefix(f, "tsv"):
		return "text/tab-separated-values; charset=UTF-8"
	case strings.HasPrefix(f, "csv"):
		return "text/csv; charset=UTF-8; header=absent"
	case f == "xml":
		return "application/xml; charset=UTF-8"
	case f == "native", strings.HasPrefix(f, "rowbinary"), f == "parquet", f == "arrow",
		f == "arrowstream", f == "orc", f == "avro", f == "msgpack", f == "protobuf":
		return "application/octet-stream"
	}
	return "text/plain; charset=UTF-8"
}
