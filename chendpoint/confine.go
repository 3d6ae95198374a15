package chendpoint

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsyscall "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"

	"github.com/ste-utility/ste/chendpoint/internal/wire"
)

// The engine is confined in three layers, so that the SQL guard
// (internal/wire: refused functions, engines and clauses; an allow-list of
// settings) is not the only thing between an analytics login and the files
// and network of the user running STE.
//
//  1. chDB's own paths (Open): user_files_path, format_schema_path and
//     user_scripts_path (executable UDFs) name empty 0700 directories under
//     the data directory, and the process works in another one, so that a
//     relative path in file(), a format schema or an executable lands in an
//     empty private directory. clickhouse-local, which chDB is, does not
//     confine absolute paths to user_files_path or format_schema_path
//     (measured with libchdb 26.7.3: file('/etc/hostname') reads, a schema
//     written with output_format_schema = 'x.proto' lands in the working
//     directory) and ignores <remote_url_allow_hosts> (url() still fetched
//     with an empty allow-list, in a --config-file too) — hence layer 2.
//  2. Landlock (Options.Confine; cmd/ste-chdb always sets it), enforced on
//     the engine thread before chDB boots, so that every thread chDB starts
//     inherits it (see restrictThisThread): the engine may write
//     only under the data directory, read only there, in the system
//     directories and where libchdb.so is, and make no TCP connection at
//     all (the HTTP side accepts on a listener opened before, on threads of
//     its own). A url(), a schema registry, a
//     remote() or an S3 disk cannot connect; a file written elsewhere
//     cannot be created; a key in the operator's home cannot be read.
//     Landlock needs Linux 5.13 (files) and 6.7 (TCP); on an older kernel
//     Open logs what it could not apply and the other layers remain.
//  3. The guard, before any of it: the request never reaches the engine.

// confinedDirs are the empty private directories chDB's paths point at.
type confinedDirs struct {
	userFiles, formatSchemas, userScripts, cwd string
}

// prepareConfinedDirs (re)creates DataDir/.ste-confined/… empty and 0700.
func prepareConfinedDirs(dataDir string) (confinedDirs, error) {
	root := filepath.Join(dataDir, ".ste-confined")
	if err := os.RemoveAll(root); err != nil {
		return confinedDirs{}, err
	}
	d := confinedDirs{
		userFiles:     filepath.Join(root, "user_files"),
		formatSchemas: filepath.Join(root, "format_schemas"),
		userScripts:   filepath.Join(root, "user_scripts"),
		cwd:           filepath.Join(root, "cwd"),
	}
	for _, p := range []string{root, d.userFiles, d.formatSchemas, d.userScripts, d.cwd} {
		if err := os.Mkdir(p, 0o700); err != nil {
			return confinedDirs{}, err
		}
	}
	return d, nil
}

// connString is chdb-go's connection string for dir with chDB's paths set
// to d. chdb-go turns udf_path into `-- --user_scripts_path=…
// --user_defined_executable_functions_config=…/*.xml`; the parameters after
// it are configuration overrides as well.
func (d confinedDirs) connString(dir string) string {
	// tmp_path: clickhouse-local's default is /var/lib/clickhouse/tmp/,
	// outside what Landlock lets the engine write; spills of large sorts
	// and aggregations go under the data directory instead.
	return dir + "?udf_path=" + d.userScripts +
		"&user_files_path=" + d.userFiles +
		"&format_schema_path=" + d.formatSchemas +
		"&tmp_path=" + filepath.Join(dir, "tmp") + "/"
}

// Confinement is what Options.Confine asks of Landlock (layer 2): the
// engine may read and write under the data directory and RW, read under
// the system directories and RO, and make no TCP connection.
type Confinement struct {
	RW, RO []string
}

// landlockRuleset builds the ruleset for dataDir; fd is -1 when the kernel
// has no Landlock (best effort: what says so).
func (c Confinement) landlockRuleset(dataDir string) (fd int, flags uint32, what string, err error) {
	abi, _ := llsyscall.LandlockGetABIVersion()
	if abi < 1 {
		return -1, 0, "Landlock not available on this kernel: the engine is confined by its paths and the SQL guard only", nil
	}
	ro := []string{"/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin", "/etc", "/proc", "/sys", "/dev", "/run"}
	rules := []landlock.Rule{
		landlock.RODirs(append(ro, c.RO...)...).IgnoreIfMissing(),
		landlock.RWDirs(append([]string{dataDir}, c.RW...)...).IgnoreIfMissing(),
		landlock.RWFiles("/dev/null").IgnoreIfMissing(),
	}
	// V5 in best-effort mode: what the kernel supports of files (V1–V5) and
	// TCP (V4+); no TCP rule means no bind and no connect.
	fd, flags, err = landlock.V5.BestEffort().NewRulesetFD(rules...)
	if err != nil {
		return -1, 0, "", fmt.Errorf("landlock: %w", err)
	}
	what = fmt.Sprintf("Landlock ABI %d on the engine's threads: no file outside the data directory written, none outside it and the system directories read", abi)
	if abi >= 4 {
		what += ", no TCP connection made"
	} else {
		what += "; TCP not restricted (needs Landlock ABI 4, Linux 6.7)"
	}
	return fd, flags, what, nil
}

// restrictThisThread enforces the ruleset on the calling OS thread, which
// must be locked (runtime.LockOSThread) and never unlocked: the engine
// thread. Landlock cannot be applied to every thread of this process at
// once — chdb-go's purego makes the Go runtime believe cgo is linked, so
// syscall.AllThreadsSyscall is refused — and needs not be: every chDB call
// runs on the engine thread, and every thread chDB starts, it starts from
// there or from a thread it started, so all inherit the domain. The HTTP
// side of the endpoint runs on other threads and never calls chDB.
func restrictThisThread(fd int, flags uint32) error {
	defer unix.Close(fd)
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	if err := llsyscall.LandlockRestrictSelf(fd, flags); err != nil {
		return fmt.Errorf("landlock: %w", err)
	}
	return nil
}

// SelfCheck runs fixed probes straight on the engine, past the SQL guard,
// to show what layers 1 and 2 hold on their own: a file written through
// file() and through output_format_schema into outside (a directory not
// under the data directory), a file read from outside/secret, and url and
// format_avro_schema_registry_url fetched. It returns each probe's outcome:
// "ran" or the engine's error. `ste-chdb --self-check` prints it; the
// embedded tests require every probe to fail.
func (e *Endpoint) SelfCheck(outside, url string) map[string]string {
	q := wire.QuoteString
	// Without it a refused connection is retried with backoff for minutes.
	const oneTry = "http_max_tries = 1, http_retry_initial_backoff_ms = 1, http_retry_max_backoff_ms = 2"
	probes := map[string]string{
		"file() write":                    "INSERT INTO FUNCTION file(" + q(filepath.Join(outside, "file-write.csv")) + ", 'CSV', 's String') SELECT 'x'",
		"output_format_schema write":      "SELECT 1 AS x FORMAT Protobuf SETTINGS output_format_schema = " + q(filepath.Join(outside, "schema.proto")),
		"file() read":                     "SELECT * FROM file(" + q(filepath.Join(outside, "secret")) + ", 'LineAsString')",
		"url() fetch":                     "SELECT * FROM url(" + q(url) + ", 'LineAsString') SETTINGS " + oneTry,
		"format_avro_schema_registry_url": "SELECT * FROM format(AvroConfluent, 'x Int32', unhex('0000000001020304')) SETTINGS " + oneTry + ", format_avro_schema_registry_url = " + q(url),
	}
	out := make(map[string]string, len(probes))
	for name, query := range probes {
		_ = e.eng.do(context.Background(), func() {
			res, err := e.eng.main.Query(query, "TabSeparated")
			if err != nil {
				out[name] = err.Error()
				return
			}
			out[name] = "ran: " + strconv.Quote(res.String())
			res.Free()
		})
	}
	return out
}
