package instance

import (
	"bytes"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ste-utility/ste/instance/api"
	"github.com/ste-utility/ste/instance/lookup"
	"github.com/ste-utility/ste/processors/query"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/topology"
)

// serveLookup serves the trade lookups on their own listener, apart from
// /metrics and the probes: whole trades are for the console and the
// gateway only, so every request needs the utility's lookup token (a
// bearer token derived from the shared secret), and a network policy can
// let only those reach the port. GET /trades/<trade key> is a point lookup
// (404 when this instance does not hold it); GET /trades?ref=<TradeRef>
// goes through the TradeRef index. Both take party=<BIC>: only trades that
// BIC is a party to are answered (the gateway's participants). The
// console asks the instance that owns the trade's partition, so no table
// ever leaves its instance. GET /at-risk is served here too.
func (r *runtime) serveLookup(ln net.Listener) (stop func()) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+lookup.PathTrade+"{key}", func(w http.ResponseWriter, req *http.Request) {
		key, ok := schemas.ParseTradeKey(req.PathValue("key"))
		if !ok {
			http.Error(w, "want /trades/<trade key: 16 lower-case hex digits>", http.StatusBadRequest)
			return
		}
		owned := r.owned(topology.StageMatch)
		f, found, err := r.tables.Trade(key, req.URL.Query().Get("party"), owned)
		r.answerTrades(w, owned, err, found, false, f)
	})
	mux.HandleFunc("GET "+lookup.PathRef, func(w http.ResponseWriter, req *http.Request) {
		q := req.URL.Query()
		ref := q.Get("ref")
		if ref == "" {
			http.Error(w, "want /trades?ref=<TradeRef> or /trades/<trade key>", http.StatusBadRequest)
			return
		}
		limit, _ := strconv.Atoi(q.Get("limit"))
		if limit <= 0 || limit > lookup.MaxLimit {
			limit = lookup.MaxLimit
		}
		owned := r.owned(topology.StageMatch)
		fs, more, err := r.tables.FindRef(query.RefQuery{Ref: ref, Date: q.Get("date"), Party: q.Get("party"), Limit: limit}, owned)
		r.answerTrades(w, owned, err, true, more, fs...)
	})
	// A participant's work queue (gateway.md v2 §4c), from the queue
	// indexes of the partitions this instance owns.
	mux.Handle("GET "+lookup.PathQueue, QueueHandler(r.id.ID, &r.tables.Tables, func() []int32 { return r.owned(topology.StageMatch) }))
	// The at-risk list (atrisk.go) names trades and who owes what on them:
	// trade content too.
	r.serveAtRisk(mux)
	srv := &http.Server{Handler: r.authorized(mux), ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	return func() { srv.Close() }
}

// QueueHandler answers lookup.PathQueue for instance id from t's queue
// indexes of the partitions owned says this instance owns now: 400 for a
// question out of its form, 503 while a partition is recovering, 404
// without a match table.
func QueueHandler(id string, t *query.Tables, owned func() []int32) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		q, err := lookup.ParseQueue(req.URL.Query())
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		parts := owned()
		fs, err := t.Queue(q, parts)
		switch {
		case errors.Is(err, query.ErrBadQueue):
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		case errors.Is(err, query.ErrNoMatchTable):
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		case errors.Is(err, query.ErrRecovering):
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		case err != nil:
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		ans := api.QueueAnswer{Instance: id, Owned: slices.Clone(parts), Trades: make([]api.QueueFound, len(fs))}
		if ans.Owned == nil {
			ans.Owned = []int32{}
		}
		for i, f := range fs {
			ans.Trades[i] = api.QueueFound{Partition: f.Partition, Trade: f.Trade}
		}
		// With its length, in one write: json.Encoder on w wrote a page
		// of 100 trades (~60 KB) chunked, in 4 KB writes. Its trades in
		// the queue's encoding: the gateway copies them into its page.
		var buf bytes.Buffer
		if err := query.NewQueueEncoder(&buf).Encode(ans); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		b := buf.Bytes()
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		w.Write(b)
	})
}

// authorized lets through requests with the lookup token only.
func (r *runtime) authorized(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if !r.o.Secret.CheckToken(lookup.TokenPurpose, lookup.BearerToken(req)) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="ste-lookup"`)
			http.Error(w, "the trade lookup needs the utility's lookup token", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, req)
	})
}

func (r *runtime) answerTrades(w http.ResponseWriter, owned []int32, err error, found, more bool, fs ...query.Found) {
	switch {
	case errors.Is(err, query.ErrNoMatchTable):
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	case errors.Is(err, query.ErrRecovering):
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	case err != nil:
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	ans := api.TradeAnswer{Instance: r.id.ID, Owned: slices.Clone(owned), Trades: []api.TradeFound{}, More: more}
	if ans.Owned == nil {
		ans.Owned = []int32{}
	}
	for _, f := range fs {
		ans.Trades = append(ans.Trades, api.TradeFound{Partition: f.Partition, Trade: f.View})
	}
	w.Header().Set("Content-Type", "application/json")
	if !found {
		w.WriteHeader(http.StatusNotFound)
	}
	json.NewEncoder(w).Encode(ans)
}

// owned is the partitions of a stage this instance owns now.
func (r *runtime) owned(st topology.Stage) []int32 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.assigned[st]
}

// advertised is the address to announce for a listener bound to addr: on
// every interface, the address this host reaches the first broker from
// (what other machines can dial, and what the brokers see — the lookup
// client checks that), else addr itself.
func advertised(addr string, brokers []string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || len(brokers) == 0 {
		return addr
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsUnspecified() {
		return addr
	}
	c, err := net.Dial("udp", brokers[0]) // no packet is sent: routing only
	if err != nil {
		return addr
	}
	defer c.Close()
	local, ok := c.LocalAddr().(*net.UDPAddr)
	if !ok {
		return addr
	}
	return net.JoinHostPort(strings.TrimSuffix(local.IP.String(), "%"), port)
}
