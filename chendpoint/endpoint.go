package chendpoint

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ste-utility/ste/chendpoint/internal/wire"
)

// HeaderDataDir is set on every response to the absolute data directory the
// endpoint serves. chendpoint/embedded checks it, so that a recycled port
// held by some other process is never mistaken for our endpoint.
const HeaderDataDir = "X-Ste-Chdb-Data-Dir"

// Options configure an Endpoint.
type Options struct {
	// DataDir is chDB's --path: databases, tables and parts live there. It
	// is created if missing. chDB locks it: one process per directory.
	DataDir string
	// TempDir receives request bodies on their way into
	// INSERT ... FROM INFILE. Default: DataDir/.ste-tmp (same disk as the
	// data, and wiped at Open since this process owns DataDir).
	TempDir string
	// Logger receives one debug record per request and warnings; default
	// slog.Default().
	Logger *slog.Logger
	// StreamThreshold: a result up to this size is copied out of chDB and
	// sent with a Content-Length; a larger one is written straight from
	// chDB's buffer with chunked encoding (no second copy in memory, but the
	// engine waits for the client to read it). Default 8 MiB; negative
	// copies everything (wait_end_of_query=1 does that per request).
	StreamThreshold int
	// MaxQueryBytes caps a query read from the request body, including
	// inline INSERT data after FORMAT (data sent with the statement in the
	// URL, as clickhouse-go's batches do, is spooled to disk and not capped).
	// Default 64 MiB.
	MaxQueryBytes int64
	// Password is the secret every request must carry as the password of
	// user default (HTTP basic authentication, X-ClickHouse-User/-Key
	// headers, or user/password URL parameters, as ClickHouse accepts).
	// Required: the engine can read and write what its process can.
	Password string
	// MaxSessions bounds the sessions (session_id) kept at once; the least
	// recently used one is closed to make room. Default 64.
	MaxSessions int
	// Confine, when set, confines the engine with Landlock (confine.go):
	// files under DataDir and Confine.RW only, reads of the system
	// directories and Confine.RO besides, no TCP connection.
	Confine *Confinement
}

// Endpoint is an http.Handler speaking the subset of ClickHouse's HTTP
// interface that clickhouse-go/v2 uses, backed by chDB. See the package
// documentation for what it does and does not do.
type Endpoint struct {
	opts    Options
	eng     *engine
	tmpDir  string
	log     *slog.Logger
	headers map[string]string
	seq     atomic.Uint64
	closed  atomic.Bool
}

// Open boots chDB on opts.DataDir and returns the endpoint. Only one
// Endpoint can be open per process (a chDB limit).
func Open(opts Options) (*Endpoint, error) {
	if opts.DataDir == "" {
		return nil, errors.New("chendpoint: Options.DataDir is required")
	}
	if len(opts.Password) < 16 {
		return nil, errors.New("chendpoint: Options.Password is required (at least 16 characters)")
	}
	if opts.MaxSessions <= 0 {
		opts.MaxSessions = 64
	}
	dir, err := filepath.Abs(opts.DataDir)
	if err != nil {
		return nil, err
	}
	// The data is the utility's: nobody else on the machine reads it.
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("chendpoint: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return nil, fmt.Errorf("chendpoint: %w", err)
	}
	opts.DataDir = dir
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.StreamThreshold == 0 {
		opts.StreamThreshold = 8 << 20
	}
	if opts.MaxQueryBytes <= 0 {
		opts.MaxQueryBytes = 64 << 20
	}
	// chDB's paths point at empty private directories, and the process
	// works in one, so that nothing relative lands elsewhere (confine.go).
	confined, err := prepareConfinedDirs(dir)
	if err != nil {
		return nil, fmt.Errorf("chendpoint: %w", err)
	}
	if err := os.Chdir(confined.cwd); err != nil {
		return nil, fmt.Errorf("chendpoint: %w", err)
	}
	ll := landlockPlan{fd: -1}
	if opts.Confine != nil {
		fd, flags, what, err := opts.Confine.landlockRuleset(dir)
		if err != nil {
			return nil, fmt.Errorf("chendpoint: %w", err)
		}
		ll = landlockPlan{fd: fd, flags: flags}
		opts.Logger.Info("engine confinement", "landlock", what)
	}
	eng, err := openEngine(dir, confined.connString(dir), ll, opts.Logger, opts.MaxSessions)
	if err != nil {
		return nil, fmt.Errorf("chendpoint: %w", err)
	}
	tmp := opts.TempDir
	if tmp == "" {
		tmp = filepath.Join(dir, ".ste-tmp")
		// Leftovers of a crashed predecessor; we hold chDB's lock on dir,
		// so no live process can be using them.
		_ = os.RemoveAll(tmp)
	}
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		eng.close()
		return nil, fmt.Errorf("chendpoint: temp dir: %w", err)
	}
	e := &Endpoint{
		opts:   opts,
		eng:    eng,
		tmpDir: tmp,
		log:    opts.Logger,
		headers: map[string]string{
			"X-ClickHouse-Server-Display-Name": eng.displayName,
			"X-ClickHouse-Timezone":            eng.timezone,
			HeaderDataDir:                      dir,
		},
	}
	e.log.Info("chDB engine open", "data", dir, "version", eng.version, "timezone", eng.timezone)
	return e, nil
}

// Version is the ClickHouse version chDB reports (e.g. 26.7.2.1).
func (e *Endpoint) Version() string { return e.eng.version }

// DataDir is the absolute data directory.
func (e *Endpoint) DataDir() string { return e.opts.DataDir }

// Close waits for the running query, if any, and shuts chDB down. Requests
// after Close fail with code 236 (ABORTED).
func (e *Endpoint) Close() error {
	if e.closed.Swap(true) {
		return errEngineClosed
	}
	e.eng.close()
	if e.opts.TempDir == "" {
		_ = os.RemoveAll(e.tmpDir)
	}
	return nil
}

// ServeHTTP implements the ClickHouse HTTP interface: GET/POST on any path
// but /ping, which answers "Ok.\n".
func (e *Endpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if ex := e.admit(r); ex != nil {
		e.log.Info("request refused", "method", r.Method, "remote", r.RemoteAddr, "code", ex.Code, "err", ex.Message)
		wire.WriteError(w, ex, e.headers)
		return
	}
	if r.URL.Path == "/ping" {
		w.Header().Set("Content-Type", "text/plain; charset=UTF-8")
		_, _ = io.WriteString(w, "Ok.\n")
		return
	}
	start := time.Now()
	queryID := r.URL.Query().Get("query_id")
	if queryID == "" {
		queryID = "ste-" + strconv.FormatInt(start.UnixNano(), 36) + "-" + strconv.FormatUint(e.seq.Add(1), 10)
	}
	headers := make(map[string]string, len(e.headers)+1)
	for k, v := range e.headers {
		headers[k] = v
	}
	headers["X-ClickHouse-Query-Id"] = queryID

	var files []string
	defer func() {
		for _, f := range files {
			_ = os.Remove(f)
		}
	}()
	p, params, ex := e.prepare(r, &files)
	if ex != nil {
		e.logRequest(r, queryID, "", start, ex)
		wire.WriteError(w, ex, headers)
		return
	}

	threshold := e.opts.StreamThreshold
	if params.WaitEndOfQuery {
		threshold = -1
	}
	encoding := ""
	if params.HTTPCompression {
		encoding = wire.NegotiateEncoding(r.Header.Get("Accept-Encoding"))
	}
	format := params.Format
	if f := wire.OutputFormat(p.query); f != "" {
		format = f
	}
	out := wire.NewResponder(w, wire.ResponseOptions{
		Format:        format,
		Headers:       headers,
		Threshold:     threshold,
		BlockCompress: params.Compress,
		Method:        params.CompressionMethod,
		Level:         params.CompressionLevel,
		Encoding:      encoding,
		ZlibLevel:     params.ZlibLevel,
	})

	if p.hello && format == "Native" {
		// Answered here, not by chDB; see wire.HelloNative.
		b, err := wire.HelloNative(e.eng.displayName, e.eng.version, e.eng.timezone, params.ClientRevision)
		if err != nil {
			out.Fail(wire.Errorf(wire.CodeStdException, "hello: %v", err))
			return
		}
		_, _ = out.Write(b)
		_ = out.Finish()
		e.logRequest(r, queryID, "hello (answered by the endpoint)", start, nil)
		return
	}
	ex = e.eng.execute(r.Context(), p, out)
	e.logRequest(r, queryID, p.query, start, ex)
	if ex != nil {
		out.Fail(ex)
		return
	}
	if err := out.Finish(); err != nil {
		e.log.Debug("response not completed", "query_id", queryID, "err", err)
	}
}

func (e *Endpoint) logRequest(r *http.Request, queryID, query string, start time.Time, ex *wire.Exception) {
	if len(query) > 300 {
		query = query[:300] + "…"
	}
	attrs := []any{"query_id", queryID, "method", r.Method, "query", query, "elapsed", time.Since(start)}
	if ex != nil {
		e.log.Info("query failed", append(attrs, "code", ex.Code, "err", ex.Message)...)
		return
	}
	e.log.Debug("query", attrs...)
}

// prepare turns the request into a plan: parameters split into settings and
// query parameters, the statement text assembled, INSERT data spooled to a
// file and the statement rewritten to read it with FROM INFILE.
func (e *Endpoint) prepare(r *http.Request, files *[]string) (*plan, *wire.Params, *wire.Exception) {
	if r.Method != http.MethodGet && r.Method != http.MethodPost {
		return nil, nil, wire.Errorf(wire.CodeNotImplemented, "HTTP method %s is not supported", r.Method)
	}
	values := r.URL.Query()
	var externals []external
	var body io.Reader = r.Body
	formQuery := ""

	mediaType, mparams, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if r.Method == http.MethodPost && mediaType == "multipart/form-data" {
		var ex *wire.Exception
		externals, formQuery, ex = e.readExternalTables(r, mparams["boundary"], values, files)
		if ex != nil {
			return nil, nil, ex
		}
		body = strings.NewReader("")
	}
	external := map[string]bool{}
	for _, t := range externals {
		external[t.name] = true
	}
	params, err := wire.ParseParams(r, values, func(name string) bool {
		for _, suffix := range []string{"_structure", "_format", "_types"} {
			if t, ok := strings.CutSuffix(name, suffix); ok && external[t] {
				return true
			}
		}
		return false
	})
	if err != nil {
		return nil, nil, asException(err)
	}
	if params.SessionID != "" && r.Method == http.MethodGet {
		// A GET is read-only for its query, but chDB has no per-query
		// settings on a kept connection: readonly would stick to the session.
		return nil, nil, wire.Errorf(wire.CodeNotImplemented,
			"session_id with GET is not supported by the embedded endpoint: use POST")
	}
	for _, t := range externals {
		if ex := wire.Guard(t.structure); ex != nil {
			return nil, nil, ex
		}
	}

	if len(externals) == 0 {
		decoded, err := wire.DecodeBody(r.Header.Get("Content-Encoding"), body)
		if err != nil {
			return nil, nil, asException(err)
		}
		defer decoded.Close()
		body = decoded
		if params.Decompress {
			body = wire.NewBlockReader(body)
		}
	}

	urlQuery := params.Query
	if formQuery != "" {
		urlQuery = formQuery
	}
	var query string
	set := params.SetStatement()
	if ins, ok := wire.ParseInsertData(urlQuery); ok && ins.DataOffset < 0 {
		// The statement is in the URL and the body is the data: the path
		// clickhouse-go's batches take. Stream it to disk; chDB reads it back
		// with FROM INFILE (a query is a C string, binary data cannot be
		// passed inline).
		if ex := wire.Guard(urlQuery); ex != nil {
			return nil, nil, ex
		}
		if strings.EqualFold(ins.Format, "Values") {
			// Values rows may be expressions, which the guard has not seen:
			// literals only.
			set = appendSet(set, noValuesExpressions)
		}
		path, ex := e.spool(body, files)
		if ex != nil {
			return nil, nil, ex
		}
		query = ins.FromInfile(path)
	} else {
		text, ex := readLimited(body, e.opts.MaxQueryBytes)
		if ex != nil {
			return nil, nil, ex
		}
		switch {
		case urlQuery != "" && text != "":
			query = urlQuery + "\n" + text // ClickHouse concatenates them, too
		case urlQuery != "":
			query = urlQuery
		default:
			query = text
		}
		ins, ok := wire.ParseInsertData(query)
		guarded := query
		if ok && ins.DataOffset >= 0 && !strings.EqualFold(ins.Format, "Values") {
			guarded = query[:ins.DataOffset] // data, never read as SQL
		}
		if ex := wire.Guard(guarded); ex != nil {
			return nil, nil, ex
		}
		if ok && ins.DataOffset >= 0 {
			path, ex := e.spool(strings.NewReader(query[ins.DataOffset:]), files)
			if ex != nil {
				return nil, nil, ex
			}
			query = ins.FromInfile(path)
		}
	}
	if strings.TrimSpace(query) == "" {
		return nil, nil, wire.Errorf(wire.CodeSyntaxError, "Empty query")
	}
	hello := wire.IsHello(query)
	if hello {
		query = wire.HelloQuery
	}
	return &plan{
		hello:          hello,
		set:            set,
		session:        params.SessionID,
		sessionTimeout: time.Duration(params.SessionTimeout) * time.Second,
		sessionCheck:   params.SessionCheck,
		database:       params.Database,
		externals:      externals,
		query:          query,
		format:         params.Format,
	}, params, nil
}

// spool copies r into a new temp file and records it for removal.
func (e *Endpoint) spool(r io.Reader, files *[]string) (string, *wire.Exception) {
	f, err := os.CreateTemp(e.tmpDir, "body-*.data")
	if err != nil {
		return "", wire.Errorf(wire.CodeStdException, "Cannot create a temporary file: %v", err)
	}
	*files = append(*files, f.Name())
	_, err = io.Copy(f, r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		//lint:ignore ST1005 ClickHouse's own message text, as a server sends it
		return "", asException(fmt.Errorf("Cannot read the request body: %w", err))
	}
	return f.Name(), nil
}

// readExternalTables reads a multipart/form-data body: a "query" field and
// one file part per external table, whose structure comes from the
// <name>_structure (or <name>_types) and <name>_format URL parameters.
func (e *Endpoint) readExternalTables(r *http.Request, boundary string, values map[string][]string, files *[]string) ([]external, string, *wire.Exception) {
	if boundary == "" {
		return nil, "", wire.Errorf(wire.CodeBadArguments, "multipart/form-data without a boundary")
	}
	get := func(k string) string {
		if v := values[k]; len(v) > 0 {
			return v[len(v)-1]
		}
		return ""
	}
	mr := multipart.NewReader(r.Body, boundary)
	var out []external
	query := ""
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, "", wire.Errorf(wire.CodeCannotParseInput, "Cannot read multipart body: %v", err)
		}
		name := part.FormName()
		if part.FileName() == "" && name == "query" {
			text, ex := readLimited(part, e.opts.MaxQueryBytes)
			if ex != nil {
				return nil, "", ex
			}
			query = text
			continue
		}
		if name == "" || !wire.IsName(name) {
			return nil, "", wire.Errorf(wire.CodeBadArguments, "Invalid external table name %q", name)
		}
		structure := get(name + "_structure")
		if structure == "" {
			if types := get(name + "_types"); types != "" {
				var cols []string
				for i, t := range strings.Split(types, ",") {
					cols = append(cols, "_"+strconv.Itoa(i+1)+" "+strings.TrimSpace(t))
				}
				structure = strings.Join(cols, ", ")
			}
		}
		if structure == "" {
			return nil, "", wire.Errorf(wire.CodeBadArguments, "Neither structure nor types have not been provided for external table %s", name)
		}
		format := get(name + "_format")
		if format == "" {
			format = "TabSeparated"
		}
		if !wire.IsName(format) {
			return nil, "", wire.Errorf(wire.CodeUnknownFormat, "Unknown format %s", format)
		}
		path, ex := e.spool(part, files)
		if ex != nil {
			return nil, "", ex
		}
		out = append(out, external{name: name, structure: structure, format: format, path: path})
	}
	return out, query, nil
}

func readLimited(r io.Reader, limit int64) (string, *wire.Exception) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		//lint:ignore ST1005 ClickHouse's own message text, as a server sends it
		return "", asException(fmt.Errorf("Cannot read the request body: %w", err))
	}
	if int64(len(b)) > limit {
		return "", wire.Errorf(wire.CodeQueryTooLarge, "Query is too large (more than %d bytes); put INSERT statements in the query URL parameter and the data in the body", limit)
	}
	return string(b), nil
}

func asException(err error) *wire.Exception {
	var ex *wire.Exception
	if errors.As(err, &ex) {
		return ex
	}
	return wire.Errorf(wire.CodeNetworkError, "%v", err)
}
