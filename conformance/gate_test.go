package conformance

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// need is testgate.Need for this suite, which imports no STE package: a
// missing prerequisite (a tool, a privilege) fails the test under CI=true;
// otherwise it is skipped and recorded in $STE_SKIPS in testgate's format
// (package, test, kind, reason, command: tab-separated), which make test
// prints at its end.
func need(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI=true: %s: %v", what, err)
	}
	if path := os.Getenv("STE_SKIPS"); path != "" {
		why := strings.NewReplacer("\t", " ", "\n", " ").Replace(what + ": " + err.Error())
		if f, ferr := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); ferr == nil {
			f.WriteString(filepath.Base(mustWd()) + "\t" + t.Name() + "\tmissing\t" + why + "\t\n")
			f.Close()
		}
	}
	t.Skipf("%s: %v (under CI=true this fails)", what, err)
}

func mustWd() string {
	wd, _ := os.Getwd()
	return wd
}
