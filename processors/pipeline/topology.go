package pipeline

import (
	"fmt"
	"slices"
	"strings"

	"github.com/lovoo/goka"
)

// Callbacks are the stage callbacks the group graphs call. A nil callback
// is a no-op: the graphs are also built without any, to be queried.
type Callbacks struct {
	Validate, Identity, Match goka.ProcessCallback
}

func noop(goka.Context, any) {}

func orNoop(cb goka.ProcessCallback) goka.ProcessCallback {
	if cb == nil {
		return noop
	}
	return cb
}

// Graphs is the one declaration of STE's topology: the three groups with
// their inputs, tables, loopbacks and outputs, in pipeline order. Everything
// else that names topics or groups — topic specs, the monitor's stages, lag
// labels, the topology table of docs/ARCHITECTURE.md — is derived from it
// (see Describe), and a test holds each derived place to it.
func Graphs(n Names, cb Callbacks) []*goka.GroupGraph {
	out := func(topic string) goka.Edge { return goka.Output(goka.Stream(topic), raw{}) }
	return []*goka.GroupGraph{
		goka.DefineGroup(goka.Group(n.ValidateGroup()),
			goka.Input(goka.Stream(n.Inbound()), raw{}, orNoop(cb.Validate)),
			out(n.Verdicts()), out(n.Exceptions()), out(n.Outbound()), out(n.Audit())),
		goka.DefineGroup(goka.Group(n.IdentityGroup()),
			goka.Input(goka.Stream(n.Verdicts()), raw{}, orNoop(cb.Identity)),
			goka.Persist(raw{}),
			out(n.Accepted()), out(n.Exceptions()), out(n.Outbound()), out(n.Audit())),
		goka.DefineGroup(goka.Group(n.MatchGroup()),
			goka.Input(goka.Stream(n.Accepted()), raw{}, orNoop(cb.Match)),
			goka.Loop(raw{}, orNoop(cb.Match)),
			goka.Persist(raw{}),
			out(n.CLS()), out(n.Outbound()), out(n.Exceptions()), out(n.Audit())),
	}
}

// Stages lists the stages in pipeline order.
var Stages = []Stage{StageValidate, StageIdentity, StageMatch}

// ParseStage reads a stage name ("validate", "identity", "match").
func ParseStage(s string) (Stage, bool) {
	for _, st := range Stages {
		if st.String() == s {
			return st, true
		}
	}
	return 0, false
}

// ParseStages reads a comma-separated list of stage names; "" or "all" is
// every stage. The result is in pipeline order, without repeats.
func ParseStages(s string) ([]Stage, error) {
	if s == "" || s == "all" {
		return slices.Clone(Stages), nil
	}
	var out []Stage
	for _, part := range strings.Split(s, ",") {
		st, ok := ParseStage(strings.TrimSpace(part))
		if !ok {
			return nil, fmt.Errorf("unknown group %q (want validate, identity, match or all)", strings.TrimSpace(part))
		}
		if !slices.Contains(out, st) {
			out = append(out, st)
		}
	}
	slices.Sort(out)
	return out, nil
}

// TopicKind is what a topic is for Kafka: how it is cleaned up and whether
// its partition count follows the namespace's.
type TopicKind uint8

const (
	// KindStream is a keyed, time-retained topic with the namespace's
	// partition count (inputs, outputs, loopbacks).
	KindStream TopicKind = iota + 1
	// KindTable is a group table's changelog: keyed, compacted.
	KindTable
	// KindShared is a one-partition topic every instance or tool reads whole:
	// compacted state (reference data, the instance registry) or samples.
	KindShared
)

// Topic is one topic of a namespace, as the topology implies it.
type Topic struct {
	Name string
	Kind TopicKind
	// Key says what the records are keyed by.
	Key string
	// Compacted: the topic keeps the latest value per key.
	Compacted bool
	// BrokerTime: records are stamped by the broker on arrival
	// (LogAppendTime), not by their producer.
	BrokerTime bool
	// Contract: named by messages.md section 1 (no version in the name).
	Contract bool
}

// Group is one processor group as the topology implies it.
type Group struct {
	Name  string
	Stage Stage
	Graph *goka.GroupGraph
	// Inputs are the input streams; Loop the loopback ("" when none).
	Inputs []string
	Loop   string
	// Table is the group table's changelog ("" for a stateless group).
	Table   string
	Outputs []string
}

// Topology is the declaration of one namespace read back: its groups and
// every topic, in a stable order.
type Topology struct {
	Names  Names
	Groups []Group
	Topics []Topic
}

// topicNotes are what the graphs cannot say about a topic: its key, and the
// topics outside any group (read by the runtime and tools, not by goka).
func topicNotes(n Names) map[string]Topic {
	notes := []Topic{
		{Name: n.Inbound(), Key: "any (the driver uses the sender BIC)", BrokerTime: true, Contract: true},
		{Name: n.CLS(), Key: "trade key", Contract: true},
		{Name: n.Outbound(), Key: "receiving participant BIC", Contract: true},
		{Name: n.Exceptions(), Key: "sender BIC, or empty", Contract: true},
		{Name: n.Audit(), Key: "trade key, or empty", Contract: true},
		{Name: n.Verdicts(), Key: "Sender:MsgId"},
		{Name: n.Accepted(), Key: "trade key"},
		{Name: Table(n.IdentityGroup()), Key: "Sender:MsgId"},
		{Name: Table(n.MatchGroup()), Key: "trade key"},
		{Name: Loop(n.MatchGroup()), Key: "trade key"},
		// Outside the groups: one partition, read whole.
		{Name: n.Refdata(), Kind: KindShared, Key: "entity id", Compacted: true, Contract: true},
		{Name: n.Monitor(), Kind: KindShared, Key: "stage name", Contract: true},
		{Name: n.Instances(), Kind: KindShared, Key: "instance id", Compacted: true},
		{Name: n.Origin(), Kind: KindShared, Key: "replay or migration, and the source namespace", Compacted: true},
		{Name: n.ExceptionStates(), Kind: KindShared, Key: "exception id", Compacted: true},
		{Name: n.Nonces(), Kind: KindShared, Key: "participant BIC"},
	}
	m := make(map[string]Topic, len(notes))
	for _, t := range notes {
		m[t.Name] = t
	}
	return m
}

// Describe reads the declaration of namespace ns back: every group with its
// edges, and every topic — those of the graphs, then those outside them. A
// topic in a graph without a note panics: the declaration is incomplete
// (a test calls Describe, so it fails before anything runs).
func Describe(ns string) Topology {
	n := Names{NS: ns}
	notes := topicNotes(n)
	t := Topology{Names: n}
	seen := map[string]bool{}
	add := func(name string, kind TopicKind) {
		if seen[name] {
			return
		}
		note, ok := notes[name]
		if !ok {
			panic(fmt.Sprintf("pipeline: topic %s is in the graphs but has no note in topicNotes", name))
		}
		seen[name] = true
		note.Kind = kind
		if kind == KindTable {
			note.Compacted = true
		}
		t.Topics = append(t.Topics, note)
	}
	for i, g := range Graphs(n, Callbacks{}) {
		grp := Group{Name: string(g.Group()), Stage: Stages[i], Graph: g}
		for _, e := range g.InputStreams() {
			grp.Inputs = append(grp.Inputs, e.Topic())
			add(e.Topic(), KindStream)
		}
		if l := g.LoopStream(); l != nil {
			grp.Loop = l.Topic()
			add(l.Topic(), KindStream)
		}
		if tb := g.GroupTable(); tb != nil {
			grp.Table = tb.Topic()
			add(tb.Topic(), KindTable)
		}
		for _, e := range g.OutputStreams() {
			grp.Outputs = append(grp.Outputs, e.Topic())
			add(e.Topic(), KindStream)
		}
		t.Groups = append(t.Groups, grp)
	}
	// The topics no group reads or writes, in the notes' order.
	for _, name := range n.Shared() {
		add(name, notes[name].Kind)
	}
	return t
}

// Shared are the topics outside the groups, read whole by the runtime and
// tools: one partition each.
func (n Names) Shared() []string {
	return []string{n.Refdata(), n.Monitor(), n.Instances(), n.Origin(), n.ExceptionStates(), n.Nonces()}
}

// Group returns the group of a stage.
func (t Topology) Group(st Stage) (Group, bool) {
	for _, g := range t.Groups {
		if g.Stage == st {
			return g, true
		}
	}
	return Group{}, false
}

// Topic returns the topic of that name.
func (t Topology) Topic(name string) (Topic, bool) {
	for _, tp := range t.Topics {
		if tp.Name == name {
			return tp, true
		}
	}
	return Topic{}, false
}

// GroupNames are the names of the groups, in pipeline order.
func (t Topology) GroupNames() []string {
	out := make([]string, len(t.Groups))
	for i, g := range t.Groups {
		out[i] = g.Name
	}
	return out
}

// Markdown renders the groups as the topology table of
// docs/ARCHITECTURE.md (with <ns> for the namespace).
func (t Topology) Markdown() string {
	generic := func(s string) string { return "`" + strings.Replace(s, t.Names.NS+".", "<ns>.", 1) + "`" }
	key := func(name string) string {
		tp, _ := t.Topic(name)
		return generic(name) + " (" + tp.Key + ")"
	}
	var b strings.Builder
	b.WriteString("| group | inputs (key) | table (key) | outputs |\n|---|---|---|---|\n")
	for _, g := range t.Groups {
		var in []string
		for _, s := range g.Inputs {
			in = append(in, key(s))
		}
		if g.Loop != "" {
			in = append(in, "loopback "+key(g.Loop))
		}
		table := "—"
		if g.Table != "" {
			table = key(g.Table)
		}
		var outs []string
		for _, s := range g.Outputs {
			outs = append(outs, generic(s))
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", generic(g.Name), strings.Join(in, ", "), table, strings.Join(outs, ", "))
	}
	b.WriteString("\n| topic | kind | key |\n|---|---|---|\n")
	for _, tp := range t.Topics {
		kind := map[TopicKind]string{KindStream: "stream", KindTable: "table changelog", KindShared: "one partition"}[tp.Kind]
		if tp.Compacted {
			kind += ", compacted"
		}
		if tp.BrokerTime {
			kind += ", broker time"
		}
		if tp.Contract {
			kind += ", contract"
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", generic(tp.Name), kind, tp.Key)
	}
	return b.String()
}
