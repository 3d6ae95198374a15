package refdata

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Files lists the five CSV files a reference data directory must hold, in the
// contract's order (read only).
var Files = []string{"currencies.csv", "countries.csv", "securities.csv", "participants.csv", "holidays.csv"}

// OptionalFiles lists the files a directory may hold besides Files (read
// only): absent, they load as no rows.
var OptionalFiles = []string{"tolerances.csv", AffirmationFile, MarketsFile}

// RowError locates a problem in a reference data file so that an operator can
// go straight to it: "file:line: column "x": reason". Line is 0 for a problem
// with the file as a whole, Column empty for one with the row as a whole.
type RowError struct {
	File   string
	Line   int
	Column string
	Reason string
}

func (e *RowError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Column != "" {
		fmt.Fprintf(&b, "column %q: ", e.Column)
	}
	b.WriteString(e.Reason)
	return b.String()
}

// maxLoadErrors caps the errors one load reports: enough to fix a file in one
// pass, not so many that a wrong file floods the terminal.
const maxLoadErrors = 20

// LoadDir reads the CSV files of dir (Files, and OptionalFiles present). Errors name the files by their
// path under dir; a dir that is not there is one error, not five.
func LoadDir(dir string) (*Set, error) {
	if fi, err := os.Stat(dir); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("reference data directory %s does not exist (ste refdata gen --out %s writes one)", dir, dir)
		}
		return nil, err
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("reference data directory %s is not a directory", dir)
	}
	return load(os.DirFS(dir), dir)
}

// Load reads the CSV files at the root of fsys (an embedded default set,
// a test's fstest.MapFS).
//
// Every file needs its header row. Columns are found by name, so any column
// order is accepted; names must match the contract exactly (after trimming),
// a required column missing or any name given twice is an error, and extra
// columns are ignored so that files carrying more data still load. Fields are
// trimmed of surrounding whitespace; blank lines are skipped. A key given
// twice in one file is an error, since a later row would otherwise silently
// win. All problems are reported (up to 20), each as a *RowError, joined.
// References between files (a security's currency, a holiday's country) are
// not checked: validation depends only on each row, and the topic may receive
// rows in any order; see Set.Check.
func Load(fsys fs.FS) (*Set, error) { return load(fsys, "") }

func load(fsys fs.FS, dir string) (*Set, error) {
	s := NewSet()
	var errs []error
	for _, t := range tables {
		name := t.file
		if dir != "" {
			name = filepath.Join(dir, t.file)
		}
		errs = readTable(fsys, name, t, s, errs)
		if len(errs) >= maxLoadErrors {
			errs = append(errs[:maxLoadErrors], fmt.Errorf("too many errors, stopped"))
			break
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return s, nil
}

func readTable(fsys fs.FS, name string, t *table, s *Set, errs []error) []error {
	fail := func(line int, col, format string, args ...any) {
		errs = append(errs, &RowError{File: name, Line: line, Column: col, Reason: fmt.Sprintf(format, args...)})
	}
	// Regular files only: /dev/zero would be read until memory runs out, a
	// FIFO would block (Stat follows symlinks).
	if fi, err := fs.Stat(fsys, t.file); err == nil && !fi.Mode().IsRegular() {
		fail(0, "", "not a regular file")
		return errs
	}
	data, err := fs.ReadFile(fsys, t.file)
	if errors.Is(err, fs.ErrNotExist) && t.optional {
		return errs
	}
	if errors.Is(err, fs.ErrNotExist) {
		fail(0, "", "missing file: a reference data directory holds %s", strings.Join(Files, ", "))
		return errs
	}
	if err != nil {
		fail(0, "", "%v", err)
		return errs
	}
	data = bytes.TrimPrefix(data, []byte("\uFEFF")) // spreadsheet exports start with a BOM

	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1 // counted here, to report it in our own words
	r.TrimLeadingSpace = true

	header, err := r.Read()
	if err == io.EOF {
		fail(0, "", "empty file: a header row %q is required", strings.Join(t.cols, ","))
		return errs
	}
	if err != nil {
		return appendParseError(errs, name, err)
	}
	headerLine, _ := r.FieldPos(0)
	index := map[string]int{}
	for i, h := range header {
		h = strings.TrimSpace(h)
		if h == "" {
			fail(headerLine, "", "header field %d is empty", i+1)
			continue
		}
		if _, dup := index[h]; dup {
			fail(headerLine, h, "duplicate header")
			continue
		}
		index[h] = i
	}
	before := len(errs)
	for _, c := range t.cols {
		if _, ok := index[c]; !ok {
			fail(headerLine, c, "missing from the header (want %s)", strings.Join(t.cols, ","))
		}
	}
	if len(errs) > before {
		return errs // rows cannot be read without their columns
	}

	seen := map[string]int{}
	idCol := t.cols[0]
	if t.kind == "holiday" {
		idCol = "date"
	}
	for len(errs) < maxLoadErrors {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			errs = appendParseError(errs, name, err)
			continue
		}
		line, _ := r.FieldPos(0)
		if blank(rec) {
			continue
		}
		if len(rec) != len(header) {
			fail(line, "", "wrong field count: %d fields, the header has %d", len(rec), len(header))
			continue
		}
		get := func(col string) (string, bool) {
			i, ok := index[col]
			if !ok {
				return "", false
			}
			return strings.TrimSpace(rec[i]), true
		}
		id, put, err := t.parse(get)
		if err != nil {
			var fe *fieldError
			if errors.As(err, &fe) {
				fail(line, fe.col, "%s", fe.reason)
			} else {
				fail(line, "", "%v", err)
			}
			continue
		}
		if t.refs != nil {
			if err := t.refs(s, get); err != nil {
				var fe *fieldError
				if errors.As(err, &fe) {
					fail(line, fe.col, "%s", fe.reason)
				} else {
					fail(line, "", "%v", err)
				}
				continue
			}
		}
		if first, dup := seen[id]; dup && !t.lastWins {
			fail(line, idCol, "duplicate of line %d", first)
			continue
		}
		seen[id] = line
		put(s)
	}
	return errs
}

func appendParseError(errs []error, name string, err error) []error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return append(errs, &RowError{File: name, Line: pe.Line, Reason: pe.Err.Error()})
	}
	return append(errs, &RowError{File: name, Reason: err.Error()})
}

func blank(rec []string) bool {
	for _, f := range rec {
		if strings.TrimSpace(f) != "" {
			return false
		}
	}
	return true
}

// WriteDir writes the five CSV files into dir (created if needed): header in
// the contract's column order, rows sorted by key, "\n" line ends, quoting
// only where CSV needs it. The bytes depend only on the Set's content, so a
// generated set can be committed and checked for drift. Each file is written
// to a temporary name and renamed, so a reader never sees half a file.
func (s *Set) WriteDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, t := range tables {
		if t.optional && !t.writeEmpty && len(t.rows(s)) == 0 {
			continue // an optional file without rows is left out, not written empty
		}
		if err := writeFileAtomic(filepath.Join(dir, t.file), s.csvBytes(t)); err != nil {
			return err
		}
	}
	return nil
}

func (s *Set) csvBytes(t *table) []byte {
	rows := t.rows(s)
	// An optional column is written when some row says it; a row that
	// does not is written "" there.
	cols := slices.Clone(t.cols)
	for j, c := range t.optCols {
		i := len(t.cols) + j
		said := false
		for _, r := range rows {
			said = said || r[i] != Absent
		}
		if said {
			cols = append(cols, c)
		}
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	_ = w.Write(cols) // writes to a bytes.Buffer cannot fail
	for _, r := range rows {
		out := make([]string, 0, len(cols))
		for i, c := range t.allCols() {
			if slices.Contains(cols, c) {
				v := r[i]
				if v == Absent {
					v = ""
				}
				out = append(out, v)
			}
		}
		_ = w.Write(out)
	}
	w.Flush()
	return buf.Bytes()
}

func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}
