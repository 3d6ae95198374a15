package migrate

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/ste-utility/ste/instance/registry"
	"github.com/ste-utility/ste/topics/lag"
	"github.com/ste-utility/ste/topology"
)

// Stopped is what Check found of a stopped namespace.
type Stopped struct {
	// Removed are the static members of stopped instances taken out of the
	// groups, as "group/instance".
	Removed []string
	// Processed is, per inbound partition, the offset up to which the
	// validate group processed (its commit): the inbound cut-over.
	Processed map[int32]int64
	// Unvalidated counts inbound records after Processed: they arrived
	// after the processors stopped (participants keep sending), and the
	// new namespace processes them.
	Unvalidated int64
}

// Check refuses (*Refused, naming what still runs) unless namespace ns is
// stopped: no instance in its registry is alive, its groups have no
// members, and nothing is in flight between its stages (the identity and
// match groups, loopback included, at lag 0: the tables hold the effect of
// everything validated). Inbound records not yet validated are not in
// flight — they arrived after the processors stopped — and are carried to
// the new namespace's inbound. Static members left by instances that no
// longer run (an instance killed, or stopped, keeps its static membership
// until its session times out) are removed from the groups.
func Check(ctx context.Context, adm *kadm.Client, instances func(context.Context, string) ([]registry.Entry, error), ns string) (Stopped, error) {
	var st Stopped
	var live []registry.Entry
	if instances != nil {
		all, err := instances(ctx, ns)
		if err != nil {
			return st, err
		}
		for _, e := range all {
			if !e.Stale {
				live = append(live, e)
			}
		}
	}
	if len(live) > 0 {
		var names []string
		for _, e := range live {
			names = append(names, fmt.Sprintf("%s (groups %s, %s pid %d, seen %.0fs ago)", e.ID, strings.Join(e.Groups, ","),
				e.Host, e.PID, time.Since(e.LastSeen).Seconds()))
		}
		return st, &Refused{fmt.Sprintf("namespace %s still runs: instance %s; stop it (SIGTERM) and run again",
			ns, strings.Join(names, ", instance "))}
	}

	groups := lag.Groups(ns)
	var names []string
	for _, g := range groups {
		names = append(names, g.Name)
	}
	described, err := adm.DescribeGroups(ctx, names...)
	if err != nil {
		return st, fmt.Errorf("describe the groups of %s: %w", ns, err)
	}
	var running []string
	for _, name := range names {
		d, ok := described[name]
		if !ok || d.Err != nil {
			continue
		}
		var static []string
		for _, m := range d.Members {
			if m.InstanceID != nil && *m.InstanceID != "" {
				// No instance of that id is alive (the registry said so above):
				// what is left is its static membership.
				static = append(static, *m.InstanceID)
				continue
			}
			running = append(running, fmt.Sprintf("%s in group %s", m.ClientID, name))
		}
		if len(static) == 0 {
			continue
		}
		slices.Sort(static)
		resp, err := adm.LeaveGroup(ctx, kadm.LeaveGroup(name).InstanceIDs(static...).Reason("ste migrate: the instance no longer runs"))
		if err == nil {
			err = resp.Error()
		}
		if err != nil {
			return st, fmt.Errorf("remove the static members %s of stopped instances from group %s: %w", strings.Join(static, ", "), name, err)
		}
		for _, id := range static {
			st.Removed = append(st.Removed, name+"/"+id)
		}
	}
	if len(running) > 0 {
		return st, &Refused{fmt.Sprintf("namespace %s still runs: member %s (not in the instance registry: a client that stopped a moment ago leaves when its session times out); stop it and run again",
			ns, strings.Join(running, ", member "))}
	}
	s, err := lag.Read(ctx, adm, groups)
	if err != nil {
		return st, err
	}
	var behind []string
	var inFlight int64
	st.Processed = map[int32]int64{}
	for _, g := range groups {
		if g.Stage == topology.StageValidate.String() {
			st.Unvalidated = s.Total(g.Name, "")
			for _, p := range s.Partitions {
				if p.Group == g.Name {
					st.Processed[p.Partition] = p.Done()
				}
			}
			continue
		}
		if n := s.Total(g.Name, ""); n > 0 {
			inFlight += n
			behind = append(behind, fmt.Sprintf("%s %d", g.Stage, n))
		}
	}
	if inFlight > 0 {
		return st, &Refused{fmt.Sprintf("namespace %s stopped with %d records in flight between its stages (%s): start its instances until every group is at lag 0, stop them, and run again",
			ns, inFlight, strings.Join(behind, ", "))}
	}
	return st, nil
}
