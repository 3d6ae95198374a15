package console

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ste-utility/ste/instance/api"
	"github.com/ste-utility/ste/instance/lookup"
)

// The collector reads an instance's /status and /metrics at the address
// the registry gives and nowhere else: a redirect is not followed (to an
// internal address, say), and a reply of any size is not held whole
// (issue 30, finding 2).
func TestCollectorFollowsNoRedirectAndCapsReplies(t *testing.T) {
	var inner atomic.Int32
	internal := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inner.Add(1)
		json.NewEncoder(w).Encode(api.Status{ID: "internal"})
	}))
	defer internal.Close()
	redirecting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, internal.URL+r.URL.Path, http.StatusFound)
	}))
	defer redirecting.Close()
	huge := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/status" {
			json.NewEncoder(w).Encode(api.Status{ID: "huge"})
			return
		}
		line := []byte("# " + strings.Repeat("x", 1<<16) + "\n")
		for sent := 0; sent < 150<<20; sent += len(line) {
			if _, err := w.Write(line); err != nil {
				return
			}
		}
	}))
	defer huge.Close()

	c := &collector{client: instanceClient(5 * time.Second)}
	ctx := context.Background()
	r := c.readInstance(ctx, strings.TrimPrefix(redirecting.URL, "http://"))
	if inner.Load() != 0 || r.status != nil || r.err == "" {
		t.Fatalf("a redirect was followed: %d requests to the internal address, read %+v", inner.Load(), r)
	}
	r = c.readInstance(ctx, strings.TrimPrefix(huge.URL, "http://"))
	if r.metrics != nil || !strings.Contains(r.err, lookup.ErrTooLarge.Error()) {
		t.Fatalf("a 150 MB /metrics was read: %+v", r.err)
	}
}

func TestCapped(t *testing.T) {
	b, err := io.ReadAll(lookup.Capped(strings.NewReader("12345"), 5))
	if err != nil || string(b) != "12345" {
		t.Fatalf("at the cap: %q %v", b, err)
	}
	if _, err := io.ReadAll(lookup.Capped(strings.NewReader("123456"), 5)); !errors.Is(err, lookup.ErrTooLarge) {
		t.Fatalf("over the cap: %v", err)
	}
}
