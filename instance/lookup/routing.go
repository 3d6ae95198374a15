package lookup

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/ste-utility/ste/instance/registry"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topology"
)

// Owner is an instance that owns match partitions, as the match group
// says, and the address of its lookup listener, as the registry says.
type Owner struct {
	ID         string
	Addr       string
	Partitions []int32
}

// Routing is who answers for which match partition now.
type Routing struct {
	Partitions int32         // the match group's partition count
	Owners     []Owner       // by id
	byPart     map[int32]int // partition → index in Owners
	Problems   []string      // why a member was not trusted, or a partition has no owner
	At         time.Time
}

// NewRouting is a routing of the match group's partitions to owners
// given (Options.Route).
func NewRouting(partitions int32, owners []Owner) *Routing {
	r := &Routing{Partitions: partitions, Owners: owners, byPart: map[int32]int{}, At: time.Now()}
	var orphans []int32
	for i, o := range owners {
		for _, p := range o.Partitions {
			r.byPart[p] = i
		}
	}
	for p := range partitions {
		if _, ok := r.byPart[p]; !ok {
			orphans = append(orphans, p)
		}
	}
	if len(orphans) > 0 {
		r.Problems = append(r.Problems, fmt.Sprintf("no trusted owner of match partition(s) %v", orphans))
	}
	return r
}

// Owner returns the owner of partition p.
func (r *Routing) Owner(p int32) (Owner, bool) {
	i, ok := r.byPart[p]
	if !ok {
		return Owner{}, false
	}
	return r.Owners[i], true
}

// route reads the registry and the match group and puts them together:
// a partition's owner is the group member it is assigned to, believed only
// when the member's instance has a fresh registry entry with a lookup
// address on the host the member connects from.
func (c *Client) route(ctx context.Context) (*Routing, error) {
	names := topology.Names{NS: c.o.Namespace}
	entries, err := c.o.Entries(ctx)
	if err != nil {
		return nil, err
	}
	n, err := topics.Partitions(ctx, c.adm, names.Accepted())
	if err != nil {
		return nil, fmt.Errorf("lookup: the match group's partitions: %w", err)
	}
	groups, err := c.adm.DescribeGroups(ctx, names.MatchGroup())
	if err != nil {
		return nil, fmt.Errorf("lookup: the match group: %w", err)
	}
	g, ok := groups[names.MatchGroup()]
	if !ok || g.Err != nil {
		return nil, fmt.Errorf("lookup: the match group: %v", g.Err)
	}
	byID := map[string]registry.Entry{}
	for _, e := range entries {
		byID[e.ID] = e
	}
	r := &Routing{Partitions: n, byPart: map[int32]int{}, At: time.Now()}
	for _, m := range g.Members {
		id, ok := instanceOf(m.ClientID)
		if !ok {
			r.Problems = append(r.Problems, fmt.Sprintf("group member %q is not an STE instance's match client", short(m.ClientID)))
			continue
		}
		e, ok := byID[id]
		switch {
		case !ok:
			r.Problems = append(r.Problems, fmt.Sprintf("instance %s is in the match group but not in the registry", id))
			continue
		case e.Stale:
			r.Problems = append(r.Problems, fmt.Sprintf("instance %s: its registry entry is stale", id))
			continue
		case e.Lookup == "":
			r.Problems = append(r.Problems, fmt.Sprintf("instance %s announces no lookup listener", id))
			continue
		}
		if why := c.sameHost(ctx, e.Lookup, m.ClientHost); why != "" {
			r.Problems = append(r.Problems, fmt.Sprintf("instance %s: %s: not trusted", id, why))
			continue
		}
		var parts []int32
		if a, ok := m.Assigned.AsConsumer(); ok {
			for _, t := range a.Topics {
				if t.Topic == names.Accepted() {
					parts = append(parts, t.Partitions...)
				}
			}
		}
		slices.Sort(parts)
		r.Owners = append(r.Owners, Owner{ID: id, Addr: e.Lookup, Partitions: parts})
	}
	slices.SortFunc(r.Owners, func(a, b Owner) int { return strings.Compare(a.ID, b.ID) })
	for i, o := range r.Owners {
		for _, p := range o.Partitions {
			r.byPart[p] = i
		}
	}
	var orphans []int32
	for p := range n {
		if _, ok := r.byPart[p]; !ok {
			orphans = append(orphans, p)
		}
	}
	if len(orphans) > 0 {
		r.Problems = append(r.Problems, fmt.Sprintf("no trusted owner of match partition(s) %v", orphans))
	}
	return r, nil
}

// instanceOf is the instance id in a match client's id (topology.ClientID).
func instanceOf(clientID string) (string, bool) {
	return topology.InstanceOf(clientID, topology.StageMatch)
}

// sameHost says why addr's host is not the host a group member connects
// from ("" when it is): an IP must be the member's, a name must resolve to
// it. A forged registry entry naming a real instance cannot send its
// lookups — and the token — elsewhere than that instance's host.
func (c *Client) sameHost(ctx context.Context, addr, clientHost string) string {
	if c.o.AnyHost {
		return ""
	}
	// Kafka gives "/10.1.2.3", the embedded broker "10.1.2.3:port".
	ch := strings.TrimPrefix(clientHost, "/")
	if h, _, err := net.SplitHostPort(ch); err == nil {
		ch = h
	}
	from, err := netip.ParseAddr(ch)
	if err != nil {
		return fmt.Sprintf("the broker gives no address for it (%q)", short(clientHost))
	}
	from = from.Unmap()
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return "lookup address not host:port"
	}
	var ips []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		ips = []netip.Addr{ip}
	} else {
		rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		as, err := net.DefaultResolver.LookupNetIP(rctx, "ip", host)
		if err != nil {
			return fmt.Sprintf("lookup host %s does not resolve", host)
		}
		ips = as
	}
	for _, ip := range ips {
		ip = ip.Unmap()
		if ip == from || ip.IsLoopback() && from.IsLoopback() {
			return ""
		}
	}
	return fmt.Sprintf("lookup address %s is not on the host it reaches Kafka from (%s)", addr, from)
}

func short(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}

// entriesOf reads the registry with the client's Kafka settings.
func entriesOf(o *Options) func(context.Context) ([]registry.Entry, error) {
	return func(ctx context.Context) ([]registry.Entry, error) {
		if o.Secret != nil {
			return registry.ListProven(ctx, o.Kafka, o.Namespace, o.Secret)
		}
		return registry.List(ctx, o.Kafka, o.Namespace)
	}
}
