// Package store is STE's analytics database in ClickHouse: the connection
// (always github.com/ClickHouse/clickhouse-go/v2, against a ClickHouse server
// or the embedded chDB endpoint), the schema with its versioned migrations,
// and the idempotent inserts the ingest and the bench use.
//
// Why one package: the DDL, the column lists of the inserts and the
// deduplication settings they rely on must change together — a table whose
// materialized views' targets lack non_replicated_deduplication_window would
// silently double-count a replayed batch in the views (see
// chendpoint/embedded's dedup test), so the schema and the insert path are
// kept side by side.
//
// Every table lives in one database (default "ste", or the database named in
// the DSN) and carries a namespace column, so several runs and namespaces
// share one store; see docs/analytics.md for the tables and their queries.
package store

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// DefaultDatabase holds STE's tables unless the DSN names another.
const DefaultDatabase = "ste"

// DefaultRetention is how long rows are kept when Options.Retention is 0 at
// the store's creation.
const DefaultRetention = 90 * 24 * time.Hour

// Options tune Open.
type Options struct {
	// Retention of rows, by the time their record was written (TTL). Zero
	// keeps what the store has (DefaultRetention for a new store); a
	// different value is applied to every table with ALTER ... MODIFY TTL.
	Retention time.Duration
	// NoMigrate skips applying migrations (the caller knows the schema is
	// current). Open still fails if the store's schema is newer than this
	// code's.
	NoMigrate bool
	// OnClose runs once the store is closed (analytics.Open releases the
	// embedded endpoint it holds there).
	OnClose func()
}

// Store is an open analytics database.
type Store struct {
	conn    driver.Conn
	db      string
	dsn     string
	onClose func()
}

// Open connects to the ClickHouse named by dsn, checks that it answers, and
// applies the schema migrations. dsn is what clickhouse-go accepts —
// http://host:8123 (HTTP, as the embedded endpoint speaks), https://...,
// clickhouse://user:pass@host:9000 (native) — or a bare host:port, taken
// as native. A database in the DSN path is where STE's tables go (created
// if missing); default "ste".
func Open(ctx context.Context, dsn string, o Options) (_ *Store, err error) {
	defer func() {
		// Whatever the driver quotes of the DSN, its secrets are not
		// printed (issue 45, finding 6).
		if err != nil {
			if msg := scrub(err.Error(), dsn); msg != err.Error() {
				err = errors.New(msg)
			}
		}
	}()
	opts, db, err := parseDSN(dsn)
	if err != nil {
		return nil, err
	}
	conn, err := clickhouse.Open(opts)
	if err != nil {
		return nil, fmt.Errorf("clickhouse %s: %w", redact(dsn), err)
	}
	pctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if err := conn.Ping(pctx); err != nil {
		conn.Close()
		// The driver wraps a refused connection in three layers of context;
		// the dial error says it all.
		var op *net.OpError
		if errors.As(err, &op) {
			return nil, fmt.Errorf("clickhouse %s unreachable: %v", redact(dsn), op)
		}
		return nil, fmt.Errorf("clickhouse %s unreachable: %s", redact(dsn), oneLine(err))
	}
	s := &Store{conn: conn, db: db, dsn: dsn, onClose: o.OnClose}
	if err := s.migrate(ctx, o); err != nil {
		conn.Close()
		return nil, err
	}
	return s, nil
}

// Conn is the clickhouse-go connection, for queries of one's own.
func (s *Store) Conn() driver.Conn { return s.conn }

// Database is the database holding STE's tables.
func (s *Store) Database() string { return s.db }

// DSN is the address the store was opened with, its password masked (the
// embedded endpoint's DSN carries its secret): for messages.
func (s *Store) DSN() string { return redact(s.dsn) }

// Close closes the connection.
func (s *Store) Close() error {
	err := s.conn.Close()
	if s.onClose != nil {
		s.onClose()
		s.onClose = nil
	}
	return err
}

// Table returns the qualified name of a table: database.name.
func (s *Store) Table(name string) string { return s.db + "." + name }

var dbName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func parseDSN(dsn string) (*clickhouse.Options, string, error) {
	dsn = strings.TrimSpace(dsn)
	if dsn == "" {
		return nil, "", errors.New("no ClickHouse DSN")
	}
	if !strings.Contains(dsn, "://") {
		if _, _, err := net.SplitHostPort(dsn); err != nil {
			return nil, "", fmt.Errorf("clickhouse DSN %q: want http://host:port, clickhouse://host:port or host:port", redact(dsn))
		}
		dsn = "clickhouse://" + dsn
	}
	u, err := url.Parse(dsn)
	if err != nil {
		return nil, "", fmt.Errorf("clickhouse DSN %s: %s", redact(dsn), scrub(err.Error(), dsn))
	}
	if u.Scheme == "https" && !u.Query().Has("secure") {
		q := u.Query()
		q.Set("secure", "true")
		u.RawQuery = q.Encode()
		dsn = u.String()
	}
	opts, err := clickhouse.ParseDSN(dsn)
	if err != nil {
		return nil, "", fmt.Errorf("clickhouse DSN %s: %s", redact(dsn), scrub(err.Error(), dsn))
	}
	db := opts.Auth.Database
	if db == "" || db == "default" {
		db = DefaultDatabase
	}
	if !dbName.MatchString(db) {
		return nil, "", fmt.Errorf("clickhouse DSN: database %q: use letters, digits and _", db)
	}
	// Every statement names its database; the connection's own may not
	// exist yet (it is created by the first migration).
	opts.Auth.Database = ""
	if opts.DialTimeout == 0 {
		opts.DialTimeout = 10 * time.Second
	}
	if opts.ReadTimeout == 0 {
		opts.ReadTimeout = 5 * time.Minute
	}
	if opts.MaxOpenConns == 0 {
		opts.MaxOpenConns = 4
	}
	if opts.Protocol == clickhouse.Native && opts.Compression == nil {
		opts.Compression = &clickhouse.Compression{Method: clickhouse.CompressionLZ4}
	}
	return opts, db, nil
}

// redact hides the secrets of a DSN for messages: the password of its
// userinfo and the value of any URL parameter named like a secret
// (password, secret, token, key — clickhouse-go reads ?password=), whether
// or not the DSN parses.
func redact(dsn string) string {
	s := secretParam.ReplaceAllString(dsn, "${1}xxxxx")
	return userinfo.ReplaceAllString(s, "${1}${2}:xxxxx@")
}

var (
	secretParam = regexp.MustCompile(`(?i)((?:^|[?&;])[^=&;?]*(?:password|passwd|secret|token|key)[^=&;]*=)[^&;#]*`)
	userinfo    = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.-]*://)?([^:/@?#]*):[^@]*@`)
)

// scrub removes from msg (an error that may quote the DSN, or part of it,
// in any form) every secret of dsn, raw or URL-decoded.
func scrub(msg, dsn string) string {
	var secrets []string
	if m := userinfo.FindStringSubmatchIndex(dsn); m != nil {
		at := strings.IndexByte(dsn[m[5]:], ':') // after the user name
		if at >= 0 {
			secrets = append(secrets, dsn[m[5]+at+1:m[1]-1])
		}
	}
	for _, m := range secretParam.FindAllStringSubmatchIndex(dsn, -1) {
		secrets = append(secrets, dsn[m[3]:m[1]])
	}
	for _, sec := range secrets {
		if sec == "" {
			continue
		}
		msg = strings.ReplaceAll(msg, sec, "xxxxx")
		if dec, err := url.QueryUnescape(sec); err == nil && dec != "" {
			msg = strings.ReplaceAll(msg, dec, "xxxxx")
		}
	}
	return msg
}

// oneLine keeps the first line of an error: ClickHouse exceptions carry a
// stack trace after it.
func oneLine(err error) string {
	s := strings.TrimSpace(err.Error())
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// exec runs one statement.
func (s *Store) exec(ctx context.Context, q string, args ...any) error {
	if err := s.conn.Exec(ctx, q, args...); err != nil {
		return fmt.Errorf("clickhouse: %s: %s", firstWords(q), oneLine(err))
	}
	return nil
}

func firstWords(q string) string {
	f := strings.Fields(q)
	if len(f) > 6 {
		f = f[:6]
	}
	return strings.Join(f, " ")
}
