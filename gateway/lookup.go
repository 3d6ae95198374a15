package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/ste-utility/ste/instance"
	"github.com/ste-utility/ste/instance/registry"
	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/processors/matching"
	"github.com/ste-utility/ste/topology"
)

// instanceLookup asks the instances of the registry that run the match
// group through their /trades endpoints, as the console does. (To be
// replaced by the shared lookup client, which routes to the one owner of a
// trade's partition and searches a TradeRef index filtered by party.)
type instanceLookup struct {
	conn kafkaconn.Config
	ns   string
	log  *slog.Logger
	http *http.Client
}

func newInstanceLookup(conn kafkaconn.Config, ns string, log *slog.Logger) TradeLookup {
	return &instanceLookup{conn: conn, ns: ns, log: log, http: &http.Client{Timeout: 10 * time.Second}}
}

func (l *instanceLookup) owners(ctx context.Context) ([]string, error) {
	es, err := registry.List(ctx, l.conn, l.ns)
	if err != nil {
		return nil, err
	}
	var addrs []string
	for _, e := range es {
		if !e.Stale && e.HTTP != "" && slices.Contains(e.Groups, topology.StageMatch.String()) {
			addrs = append(addrs, e.HTTP)
		}
	}
	if len(addrs) == 0 {
		return nil, ErrNoLookup
	}
	return addrs, nil
}

func (l *instanceLookup) ask(ctx context.Context, addr, path string) (instance.TradeAnswer, bool, error) {
	var ans instance.TradeAnswer
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+path, nil)
	if err != nil {
		return ans, false, err
	}
	resp, err := l.http.Do(req)
	if err != nil {
		return ans, false, err
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
		return ans, true, json.NewDecoder(io.LimitReader(resp.Body, 64<<20)).Decode(&ans)
	case http.StatusNotFound:
		return ans, false, nil
	}
	return ans, false, fmt.Errorf("%s: %s", addr, resp.Status)
}

func (l *instanceLookup) Trade(ctx context.Context, key, party string) (matching.View, bool, error) {
	addrs, err := l.owners(ctx)
	if err != nil {
		return matching.View{}, false, err
	}
	var errs int
	for _, a := range addrs {
		ans, found, err := l.ask(ctx, a, "/trades/"+key)
		if err != nil {
			errs++
			continue
		}
		if found && len(ans.Trades) > 0 {
			v := ans.Trades[0].Trade
			return v, IsParty(&v, party), nil
		}
	}
	if errs == len(addrs) {
		return matching.View{}, false, ErrNoLookup
	}
	return matching.View{}, false, nil
}

func (l *instanceLookup) ByRef(ctx context.Context, ref, date, party string) ([]matching.View, error) {
	addrs, err := l.owners(ctx)
	if err != nil {
		return nil, err
	}
	var out []matching.View
	for _, a := range addrs {
		ans, _, err := l.ask(ctx, a, "/trades?ref="+url.QueryEscape(ref))
		if err != nil {
			return nil, err
		}
		for _, f := range ans.Trades {
			out = append(out, f.Trade)
		}
	}
	return out, nil
}
