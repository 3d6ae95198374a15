// Package gate is testgate.Need for the chendpoint tree's tests, which
// import nothing of STE's (topology.TestChendpointIsFenced, tests
// included), so not testgate itself: a missing prerequisite fails the test
// under CI=true; otherwise it is skipped and recorded in $STE_SKIPS in
// testgate's format (package, test, kind, reason, command: tab-separated),
// which make test prints at its end. Tests import it; nothing else does.
package gate

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Need skips t (fails it under CI=true) when err says what it needs is
// missing, and records the skip.
func Need(t testing.TB, what string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI=true: %s: %v", what, err)
	}
	if path := os.Getenv("STE_SKIPS"); path != "" {
		wd, _ := os.Getwd()
		why := strings.NewReplacer("\t", " ", "\n", " ").Replace(what + ": " + err.Error())
		if f, ferr := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); ferr == nil {
			fmt.Fprintf(f, "chendpoint/%s\t%s\tmissing\t%s\t\n", filepath.Base(wd), t.Name(), why)
			f.Close()
		}
	}
	t.Skipf("%s: %v (under CI=true this fails)", what, err)
}
