package clientconformance

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/build"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"

	"github.com/ste-utility/ste/chendpoint/embedded"
	"github.com/ste-utility/ste/chendpoint/embedded/chdblib"
	"github.com/ste-utility/ste/chendpoint/internal/gate"
)

// result is what each client program prints.
type result struct {
	Query int64 `json:"query"`
	Param int64 `json:"param"`
	Read  struct {
		Rows int      `json:"rows"`
		Sum  int64    `json:"sum"`
		S    []string `json:"s"`
	} `json:"read"`
	Session *int64 `json:"session"`
	Error   string `json:"error"`
}

// need skips (locally) or fails (CI=true) when something the suite needs is
// missing.
func need(t *testing.T, err error) {
	t.Helper()
	gate.Need(t, "ClickHouse's official clients (make clients)", err)
}

// clients reads the env file install.sh writes: STE_CLIENTS (a directory),
// else $STE_CACHE/clients, else ~/.cache/ste/clients.
func clients() (map[string]string, error) {
	dir := os.Getenv("STE_CLIENTS")
	if dir == "" {
		cache := os.Getenv("STE_CACHE")
		if cache == "" {
			home, _ := os.UserHomeDir()
			cache = filepath.Join(home, ".cache", "ste")
		}
		dir = filepath.Join(cache, "clients")
	}
	f, err := os.Open(filepath.Join(dir, "env"))
	if err != nil {
		return nil, fmt.Errorf("ClickHouse clients not installed (make clients): %w", err)
	}
	defer f.Close()
	env := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			env[k] = v
		}
	}
	return env, sc.Err()
}

func chdbBinary(t *testing.T) string {
	if b := os.Getenv(embedded.BinaryEnv); b != "" {
		return b
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(build.Default.GOROOT, "bin", "go")
	}
	out := filepath.Join(t.TempDir(), "ste-chdb")
	if b, err := exec.Command(goBin, "build", "-o", out, "github.com/ste-utility/ste/chendpoint/cmd/ste-chdb").CombinedOutput(); err != nil {
		t.Fatalf("build ste-chdb: %v\n%s", err, b)
	}
	return out
}

func TestOfficialClients(t *testing.T) {
	_, err := chdblib.Find()
	need(t, err)
	env, err := clients()
	need(t, err)

	home := t.TempDir()
	cfg := embedded.Config{Binary: chdbBinary(t)}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dsn, release, err := cfg.Hold(ctx, home)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { release(); _ = cfg.Stop(home) })
	u, _ := url.Parse(dsn)
	host, port, _ := net.SplitHostPort(u.Host)
	// What a user of the clients is told to read: the address and password
	// files, not the DSN the ste commands pass around.
	addr, _ := os.ReadFile(filepath.Join(embedded.DataDir(home), "ste-chdb.addr"))
	if strings.TrimSpace(string(addr)) != u.Host {
		t.Fatalf("address file %q, endpoint at %s", addr, u.Host)
	}
	password, err := embedded.Password(home)
	if err != nil {
		t.Fatal(err)
	}

	// The test's own connection: prepares the tables and checks the inserts.
	conn, err := clickhouse.Open(&clickhouse.Options{Protocol: clickhouse.HTTP, Addr: []string{u.Host},
		Auth: clickhouse.Auth{Username: "default", Password: password}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	exec1 := func(q string) {
		t.Helper()
		if err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec1("CREATE DATABASE IF NOT EXISTS ste")
	table := func(name string) string {
		exec1("CREATE TABLE ste." + name + " (n UInt32, s String) ENGINE = MergeTree ORDER BY n")
		exec1("INSERT INTO ste." + name + " VALUES (1, 'a'), (2, 'b'), (3, 'c')")
		return name
	}
	inserted := func(t *testing.T, name string) []string {
		var got []string
		rows, err := conn.Query(ctx, "SELECT s FROM ste."+name+" WHERE n >= 10 ORDER BY n, s")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			got = append(got, s)
		}
		return got
	}
	check := func(t *testing.T, name string, r result, wantInserted []string) {
		t.Helper()
		if r.Query != 42 || r.Param != 42 {
			t.Errorf("query %d, parameterised query %d; want 42 and 42", r.Query, r.Param)
		}
		if r.Read.Rows != 3 || r.Read.Sum != 6 || !reflect.DeepEqual(r.Read.S, []string{"a", "b", "c"}) {
			t.Errorf("read %+v, want 3 rows a, b, c summing to 6", r.Read)
		}
		if r.Error == "" || r.Error == "none" || !strings.Contains(r.Error, "no_such_table") {
			t.Errorf("error %q, want the server's UNKNOWN_TABLE naming no_such_table", r.Error)
		}
		if got := inserted(t, name); !reflect.DeepEqual(got, wantInserted) {
			t.Errorf("rows inserted: %q, want %q", got, wantInserted)
		}
	}
	run := func(t *testing.T, cmd *exec.Cmd) result {
		t.Helper()
		cmd.Stderr = nil
		out, err := cmd.Output()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("%s: %v\n%s\n%s", cmd.Args[0], err, out, ee.Stderr)
		} else if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		var r result
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &r); err != nil {
			t.Fatalf("%s printed %q: %v", cmd.Args[0], out, err)
		}
		return r
	}

	py, jdbc, node := table("c_python"), table("c_jdbc"), table("c_node")
	goT := table("c_go")
	t.Run("group", func(t *testing.T) {
		t.Run("clickhouse-connect", func(t *testing.T) {
			t.Parallel()
			r := run(t, exec.CommandContext(ctx, env["STE_CLIENT_PYTHON"], "client.py", host, port, password, py))
			check(t, py, r, []string{"py-x", "py-y", "a", "b", "c"})
			if r.Session == nil || *r.Session != 3 {
				t.Errorf("SET max_threads in the client's session, then read back: %v, want 3", r.Session)
			}
		})
		t.Run("jdbc-v2", func(t *testing.T) {
			t.Parallel()
			cmd := exec.CommandContext(ctx, "java", "-cp", filepath.Join(env["STE_CLIENT_JDBC"], "*"), "Client.java", host, port, password, jdbc)
			check(t, jdbc, run(t, cmd), []string{"jdbc-x", "jdbc-y"})
		})
		t.Run("node", func(t *testing.T) {
			t.Parallel()
			cmd := exec.CommandContext(ctx, "node", "client.mjs", host, port, password, node)
			cmd.Env = append(os.Environ(), "NODE_PATH="+env["STE_CLIENT_NODE"])
			check(t, node, run(t, cmd), []string{"node-x", "node-y"})
		})
		t.Run("clickhouse-go", func(t *testing.T) {
			t.Parallel()
			check(t, goT, goClient(t, u.Host, password, goT), []string{"go-x", "go-y"})
		})
	})
}

// goClient is clickhouse-go/v2 with its defaults: the same five steps.
func goClient(t *testing.T, addr, password, table string) result {
	ctx := context.Background()
	c, err := clickhouse.Open(&clickhouse.Options{Protocol: clickhouse.HTTP, Addr: []string{addr},
		Auth: clickhouse.Auth{Database: "ste", Username: "default", Password: password}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var r result
	var v uint16
	if err := c.QueryRow(ctx, "SELECT 40 + 2").Scan(&v); err != nil {
		t.Fatal(err)
	}
	r.Query = int64(v)
	var p uint64
	pctx := clickhouse.Context(ctx, clickhouse.WithParameters(clickhouse.Parameters{"x": "41"}))
	if err := c.QueryRow(pctx, "SELECT toUInt64({x:UInt32} + 1)").Scan(&p); err != nil {
		t.Fatal(err)
	}
	r.Param = int64(p)
	rows, err := c.Query(ctx, "SELECT n, s FROM "+table+" ORDER BY n")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n uint32
		var s string
		if err := rows.Scan(&n, &s); err != nil {
			t.Fatal(err)
		}
		r.Read.Rows++
		r.Read.Sum += int64(n)
		r.Read.S = append(r.Read.S, s)
	}
	rows.Close()
	b, err := c.PrepareBatch(ctx, "INSERT INTO "+table+" (n, s)")
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Append(uint32(10), "go-x"); err != nil {
		t.Fatal(err)
	}
	if err := b.Append(uint32(11), "go-y"); err != nil {
		t.Fatal(err)
	}
	if err := b.Send(); err != nil {
		t.Fatal(err)
	}
	err = c.Exec(ctx, "SELECT * FROM no_such_table")
	var ex *clickhouse.Exception
	if errors.As(err, &ex) && ex.Code == 60 {
		r.Error = ex.Message
	} else {
		r.Error = fmt.Sprint("none: ", err)
	}
	return r
}
