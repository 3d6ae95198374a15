// Package docs_test holds docs/ to what it describes: the copies of the
// contract in docs/spec/ to the contract itself, and ARCHITECTURE.md's file
// map to the module's packages.
package docs_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ste-utility/ste/testgate"
)

// specFiles are the contract's documents: the wire (messages.md), the
// commands (cli.md) and the participants' HTTPS interface (gateway.md).
var specFiles = []string{"messages.md", "cli.md", "gateway.md", "adapters.md"}

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
// it). Where the contract is not beside the clone the test skips, saying so
// (make test lists it at its end), and under CI=true it fails: a CI
// machine must have the contract to check the copies against.
func TestSpecCopiesAreTheContract(t *testing.T) {
	dir := sharedSpec()
	_, err := os.Stat(dir)
	testgate.Need(t, "the contract beside this clone (../shared/spec from its root, or STE_SHARED_SPEC) to compare docs/spec/ with", err)
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

// TestFileMapIsTheTree holds ARCHITECTURE.md's file map to the module:
// every package `go list ./...` names has its line (a directory in the
// first column), every directory listed is there, one holding Go files is
// a package of the module (third_party's are modules of their own), and
// every .go file a line names is in its directory.
func TestFileMapIsTheTree(t *testing.T) {
	_, err := exec.LookPath("go")
	testgate.Need(t, "the go command on PATH", err)
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "list", "-f", "{{.Dir}}", "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list ./...: %v", err)
	}
	packages := map[string]bool{}
	for _, dir := range strings.Fields(string(out)) {
		rel, err := filepath.Rel(root, dir)
		if err != nil || strings.HasPrefix(rel, "..") {
			t.Fatalf("package %s is outside %s", dir, root)
		}
		packages[filepath.ToSlash(rel)] = true
	}
	listed, err := fileMap(filepath.Join(root, "docs", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	for pkg := range packages {
		if _, ok := listed[pkg]; !ok {
			t.Errorf("package %s is not in ARCHITECTURE.md's file map: give it a line", pkg)
		}
	}
	for dir, names := range listed {
		abs := filepath.Join(root, filepath.FromSlash(dir))
		if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
			t.Errorf("the file map lists %s/, which is not a directory", dir)
			continue
		}
		if gofiles, _ := filepath.Glob(filepath.Join(abs, "*.go")); len(gofiles) > 0 && !packages[dir] && !strings.HasPrefix(dir, "third_party/") {
			t.Errorf("the file map lists %s/, which holds Go files but is no package of the module", dir)
		}
		for _, name := range names {
			if m, _ := filepath.Glob(filepath.Join(abs, filepath.FromSlash(name))); len(m) == 0 {
				t.Errorf("the file map names %s in %s/, which has no such file", name, dir)
			}
		}
	}
}

// fileMap reads the code block under "## File map": each line starting
// with a directory (ending in /) opens its entry; the .go files named on it
// and on its indented continuation lines are the entry's.
func fileMap(path string) (map[string][]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	_, after, ok := strings.Cut(string(b), "\n## File map")
	if !ok {
		return nil, errors.New("ARCHITECTURE.md has no \"## File map\" section")
	}
	_, block, ok := strings.Cut(after, "\n```\n")
	if !ok {
		return nil, errors.New("the file map has no code block")
	}
	block, _, _ = strings.Cut(block, "\n```")
	goFile := regexp.MustCompile(`[\w*./-]+\.go\b`)
	listed := map[string][]string{}
	cur := ""
	for _, line := range strings.Split(block, "\n") {
		if line != "" && line[0] != ' ' {
			first, _, _ := strings.Cut(line, " ")
			if !strings.HasSuffix(first, "/") {
				return nil, fmt.Errorf("file map line %q does not start with a directory", line)
			}
			cur = strings.TrimSuffix(first, "/")
			if _, ok := listed[cur]; !ok {
				listed[cur] = nil // a directory listed with no file named
			}
			line = strings.TrimPrefix(line, first)
		}
		if cur == "" {
			continue
		}
		for _, name := range goFile.FindAllString(line, -1) {
			if !strings.Contains(name, "/") { // a path elsewhere (topics.Specs-like names have no .go)
				listed[cur] = append(listed[cur], name)
			}
		}
	}
	return listed, nil
}
