// Package libguard makes ste-chdb fail with a one-line hint, exit status 2,
// instead of a panic when libchdb.so is missing.
//
// The problem: github.com/chdb-io/chdb-go loads the library in its package
// init and panics if dlopen fails, and Go runs every package init before
// main — so main cannot check anything first.
//
// The solution needs no second binary and no re-exec: since Go 1.21 the
// language specifies the init order ("Package initialization": repeatedly
// initialise the first package, in import-path order, whose imports are all
// initialised). chdb-go's chdb-purego package imports os/exec, so it cannot be
// initialised before os/exec. This package (with its only non-standard import,
// chendpoint/embedded/chdblib) imports nothing that os/exec does not import
// itself (os, path/filepath, errors), so it becomes ready no later than
// os/exec and, its path sorting before "os/exec", is initialised first. Its
// init therefore runs before chdb-go's: it finds the library (CHDB_LIB_PATH,
// the fetch.sh cache, next to the binary, system directories), exports
// CHDB_LIB_PATH so that chdb-go loads exactly that file, or prints the hint
// and exits 2.
//
// Keep it that way: adding an import here (or to chdblib) that os/exec does
// not already pull in can break the guarantee. The embedded package's tests
// run the built binary without the library and check for the one-line hint
// and the exit status, and check the init order with GODEBUG=inittrace=1.
package libguard

import (
	"os"

	"github.com/ste-utility/ste/chendpoint/embedded/chdblib"
)

// Path is the library chdb-go will load.
var Path string

func init() {
	p, err := chdblib.Find()
	if err != nil {
		os.Stderr.WriteString("ste-chdb: " + err.Error() + "\n")
		os.Exit(2)
	}
	Path = p
	os.Setenv(chdblib.EnvPath, p)
}
