package wire

import (
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// KV is one setting or query parameter.
type KV struct{ Name, Value string }

// Params is what the endpoint takes from a request's URL parameters and
// headers. ClickHouse's HTTP interface mixes three things in the query
// string: parameters of the interface itself (query, database,
// default_format, compress, ...), query parameters (param_<name>), and
// everything else, which are settings for this one query.
type Params struct {
	Query     string // the query URL parameter ("" if absent)
	Database  string // database parameter or X-ClickHouse-Database header
	Format    string // default_format; TabSeparated when unset, as in ClickHouse
	QueryID   string
	SessionID string
	// SessionTimeout is session_timeout in seconds (0: the default);
	// SessionCheck is session_check=1: the session must exist already.
	SessionTimeout int
	SessionCheck   bool
	Settings       []KV // sorted by name
	Parameters     []KV // param_* without the prefix, sorted by name

	Compress          bool   // compress=1: block-compress the response
	Decompress        bool   // decompress=1: the body is block-compressed
	CompressionMethod string // network_compression_method
	CompressionLevel  int    // network_zstd_compression_level
	HTTPCompression   bool   // enable_http_compression
	ZlibLevel         int    // http_zlib_compression_level
	WaitEndOfQuery    bool   // wait_end_of_query: buffer the whole result
	// ClientRevision is client_protocol_version: the Native layout the
	// client expects for the hello query (see HelloNative).
	ClientRevision uint64
}

// interfaceParams are URL parameters of the HTTP interface, not settings.
// Credentials (user, password) are checked by the endpoint before this.
var interfaceParams = map[string]bool{
	"query": true, "database": true, "default_format": true, "query_id": true,
	"quota_key": true, "user": true, "password": true, "compress": true,
	"decompress": true, "session_id": true, "session_timeout": true,
	"session_check": true, "buffer_size": true, "wait_end_of_query": true,
	"client_protocol_version": true, "stacktrace": true, "role": true,
	"http_response_headers": true,
}

// ParseParams splits the URL parameters of r. skip reports extra parameter
// names to ignore (the <table>_structure/_format/_types parameters of
// external tables, which only the caller can recognise).
func ParseParams(r *http.Request, v url.Values, skip func(string) bool) (*Params, error) {
	p := &Params{
		Query:             v.Get("query"),
		Database:          v.Get("database"),
		Format:            v.Get("default_format"),
		QueryID:           v.Get("query_id"),
		SessionID:         v.Get("session_id"),
		SessionTimeout:    atoiDefault(v.Get("session_timeout"), 0),
		SessionCheck:      truthy(v.Get("session_check")),
		Compress:          truthy(v.Get("compress")),
		Decompress:        truthy(v.Get("decompress")),
		CompressionMethod: v.Get("network_compression_method"),
		CompressionLevel:  atoiDefault(v.Get("network_zstd_compression_level"), 0),
		HTTPCompression:   truthy(v.Get("enable_http_compression")),
		ZlibLevel:         atoiDefault(v.Get("http_zlib_compression_level"), 3),
		WaitEndOfQuery:    truthy(v.Get("wait_end_of_query")),
		ClientRevision:    uint64(max(atoiDefault(v.Get("client_protocol_version"), 0), 0)),
	}
	if p.Compress || p.Decompress {
		switch strings.ToUpper(p.CompressionMethod) {
		case "", "LZ4", "LZ4HC", "ZSTD", "NONE":
		default:
			return nil, Errorf(CodeBadArguments, "Unknown network_compression_method %s", p.CompressionMethod)
		}
	}
	if p.Database == "" {
		p.Database = r.Header.Get("X-ClickHouse-Database")
	}
	if p.Format == "" {
		p.Format = r.Header.Get("X-ClickHouse-Format")
	}
	if p.Format == "" {
		p.Format = "TabSeparated"
	}
	if !IsName(p.Format) {
		return nil, Errorf(CodeUnknownFormat, "Unknown format %s", p.Format)
	}
	for name, vals := range v {
		if len(vals) == 0 || interfaceParams[name] || (skip != nil && skip(name)) {
			continue
		}
		val := vals[len(vals)-1]
		if pn, ok := strings.CutPrefix(name, "param_"); ok {
			if !IsName(pn) {
				return nil, Errorf(CodeBadArguments, "Invalid query parameter name %q", pn)
			}
			p.Parameters = append(p.Parameters, KV{pn, val})
			continue
		}
		if !IsName(name) {
			return nil, Errorf(CodeUnknownSetting, "Unknown setting '%s'", name)
		}
		if ex := GuardSetting(name); ex != nil {
			return nil, ex
		}
		p.Settings = append(p.Settings, KV{name, val})
	}
	// A GET request is read-only (readonly=2: reads and setting changes
	// only, readonly itself excepted). The client may ask for stricter
	// (readonly=1), never for less: a GET is what a link, an <img> or a
	// proxy's retry sends, and must not change anything.
	if r.Method == http.MethodGet {
		ro := ""
		for _, kv := range p.Settings {
			if strings.EqualFold(kv.Name, "readonly") {
				ro = strings.TrimSpace(kv.Value) // the value SET will apply
			}
		}
		if ro != "1" && ro != "2" {
			p.Settings = slices.DeleteFunc(p.Settings, func(kv KV) bool { return strings.EqualFold(kv.Name, "readonly") })
			p.Settings = append(p.Settings, KV{"readonly", "2"})
		}
	}
	sort.Slice(p.Settings, func(i, j int) bool { return p.Settings[i].Name < p.Settings[j].Name })
	sort.Slice(p.Parameters, func(i, j int) bool { return p.Parameters[i].Name < p.Parameters[j].Name })
	return p, nil
}

// SetStatement renders the settings and parameters as one SET statement
// ("" when there are none). It runs on the request's own chDB connection, so
// nothing it changes outlives the request.
func (p *Params) SetStatement() string {
	if len(p.Settings) == 0 && len(p.Parameters) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("SET ")
	first := true
	add := func(name, value string, literal bool) {
		if !first {
			b.WriteString(", ")
		}
		first = false
		b.WriteString(name)
		b.WriteString(" = ")
		if literal {
			b.WriteString(settingLiteral(value))
		} else {
			b.WriteString(QuoteString(value))
		}
	}
	for _, s := range p.Settings {
		add(s.Name, s.Value, true)
	}
	for _, q := range p.Parameters {
		// The value of a query parameter is the text ClickHouse parses with
		// the placeholder's type; SET param_x = '<text>' hands over exactly
		// that text.
		add("param_"+q.Name, q.Value, false)
	}
	return b.String()
}

var numberRe = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`)

// settingLiteral writes numbers and booleans bare and everything else as a
// string literal, which ClickHouse converts to the setting's type.
func settingLiteral(v string) string {
	if numberRe.MatchString(v) {
		return v
	}
	switch strings.ToLower(v) {
	case "true", "false":
		return strings.ToLower(v)
	}
	return QuoteString(v)
}

func truthy(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}
