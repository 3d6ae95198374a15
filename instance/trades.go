package instance

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/ste-utility/ste/instance/api"
	"github.com/ste-utility/ste/processors/pipeline"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/topology"
)

// TradeAnswer and TradeFound are what /trades answers (instance/api).
type (
	TradeAnswer = api.TradeAnswer
	TradeFound  = api.TradeFound
)

// maxRefResults bounds a TradeRef search's answer.
const maxRefResults = 50

// serveTrades answers the operator's trade lookups from the match table:
// GET /trades/<trade key> (a point lookup; 404 when this instance does not
// hold it) and GET /trades?ref=<TradeRef> (a scan of the owned partitions).
// The console asks the instance that owns the trade's partition, so no
// table ever leaves its instance.
func (r *runtime) serveTrades(mux *http.ServeMux) {
	if !slices.Contains(r.o.Stages, topology.StageMatch) {
		none := func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, pipeline.ErrNoMatchTable.Error(), http.StatusNotFound)
		}
		mux.HandleFunc("/trades/", none)
		mux.HandleFunc("/trades", none)
		return
	}
	mux.HandleFunc("/trades/", func(w http.ResponseWriter, req *http.Request) {
		key, ok := schemas.ParseTradeKey(strings.TrimPrefix(req.URL.Path, "/trades/"))
		if !ok {
			http.Error(w, "want /trades/<trade key: 16 lower-case hex digits>", http.StatusBadRequest)
			return
		}
		f, found, err := r.tables.Trade(key, r.owned(topology.StageMatch))
		r.answerTrades(w, err, found, f)
	})
	mux.HandleFunc("/trades", func(w http.ResponseWriter, req *http.Request) {
		ref := req.URL.Query().Get("ref")
		if ref == "" {
			http.Error(w, "want /trades?ref=<TradeRef> or /trades/<trade key>", http.StatusBadRequest)
			return
		}
		limit, _ := strconv.Atoi(req.URL.Query().Get("limit"))
		if limit <= 0 || limit > maxRefResults {
			limit = maxRefResults
		}
		fs, err := r.tables.FindRef(ref, r.owned(topology.StageMatch), limit)
		r.answerTrades(w, err, true, fs...)
	})
}

func (r *runtime) answerTrades(w http.ResponseWriter, err error, found bool, fs ...pipeline.Found) {
	switch {
	case errors.Is(err, pipeline.ErrNoMatchTable):
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	case err != nil:
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	ans := TradeAnswer{Instance: r.id.ID, Trades: []TradeFound{}}
	for _, f := range fs {
		ans.Trades = append(ans.Trades, TradeFound{Partition: f.Partition, Trade: f.View})
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
