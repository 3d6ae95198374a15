// Package xsdcheck validates ISO 20022 documents against the pinned
// official schemas (adapters.md §5.1) with a real validator, xmllint
// --schema (Debian libxml2-utils, which the Makefile installs), for the
// tests of every suite that produces ISO outputs. The schemas are the
// byte-for-byte copies in adapters/iso20022/testdata/iso20022, checked
// against the SHA-256 sums their README lists.
package xsdcheck

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// Dir is the directory of the pinned schemas, found from the working
// directory up to the module's root (a test runs in its package's
// directory). Not from the source file's path: the build is -trimpath
// (the Makefile's GOFLAGS), which leaves it an import path.
func Dir() string {
	const rel = "adapters/iso20022/testdata/iso20022"
	dir, err := os.Getwd()
	if err != nil {
		return rel
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, rel)
		}
		up := filepath.Dir(dir)
		if up == dir {
			return rel
		}
		dir = up
	}
}

// VerifyPinned checks every schema the README lists against its SHA-256.
func VerifyPinned() error {
	readme, err := os.ReadFile(filepath.Join(Dir(), "README.md"))
	if err != nil {
		return err
	}
	rows := regexp.MustCompile("\\| `([a-z0-9.]+\\.xsd)` \\| `([0-9a-f]{64})` \\|").FindAllStringSubmatch(string(readme), -1)
	if len(rows) < 8 {
		return fmt.Errorf("README lists %d schemas", len(rows))
	}
	for _, r := range rows {
		b, err := os.ReadFile(filepath.Join(Dir(), r[1]))
		if err != nil {
			return err
		}
		if s := sha256.Sum256(b); hex.EncodeToString(s[:]) != r[2] {
			return fmt.Errorf("%s: SHA-256 %x, the README pins %s", r[1], s, r[2])
		}
	}
	return nil
}

// Available says whether xmllint can be run.
func Available() bool {
	_, err := exec.LookPath("xmllint")
	return err == nil
}

var nsRE = regexp.MustCompile(`xmlns="urn:iso:std:iso:20022:tech:xsd:([a-z]+\.[0-9]{3}\.[0-9]{3}\.[0-9]{2})"`)

// Validate validates each document against the schema its default
// namespace names, in one xmllint run per message definition; the error
// names the first invalid document and xmllint's words.
func Validate(docs ...string) error {
	byDef := map[string][]string{}
	for _, d := range docs {
		m := nsRE.FindStringSubmatch(d)
		if m == nil {
			return fmt.Errorf("no ISO 20022 namespace in %.200s", d)
		}
		byDef[m[1]] = append(byDef[m[1]], d)
	}
	for def, ds := range byDef {
		dir, err := os.MkdirTemp("", "xsdcheck")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		var files []string
		for i, d := range ds {
			f := filepath.Join(dir, fmt.Sprintf("%06d.xml", i))
			if err := os.WriteFile(f, []byte(d), 0o644); err != nil {
				return err
			}
			files = append(files, f)
		}
		for len(files) > 0 {
			batch := files[:min(len(files), 500)]
			files = files[len(batch):]
			cmd := exec.Command("xmllint", append([]string{"--noout", "--schema", filepath.Join(Dir(), def+".xsd")}, batch...)...)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Run(); err != nil {
				text := out.String()
				for _, l := range strings.Split(text, "\n") {
					if strings.Contains(l, "fails to validate") || strings.Contains(l, "error") {
						f := strings.SplitN(l, ":", 2)[0]
						b, _ := os.ReadFile(f)
						return fmt.Errorf("%s: %s\n%s", def, text, b)
					}
				}
				return fmt.Errorf("%s: xmllint: %v: %s", def, err, text)
			}
		}
	}
	return nil
}
