package wire

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	chproto "github.com/ClickHouse/ch-go/proto"
	"github.com/ClickHouse/clickhouse-go/v2/lib/proto"
)

func TestParseInsertData(t *testing.T) {
	cases := []struct {
		q                        string
		ok                       bool
		prefix, settings, format string
		data                     string // inline data, "" if none
	}{
		{q: "INSERT INTO t (a, b) FORMAT Native", ok: true, prefix: "INSERT INTO t (a, b)", format: "Native"},
		{q: "INSERT INTO `db`.`t` (`a`,`b`) SETTINGS async_insert=1 FORMAT Native", ok: true,
			prefix: "INSERT INTO `db`.`t` (`a`,`b`)", settings: "SETTINGS async_insert=1", format: "Native"},
		{q: "insert into t format CSV\n1,2\n3,4\n", ok: true, prefix: "insert into t", format: "CSV", data: "1,2\n3,4\n"},
		{q: "INSERT INTO t VALUES", ok: true, prefix: "INSERT INTO t", format: "Values"},
		{q: "INSERT INTO t SETTINGS x = 1 VALUES;", ok: true, prefix: "INSERT INTO t", settings: "SETTINGS x = 1", format: "Values"},
		{q: "INSERT INTO t (format) FORMAT TSV", ok: true, prefix: "INSERT INTO t (format)", format: "TSV"},
		{q: "INSERT INTO t /* FORMAT CSV */ FORMAT JSONEachRow", ok: true, prefix: "INSERT INTO t /* FORMAT CSV */", format: "JSONEachRow"},
		{q: "INSERT INTO t VALUES (1, 'FORMAT x')", ok: false},
		{q: "INSERT INTO t SELECT * FROM u", ok: false},
		{q: "INSERT INTO t FROM INFILE 'x' FORMAT CSV", ok: false},
		{q: "SELECT 1 FORMAT Native", ok: false},
		{q: "INSERT INTO t FORMAT CSV 'a,b'", ok: true, prefix: "INSERT INTO t", format: "CSV", data: "'a,b'"},
	}
	for _, c := range cases {
		d, ok := ParseInsertData(c.q)
		if ok != c.ok {
			t.Errorf("%q: ok=%v", c.q, ok)
			continue
		}
		if !ok {
			continue
		}
		data := ""
		if d.DataOffset >= 0 {
			data = c.q[d.DataOffset:]
		}
		if d.Prefix != c.prefix || d.Settings != c.settings || d.Format != c.format || data != c.data {
			t.Errorf("%q: got %+v data %q", c.q, d, data)
		}
	}
	d, _ := ParseInsertData("INSERT INTO t SETTINGS a=1 FORMAT Native")
	if got := d.FromInfile("/tmp/it's"); got != `INSERT INTO t FROM INFILE '/tmp/it\'s' SETTINGS a=1 FORMAT Native` {
		t.Errorf("FromInfile: %s", got)
	}
}

func TestIsHelloAndOutputFormat(t *testing.T) {
	if !IsHello("SELECT displayName(), version(), revision(), timezone()") ||
		!IsHello("select displayName(),\n version(), revision(), timezone();") ||
		IsHello("SELECT displayName(), version()") {
		t.Error("IsHello")
	}
	for q, want := range map[string]string{
		"SELECT 1 FORMAT JSON":                       "JSON",
		"SELECT 1 FORMAT JSONEachRow SETTINGS a = 1": "JSONEachRow",
		"SELECT format FROM t":                       "",
		"SELECT 'FORMAT CSV'":                        "",
		"SELECT 1 FORMAT TSV;":                       "TSV",
	} {
		if got := OutputFormat(q); got != want {
			t.Errorf("OutputFormat(%q) = %q, want %q", q, got, want)
		}
	}
}

func TestParamsAndSetStatement(t *testing.T) {
	v := url.Values{
		"query": {"SELECT 1"}, "database": {"ste"}, "default_format": {"Native"},
		"client_protocol_version": {"54460"}, "compress": {"1"}, "max_threads": {"2"},
		"insert_deduplication_token": {"tok'1"}, "param_x": {`a\tb`}, "enable_http_compression": {"1"},
	}
	r := httptest.NewRequest(http.MethodPost, "/", nil)
	p, err := ParseParams(r, v, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Database != "ste" || p.Format != "Native" || !p.Compress || !p.HTTPCompression || p.ClientRevision != 54460 {
		t.Fatalf("%+v", p)
	}
	want := `SET enable_http_compression = 1, insert_deduplication_token = 'tok\'1', max_threads = 2, param_x = 'a\\tb'`
	if got := p.SetStatement(); got != want {
		t.Fatalf("SetStatement:\n got %s\nwant %s", got, want)
	}
	// GET is read-only, as in ClickHouse.
	p, _ = ParseParams(httptest.NewRequest(http.MethodGet, "/", nil), url.Values{"query": {"SELECT 1"}}, nil)
	if p.SetStatement() != "SET readonly = 2" || p.Format != "TabSeparated" {
		t.Fatalf("GET: %q %q", p.SetStatement(), p.Format)
	}
	if _, err := ParseParams(r, url.Values{"bad name": {"1"}}, nil); err == nil {
		t.Fatal("want an error for a bad setting name")
	}
	if _, err := ParseParams(r, url.Values{"default_format": {"JSON; DROP"}}, nil); err == nil {
		t.Fatal("want an error for a bad format")
	}
}

func TestBlockCompressionRoundTrip(t *testing.T) {
	payload := bytes.Repeat([]byte("ste-chdb block compression "), 200_000) // > 5 MiB: several frames
	for _, m := range []string{"LZ4", "ZSTD", "NONE", "lz4hc"} {
		var buf bytes.Buffer
		w, err := NewBlockWriter(&buf, m, 0)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(payload[:1000])
		w.Write(payload[1000:])
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(NewBlockReader(&buf))
		if err != nil || !bytes.Equal(got, payload) {
			t.Fatalf("%s: %d bytes, %v", m, len(got), err)
		}
	}
	// A truncated stream is an error, not a short read.
	var buf bytes.Buffer
	w, _ := NewBlockWriter(&buf, "LZ4", 0)
	w.Write(payload[:5000])
	w.Flush()
	if _, err := io.ReadAll(NewBlockReader(bytes.NewReader(buf.Bytes()[:buf.Len()-3]))); err == nil {
		t.Fatal("truncated block accepted")
	}
}

func TestContentEncodingRoundTrip(t *testing.T) {
	payload := []byte(strings.Repeat("hello, encoding ", 1000))
	for _, enc := range []string{"gzip", "deflate", "br", "zstd"} {
		var buf bytes.Buffer
		w, err := NewEncoder(enc, &buf, 3)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(payload)
		w.Close()
		r, err := DecodeBody(enc, &buf)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(got, payload) {
			t.Fatalf("%s: %v", enc, err)
		}
	}
	if NegotiateEncoding("br;q=0, gzip;q=0.5") != "gzip" || NegotiateEncoding("identity") != "" {
		t.Fatal("NegotiateEncoding")
	}
}

// TestHelloNativeDecodes decodes the hello answer with clickhouse-go's own
// decoder at the revision the driver announces, and a revision-0 one.
func TestHelloNativeDecodes(t *testing.T) {
	for _, rev := range []uint64{0, 54460} {
		b, err := HelloNative("vm", "26.7.2.1", "Etc/UTC", rev)
		if err != nil {
			t.Fatal(err)
		}
		var block proto.Block
		if err := block.Decode(chproto.NewReader(bytes.NewReader(b)), rev); err != nil {
			t.Fatalf("revision %d: %v", rev, err)
		}
		if block.Rows() != 1 || len(block.Columns) != 4 || block.Columns[2].Type() != "UInt32" {
			t.Fatalf("revision %d: %d rows %d columns", rev, block.Rows(), len(block.Columns))
		}
		if got := block.Columns[2].Row(0, false); got != uint32(0) {
			t.Fatalf("revision() = %v", got)
		}
	}
}

func TestResponderThreshold(t *testing.T) {
	small := httptest.NewRecorder()
	r := NewResponder(small, ResponseOptions{Format: "Native", Threshold: 100})
	r.Write([]byte("abc"))
	r.Finish()
	if small.Header().Get("Content-Length") != "3" || small.Body.String() != "abc" {
		t.Fatalf("small: %v %q", small.Header(), small.Body.String())
	}
	big := httptest.NewRecorder()
	r = NewResponder(big, ResponseOptions{Format: "Native", Threshold: 4, BlockCompress: true})
	r.Write([]byte("0123456789"))
	r.Finish()
	if big.Header().Get("Content-Length") != "" || big.Code != 200 {
		t.Fatalf("big: %v", big.Header())
	}
	got, err := io.ReadAll(NewBlockReader(big.Body))
	if err != nil || string(got) != "0123456789" {
		t.Fatalf("big body %q %v", got, err)
	}
	failed := httptest.NewRecorder()
	r = NewResponder(failed, ResponseOptions{Threshold: 100})
	r.Write([]byte("partial"))
	r.Fail(FromEngine("Code: 60. DB::Exception: Unknown table. (UNKNOWN_TABLE)"))
	if failed.Code != 404 || failed.Header().Get("X-ClickHouse-Exception-Code") != "60" ||
		failed.Body.String() != "Code: 60. DB::Exception: Unknown table. (UNKNOWN_TABLE)\n" {
		t.Fatalf("failed: %d %v %q", failed.Code, failed.Header(), failed.Body.String())
	}
}
