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
)

// Check refuses (*Refused, naming what still runs) unless namespace ns is
// stopped and was at lag 0 when it stopped: no instance in its registry is
// alive, its groups have no members, and every partition of their inputs is
// processed. Static members left by instances that no longer run (an
// instance killed, or stopped, keeps its static membership until its session
// times out) are removed from the groups; Check returns them as
// "group/instance".
func Check(ctx context.Context, adm *kadm.Client, instances func(context.Context, string) ([]registry.Entry, error), ns string) ([]string, error) {
	var live []registry.Entry
	if instances != nil {
		all, err := instances(ctx, ns)
		if err != nil {
			return nil, err
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
		return nil, &Refused{fmt.Sprintf("namespace %s still runs: instance %s; stop it (SIGTERM) and run again",
			ns, strings.Join(names, ", instance "))}
	}

	groups := lag.Groups(ns)
	var names []string
	for _, g := range groups {
		names = append(names, g.Name)
	}
	described, err := adm.DescribeGroups(ctx, names...)
	if err != nil {
		return nil, fmt.Errorf("describe the groups of %s: %w", ns, err)
	}
	var removed, running []string
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
			return nil, fmt.Errorf("remove the static members %s of stopped instances from group %s: %w", strings.Join(static, ", "), name, err)
		}
		for _, id := range static {
			removed = append(removed, name+"/"+id)
		}
	}
	if len(running) > 0 {
		return removed, &Refused{fmt.Sprintf("namespace %s still runs: member %s (not in the instance registry: a client that stopped a moment ago leaves when its session times out); stop it and run again",
			ns, strings.Join(running, ", member "))}
	}
	s, err := lag.Read(ctx, adm, groups)
	if err != nil {
		return removed, err
	}
	if n := s.Sum(); n > 0 {
		var behind []string
		for _, g := range groups {
			if t := s.Total(g.Name, ""); t > 0 {
				behind = append(behind, fmt.Sprintf("%s %d", g.Stage, t))
			}
		}
		return removed, &Refused{fmt.Sprintf("namespace %s stopped with %d records unprocessed (%s): start its instances until every group is at lag 0, stop them, and run again",
			ns, n, strings.Join(behind, ", "))}
	}
	return removed, nil
}
