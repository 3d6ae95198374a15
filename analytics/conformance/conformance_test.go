package conformance

import (
	"context"
	"fmt"
	gobuild "go/build"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/ste-utility/ste/chendpoint/embedded"
	"github.com/ste-utility/ste/chendpoint/embedded/chdblib"
	"github.com/ste-utility/ste/testgate"
)

// The suite runs against the embedded endpoint always (skipped with a
// message when libchdb.so is missing, a failure under CI=true), and against
// a real ClickHouse server when CLICKHOUSE_ADDR is set (host:port for the
// native protocol, or a DSN such as http://host:8123).

var tmpRoot string

func TestMain(m *testing.M) {
	var err error
	tmpRoot, err = os.MkdirTemp("", "ste-analytics-conformance-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	if home := filepath.Join(tmpRoot, "home"); dirExists(home) {
		if err := embeddedConfig().Stop(home); err != nil {
			fmt.Fprintln(os.Stderr, "stop ste-chdb:", err)
		}
	}
	if os.Getenv("STE_TEST_KEEP") == "" {
		os.RemoveAll(tmpRoot)
	} else {
		fmt.Println("keeping", tmpRoot)
	}
	os.Exit(code)
}

func dirExists(p string) bool { st, err := os.Stat(p); return err == nil && st.IsDir() }

var (
	buildOnce sync.Map // package -> *built
)

type built struct {
	once sync.Once
	path string
	err  error
}

// build compiles a command of this module once per test run.
func build(t *testing.T, pkg, name string) string {
	t.Helper()
	v, _ := buildOnce.LoadOrStore(pkg, &built{})
	b := v.(*built)
	b.once.Do(func() {
		goBin, err := exec.LookPath("go")
		if err != nil {
			goBin = filepath.Join(gobuild.Default.GOROOT, "bin", "go")
		}
		b.path = filepath.Join(tmpRoot, "bin", name)
		out, err := exec.Command(goBin, "build", "-o", b.path, pkg).CombinedOutput()
		if err != nil {
			b.err = fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

func embeddedConfig() embedded.Config {
	bin := os.Getenv(embedded.BinaryEnv)
	if bin == "" {
		bin = filepath.Join(tmpRoot, "bin", "ste-chdb")
	}
	return embedded.Config{Binary: bin}
}

func steBinary(t *testing.T) string {
	if b := os.Getenv("STE_BIN"); b != "" {
		return b
	}
	return build(t, "github.com/ste-utility/ste/cmd/ste", "ste")
}

func TestEmbedded(t *testing.T) {
	_, err := chdblib.Find()
	testgate.Need(t, "libchdb.so for the analytics suite on the embedded endpoint (make chdb)", err)
	if os.Getenv(embedded.BinaryEnv) == "" {
		build(t, "github.com/ste-utility/ste/chendpoint/cmd/ste-chdb", "ste-chdb")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dsn, release, err := embeddedConfig().Hold(ctx, filepath.Join(tmpRoot, "home"))
	if err != nil {
		t.Fatalf("embedded endpoint: %v", err)
	}
	defer release()
	Run(t, Backend{Name: "embedded", DSN: dsn, SteBinary: steBinary})
}

func TestServer(t *testing.T) {
	testgate.Opt(t, "analytics-server")
	addr := os.Getenv("CLICKHOUSE_ADDR")
	Run(t, Backend{Name: "server", DSN: addr, DropDatabases: true, SteBinary: steBinary})
}

// TestMeasureIngest measures the ingest's rows per second on the embedded
// endpoint: STE_MEASURE_INGEST=N generates N trades' records (about 24 rows
// per trade), produces them to an in-process kfake, and times one ingest
// from the first record to caught up, with the default batch size.
func TestMeasureIngest(t *testing.T) {
	testgate.Opt(t, "measure-ingest")
	n, err := strconv.Atoi(os.Getenv("STE_MEASURE_INGEST"))
	if err != nil || n <= 0 {
		t.Fatalf("STE_MEASURE_INGEST=%q: want a number of trades", os.Getenv("STE_MEASURE_INGEST"))
	}
	_, err = chdblib.Find()
	testgate.Need(t, "libchdb.so (make chdb)", err)
	build(t, "github.com/ste-utility/ste/chendpoint/cmd/ste-chdb", "ste-chdb")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	dsn, release, err := embeddedConfig().Hold(ctx, filepath.Join(tmpRoot, "home"))
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	r, err := MeasureIngest(ctx, dsn, n)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s", r)
}
