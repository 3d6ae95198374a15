package instance

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strconv"

	"github.com/ste-utility/ste/instance/api"
	"github.com/ste-utility/ste/processors/query"
	"github.com/ste-utility/ste/topology"
)

// maxAtRisk bounds one answer.
const maxAtRisk = 500

// serveAtRisk answers GET /at-risk?market=M&participant=BIC&limit=N from
// the at-risk index (docs/timeliness.md); the console merges the answers of
// every instance running the match group.
func (r *runtime) serveAtRisk(mux *http.ServeMux) {
	mux.HandleFunc("/at-risk", func(w http.ResponseWriter, req *http.Request) {
		if !slices.Contains(r.o.Stages, topology.StageMatch) {
			http.Error(w, query.ErrNoMatchTable.Error(), http.StatusNotFound)
			return
		}
		q := req.URL.Query()
		limit, _ := strconv.Atoi(q.Get("limit"))
		if limit <= 0 || limit > maxAtRisk {
			limit = maxAtRisk
		}
		ts, err := r.tables.AtRisk(query.AtRiskQuery{Market: q.Get("market"), Participant: q.Get("participant"), Limit: limit},
			r.owned(topology.StageMatch))
		switch {
		case errors.Is(err, query.ErrNoMatchTable):
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		case err != nil:
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		ans := api.AtRiskAnswer{Instance: r.id.ID, Trades: make([]query.AtRisk, len(ts))}
		copy(ans.Trades, ts)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(ans)
	})
}
