package topology_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// aliasesAllowed are the type aliases the module may declare, as "file
// name": none. One name a type — a reader never meets two names for one
// thing (issue 47). A new alias needs a reason written here.
var aliasesAllowed = []string{}

// TestNoTypeAliases: no Go file of the module, tests included, declares a
// type alias (type A = B) but those listed in aliasesAllowed, and every
// one listed is still there.
func TestNoTypeAliases(t *testing.T) {
	var found []string
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("..", path)
		if d.IsDir() {
			switch rel {
			case ".git", "third_party", "bin", "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.TYPE {
				continue
			}
			for _, spec := range g.Specs {
				if ts := spec.(*ast.TypeSpec); ts.Assign.IsValid() {
					found = append(found, filepath.ToSlash(rel)+" "+ts.Name.Name)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range found {
		if !slices.Contains(aliasesAllowed, a) {
			t.Errorf("%s is a type alias: use the type's own name (or define a type of its own)", a)
		}
	}
	for _, a := range aliasesAllowed {
		if !slices.Contains(found, a) {
			t.Errorf("%s is gone: take it off aliasesAllowed", a)
		}
	}
}
