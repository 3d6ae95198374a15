package gateway

import (
	"net/http"
	"net/url"
)

// A page of the work queue is asked of the instances while its nonce is
// spent: the nonce record's round trip to the brokers (and the wait for
// the records before it) was the second largest part of a page's time
// after the instances' answers, and the two depend on nothing of each
// other (docs/benchmarks.md, "The work queue"). Nothing of the answer is
// written — no status, no header, no byte, no access log line — before
// the nonce is spent: a replayed request gets its 401 exactly as before,
// the lookup it started thrown away. The request's signature, window,
// participant and rate were all checked before the lookup began, so a
// stranger starts none, and a replay costs what the participant's own
// requests cost, within its rate.

// overlapsSpend says whether a request's answer may be prepared while its
// nonce is spent: a GET of the work queue (no trade_ref), which has no
// body and changes nothing.
func overlapsSpend(route string, r *http.Request) bool {
	if route != "trades" || r.Method != http.MethodGet || r.ContentLength > 0 {
		return false
	}
	q, err := url.ParseQuery(r.URL.RawQuery)
	return err == nil && !q.Has("trade_ref")
}

// afterSpend holds an answer back until the request's nonce is spent:
// headers set before are kept aside, and the first status or byte written,
// or confirm, waits for the spend; a refused spend is answered as
// authenticate answers it, and whatever the handler writes after is
// dropped.
type afterSpend struct {
	w      http.ResponseWriter
	h      http.Header
	settle func(http.ResponseWriter) bool // waits for the spend; false: answered (refused)
	done   bool
	ok     bool
}

func (a *afterSpend) Header() http.Header {
	if a.done && a.ok {
		return a.w.Header()
	}
	return a.h
}

// confirm waits for the spend (once): true when the request may be
// answered.
func (a *afterSpend) confirm() bool {
	if !a.done {
		a.done = true
		a.ok = a.settle(a.w)
		if a.ok {
			for k, v := range a.h {
				a.w.Header()[k] = v
			}
		}
	}
	return a.ok
}

func (a *afterSpend) WriteHeader(code int) {
	if a.confirm() {
		a.w.WriteHeader(code)
	}
}

func (a *afterSpend) Write(b []byte) (int, error) {
	if !a.confirm() {
		return len(b), nil
	}
	return a.w.Write(b)
}

func (a *afterSpend) Unwrap() http.ResponseWriter { return a.w }

// confirmed waits for w's nonce to be spent when its answer was prepared
// meanwhile: false when the request was refused (and answered).
func confirmed(w http.ResponseWriter) bool {
	if a, ok := w.(*afterSpend); ok {
		return a.confirm()
	}
	return true
}
