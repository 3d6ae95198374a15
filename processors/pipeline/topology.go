package pipeline

import (
	"github.com/lovoo/goka"

	"github.com/ste-utility/ste/topology"
)

// Callbacks are the stage callbacks the group graphs call, by stage. A
// missing callback is a no-op: the graphs are also built without any, to be
// queried.
type Callbacks map[topology.Stage]goka.ProcessCallback

func (cb Callbacks) of(st topology.Stage) goka.ProcessCallback {
	if f := cb[st]; f != nil {
		return f
	}
	return noop
}

func noop(goka.Context, any) {}

// Graphs are the goka graphs of the declared groups (topology.Describe), in
// pipeline order: each group's inputs and loopback call its stage's
// callback, a group with a table persists it, and its outputs are declared
// as goka requires. goka names the loopback and the table after the group
// itself; a test holds those names to the declaration.
func Graphs(n topology.Names, cb Callbacks) []*goka.GroupGraph {
	var out []*goka.GroupGraph
	for _, g := range topology.Describe(n.NS).Groups {
		call := cb.of(g.Stage)
		var edges []goka.Edge
		for _, s := range g.Inputs {
			edges = append(edges, goka.Input(goka.Stream(s), raw{}, call))
		}
		if g.Loop != "" {
			edges = append(edges, goka.Loop(raw{}, call))
		}
		if g.Table != "" {
			edges = append(edges, goka.Persist(raw{}))
		}
		for _, s := range g.Outputs {
			edges = append(edges, goka.Output(goka.Stream(s), raw{}))
		}
		out = append(out, goka.DefineGroup(goka.Group(g.Name), edges...))
	}
	return out
}
