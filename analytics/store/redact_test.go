package store

import (
	"context"
	"strings"
	"testing"
	"time"
)

// Issue 45, finding 6: a ClickHouse DSN's password — in the userinfo or as
// a password URL parameter, parseable or not — never reaches an error or a
// log line (Store.DSN).
func TestDSNPasswordNeverPrinted(t *testing.T) {
	const pw = "S3CRETpw"
	for _, dsn := range []string{
		"http://default:" + pw + "@127.0.0.1:1/ste",
		"http://127.0.0.1:1/ste?username=default&password=" + pw,
		"clickhouse://127.0.0.1:1/ste?password=" + pw + "&dial_timeout=1s",
		"default:" + pw + "@127.0.0.1:1",
		"http://default:" + pw + "@127.0.0.1:1/%zz",
		"http://127.0.0.1:1/ste?password=" + pw + "&secure=notabool",
		"http://127.0.0.1:1/ste?Password=" + pw,
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		_, err := Open(ctx, dsn, Options{})
		cancel()
		if err == nil {
			t.Errorf("%s: opened", dsn)
			continue
		}
		if strings.Contains(err.Error(), pw) {
			t.Errorf("the password is in the error: %v", err)
		}
		if r := redact(dsn); strings.Contains(r, pw) {
			t.Errorf("redact(%q) = %q", dsn, r)
		}
	}
}
