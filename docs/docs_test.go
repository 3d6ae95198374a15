// Package docs_test holds docs/ to what it describes: the copies of the
// contract in docs/spec/ to the contract itself.
package docs_test

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// specFiles are the contract's documents: the wire (messages.md), the
// commands (cli.md) and the participants' HTTPS interface (gateway.md).
var specFiles = []string{"messages.md", "cli.md", "gateway.md"}

// sharedSpec is where the contract lives beside a clone: ../shared/spec
// from the repository's root, or $STE_SHARED_SPEC.
func sharedSpec() string {
	if d := os.Getenv("STE_SHARED_SPEC"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "shared", "spec")
}

// TestSpecCopiesAreTheContract: docs/spec/ holds byte-identical copies of
// the contract, so that a clone carries what its code cites and a change of
// the contract is seen on the next run (copy the new version in and follow
// it). Where the contract is not beside the clone the test skips, saying so.
func TestSpecCopiesAreTheContract(t *testing.T) {
	dir := sharedSpec()
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("the contract is not beside this clone (%s: %v): docs/spec/ not compared", dir, err)
	}
	for _, f := range specFiles {
		want, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Errorf("the contract has no %s: %v", f, err)
			continue
		}
		got, err := os.ReadFile(filepath.Join("spec", f))
		if err != nil {
			t.Errorf("docs/spec/%s: %v (copy %s in)", f, err, filepath.Join(dir, f))
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("docs/spec/%s differs from %s: copy it in (cp %[2]s docs/spec/) and follow the change", f, filepath.Join(dir, f))
		}
	}
}

// TestNoCitationOutsideTheRepository: the code and the docs cite the
// contract as docs/spec/<file> — what a clone has — never at its place
// beside the repository (../shared/spec), which a clone lacks. (Bare file
// names, "messages.md §7", are read as docs/spec's; new ones are written
// docs/spec/messages.md.)
func TestNoCitationOutsideTheRepository(t *testing.T) {
	root := ".."
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			switch rel {
			case ".git", "third_party", filepath.Join("docs", "spec"), "bin", "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		goFile := strings.HasSuffix(rel, ".go")
		if !goFile && !strings.HasSuffix(rel, ".md") || rel == filepath.Join("docs", "docs_test.go") {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for line := 1; sc.Scan(); line++ {
			text := sc.Text()
			if goFile {
				i := strings.Index(text, "//")
				if i < 0 {
					continue
				}
				text = text[i:] // comments only
			}
			if strings.Contains(text, "shared/spec") {
				t.Errorf("%s:%d cites the contract outside the repository: cite docs/spec/<file>", rel, line)
			}
		}
		return sc.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
}
