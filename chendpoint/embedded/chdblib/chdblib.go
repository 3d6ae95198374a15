// Package chdblib locates libchdb.so, the ClickHouse engine as a shared
// library, without loading it.
//
// Why a package of its own: github.com/chdb-io/chdb-go loads the library in
// its package init and panics when it is missing, so every check has to
// happen in code that does not link chdb-go — the embedded launcher
// (chendpoint/embedded), the tests, and the init guard of chendpoint/cmd/ste-chdb that
// must run before chdb-go's init (see chendpoint/cmd/ste-chdb/internal/libguard).
//
// Constraint, because of that guard: this package may only import packages
// that os/exec also imports (errors, os, path/filepath, strings, ...). Go
// initialises a package as soon as its imports are initialised, choosing the
// smallest import path among the ready ones; chdb-go imports os/exec, so a
// guard whose whole import graph is a subset of os/exec's is initialised
// before os/exec and therefore before chdb-go.
package chdblib

import (
	"errors"
	"os"
	"path/filepath"
)

// Version is the libchdb.so release STE is built and tested against (the npm
// package @chdb/lib-linux-x64-gnu, fetched by chendpoint/libchdb/fetch.sh).
const Version = "26.7.3-stable.1"

// EnvPath is the environment variable chdb-go reads at init to find the
// library; we honour it first, too.
const EnvPath = "CHDB_LIB_PATH"

// Hint is the one-line instruction printed when the library is missing.
const Hint = "libchdb.so not found: run chendpoint/libchdb/fetch.sh or set CHDB_LIB_PATH"

// ErrNotFound is returned by Find when no candidate exists. Its message is
// Hint, so it can be shown to a user as is.
var ErrNotFound = errors.New(Hint)

// CachePath is where chendpoint/libchdb/fetch.sh puts the library:
// ${STE_CACHE:-$HOME/.cache/ste}/chdb/<Version>/libchdb.so.
func CachePath() string {
	root := os.Getenv("STE_CACHE")
	if root == "" {
		home, err := os.UserHomeDir()
		if err != nil || home == "" {
			home = os.TempDir()
		}
		root = filepath.Join(home, ".cache", "ste")
	}
	return filepath.Join(root, "chdb", Version, "libchdb.so")
}

// Candidates lists, in order, the paths Find tries when CHDB_LIB_PATH is not
// set: the fetch.sh cache, next to the running executable (and ../lib, for a
// packaged install), then the usual system library directories.
func Candidates() []string {
	c := []string{CachePath()}
	if exe, err := os.Executable(); err == nil {
		dir := filepath.Dir(exe)
		c = append(c, filepath.Join(dir, "libchdb.so"), filepath.Join(dir, "..", "lib", "libchdb.so"))
	}
	return append(c,
		"/usr/local/lib/libchdb.so",
		"/usr/lib/libchdb.so",
		"/usr/lib/x86_64-linux-gnu/libchdb.so",
		"/usr/lib64/libchdb.so",
	)
}

// Find returns the absolute path of the library to load. When CHDB_LIB_PATH is
// set it is authoritative: a missing file there is an error rather than a
// silent fall-back, so a mistyped path is noticed. The returned error, if
// any, is a single line meant for users.
func Find() (string, error) {
	if p := os.Getenv(EnvPath); p != "" {
		if !isFile(p) {
			return "", errors.New("libchdb.so not found: CHDB_LIB_PATH=" + p + " is not a file; run chendpoint/libchdb/fetch.sh or fix CHDB_LIB_PATH")
		}
		return abs(p), nil
	}
	for _, p := range Candidates() {
		if isFile(p) {
			return abs(p), nil
		}
	}
	return "", ErrNotFound
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Size() > 0
}

func abs(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		p = a
	}
	return p
}
