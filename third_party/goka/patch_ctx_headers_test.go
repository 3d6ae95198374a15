package goka

import (
	"maps"
	"testing"
)

// TestPatchCtxHeadersNotCopied (PATCHES.md, patch 7): the headers of a
// context's one WithCtxEmitHeaders option are used as they are; without the
// patch they were copied into a new map for every write. Headers of a
// second option are merged into a new map, leaving both untouched.
func TestPatchCtxHeadersNotCopied(t *testing.T) {
	h1, h2 := Headers{"a": []byte("1")}, Headers{"b": []byte("2"), "a": []byte("3")}
	one := []ContextOption{WithCtxEmitHeaders(h1)}
	if n := testing.AllocsPerRun(200, func() { ctxOptionsOf(one) }); n > 1 {
		t.Fatalf("applying one header option allocates %.0f times, want at most its options", n)
	}
	if got := ctxOptionsOf(one).emitHeaders; !maps.EqualFunc(got, h1, bytesEqual) {
		t.Fatalf("headers %v, want %v", got, h1)
	}
	got := ctxOptionsOf([]ContextOption{WithCtxEmitHeaders(h1), WithCtxEmitHeaders(h2)}).emitHeaders
	if want := (Headers{"a": []byte("3"), "b": []byte("2")}); !maps.EqualFunc(got, want, bytesEqual) {
		t.Fatalf("merged %v, want %v", got, want)
	}
	if len(h1) != 1 || string(h1["a"]) != "1" || len(h2) != 2 {
		t.Fatalf("an option's headers changed: %v %v", h1, h2)
	}
	if got := ctxOptionsOf([]ContextOption{WithCtxEmitHeaders(nil)}).emitHeaders; got != nil {
		t.Fatalf("empty headers: %v, want nil", got)
	}
}

func bytesEqual(a, b []byte) bool { return string(a) == string(b) }
