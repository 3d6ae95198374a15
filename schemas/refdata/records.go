package refdata

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Record is one message of the compacted <ns>.refdata topic. The key is the
// entity id ("security:SG1L01001701", "holiday:SG:2026-12-25") so that
// compaction keeps exactly the latest row of every entity; the value is that
// row as a compact JSON object whose names are the CSV column names.
type Record struct {
	Key, Value []byte
}

// Records turns the Set into topic records: currencies, countries,
// securities, participants, holidays, each sorted by id, so a load publishes
// the same bytes every time and consumers need no ordering between kinds.
func (s *Set) Records() []Record {
	var out []Record
	for _, t := range tables {
		for _, row := range t.rows(s) {
			out = append(out, Record{
				Key:   []byte(t.kind + ":" + t.rowID(row)),
				Value: rowJSON(t, row),
			})
		}
	}
	return out
}

func rowJSON(t *table, row []string) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, col := range t.allCols() {
		if row[i] == Absent {
			continue // an optional column the row did not say
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		name, _ := json.Marshal(col)
		b.Write(name)
		b.WriteByte(':')
		if col == t.numeric {
			b.WriteString(row[i])
		} else {
			v, _ := json.Marshal(row[i]) // strings always marshal
			b.Write(v)
		}
	}
	b.WriteByte('}')
	return b.Bytes()
}

// Apply upserts one topic record, validated exactly as a CSV row is. An
// unknown kind, a bad value, or a value whose id differs from its key is an
// error and leaves the Set unchanged. An empty value (a tombstone) is an
// error too: reference data is never deleted, an entity leaves use by its
// status. Like a Put, Apply must not run concurrently with readers.
func (s *Set) Apply(key, value []byte) error {
	k := string(key)
	kind, id, ok := strings.Cut(k, ":")
	t := tableByKind(kind)
	if !ok || t == nil {
		return fmt.Errorf("refdata record %q: unknown kind %q (want currency, country, security, participant, holiday, tolerance, market or affirmation)", k, kind)
	}
	if len(value) == 0 {
		return fmt.Errorf("refdata record %q: empty value; reference data is never deleted, set its status instead", k)
	}
	fields, err := decodeRow(t, value)
	if err != nil {
		return fmt.Errorf("refdata record %q: %v", k, err)
	}
	var ignored error
	if t.kind == "participant" {
		if v, ok := fields["public_key"]; ok {
			kept, why := stripBadKeys(v)
			if why != "" {
				fields["public_key"], fields[keysStripped] = kept, ""
				ignored = &KeyIgnoredError{Key: k, Reason: why}
			}
		}
	}
	get := func(col string) (string, bool) {
		v, ok := fields[col]
		return strings.TrimSpace(v), ok
	}
	// A table's refs (a tolerance's currency is known) are checked by loads
	// only: compaction may leave a tolerance before the currency rows that a
	// later load republished, so on the topic the order of kinds is not kept.
	gotID, put, err := t.parse(get)
	if err != nil {
		return fmt.Errorf("refdata record %q: %v", k, err)
	}
	if gotID != id {
		return fmt.Errorf("refdata record %q: value is for %s:%s, not for its key", k, kind, gotID)
	}
	put(s)
	return ignored
}

// keysStripped marks, among a topic record's fields, a public_key from which
// Apply removed the keys that fail KeyProblem: the row is applied with the
// rest, possibly none. No CSV header can hold it.
const keysStripped = "\x00keys-stripped"

// stripBadKeys keeps the items of a public_key value that are valid keys and
// says why the others were dropped ("" when none was).
func stripBadKeys(v string) (kept, why string) {
	items := strings.Split(v, ";")
	var good, reasons []string
	for i, item := range items {
		item = strings.TrimSpace(item)
		if _, err := parseKeys(item); err != nil {
			var fe *fieldError
			reason := err.Error()
			if errors.As(err, &fe) {
				reason = fe.reason
			}
			reasons = append(reasons, keyOrdinal(i, len(items))+reason)
			continue
		}
		good = append(good, item)
	}
	if len(good) > MaxKeys {
		return "", fmt.Sprintf("%d keys, at most %d", len(good), MaxKeys)
	}
	if len(reasons) == 0 {
		if _, err := parseKeys(strings.Join(good, ";")); err != nil { // the same key twice
			return good[0], "the same key twice"
		}
		return v, ""
	}
	return strings.Join(good, ";"), strings.Join(reasons, "; ")
}

// decodeRow reads the table's columns from a JSON object, as strings or
// numbers; numbers keep their text, so the one validation path of the CSV
// loader applies to them. Other members are ignored, like extra CSV columns,
// so that a newer writer can add fields.
func decodeRow(t *table, value []byte) (map[string]string, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(value, &raw); err != nil {
		return nil, fmt.Errorf("value is not a JSON object: %v", err)
	}
	out := make(map[string]string, len(raw))
	for _, name := range t.allCols() {
		v, ok := raw[name]
		if !ok {
			continue
		}
		v = bytes.TrimSpace(v)
		switch {
		case len(v) > 0 && v[0] == '"':
			var str string
			if err := json.Unmarshal(v, &str); err != nil {
				return nil, bad(name, "%v", err)
			}
			out[name] = str
		case len(v) > 0 && (v[0] == '-' || (v[0] >= '0' && v[0] <= '9')):
			out[name] = string(v)
		default:
			return nil, bad(name, "not a string or a number")
		}
	}
	return out, nil
}

// Check reports references between tables that point nowhere: a security's
// currency or country, a participant's country, a holiday's country. Loads
// do not enforce it (see Load); the generator's output must pass it, and an
// operator tool may warn with it.
func (s *Set) Check() error {
	var errs []error
	for _, x := range s.Securities() {
		if _, ok := s.currencies[x.Currency]; !ok {
			errs = append(errs, fmt.Errorf("security %s: unknown currency %s", x.ISIN, x.Currency))
		}
		if _, ok := s.countries[x.Country]; !ok {
			errs = append(errs, fmt.Errorf("security %s: unknown country %s", x.ISIN, x.Country))
		}
	}
	for _, p := range s.Participants() {
		if _, ok := s.countries[p.Country]; !ok {
			errs = append(errs, fmt.Errorf("participant %s: unknown country %s", p.BIC, p.Country))
		}
	}
	for _, h := range s.Holidays() {
		if _, ok := s.countries[h.Country]; !ok {
			errs = append(errs, fmt.Errorf("holiday %s %s: unknown country", h.Country, h.Date))
		}
	}
	return errors.Join(errs...)
}
