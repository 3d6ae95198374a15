package instance

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/ste-utility/ste/instance/api"
	"github.com/ste-utility/ste/topology"
)

func (r *runtime) status() api.Status {
	e := r.entry()
	s := api.Status{ID: e.ID, Namespace: e.Namespace, Groups: e.Groups, Version: e.Version, Ready: e.Ready,
		Health: e.Health, Started: e.Started, Assigned: map[string][]int32{}, GroupLag: map[string]int64{}}
	r.mu.Lock()
	defer r.mu.Unlock()
	for st, parts := range r.assigned {
		s.Assigned[st.String()] = parts
	}
	s.LagAt = r.lastLag.At
	for _, p := range r.lastLag.Partitions {
		s.GroupLag[p.Stage] += p.Lag
		for _, st := range r.o.Stages {
			if p.ClientID == topology.ClientID(r.id.ID, st) {
				s.Lag = append(s.Lag, p)
			}
		}
	}
	return s
}

// serveHTTP serves the endpoints on ln until the returned stop is called.
func (r *runtime) serveHTTP(ln net.Listener) (stop func()) {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(r.reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		if h := r.health(); h != "ok" {
			http.Error(w, h, http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		if !r.ready.Load() {
			http.Error(w, "not ready: reading reference data or recovering tables", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ready")
	})
	mux.HandleFunc("/status", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(r.status())
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	return func() { srv.Close() }
}
