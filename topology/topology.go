package topology

import (
	"fmt"
	"strings"
)

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
	// Contract: named by docs/spec/messages.md section 1 (no version in the name).
	Contract bool
}

// Group is one consumer group of a namespace: a processing stage of the
// pipeline (Stage set), or a reader outside it (Stage 0, see
// Topology.Consumers).
type Group struct {
	Name  string
	Stage Stage
	// Inputs are the input streams; Loop the loopback ("" when none).
	Inputs []string
	Loop   string
	// Table is the group table's changelog ("" for a stateless group).
	Table   string
	Outputs []string
}

// TableSpec is one group table: its changelog, the stage that owns it, what
// it is keyed by and what its store holds per key.
type TableSpec struct {
	Changelog string
	Stage     Stage
	Key       string
	Holds     string
}

// Topology is the declaration of one namespace read back: its groups and
// every topic, in a stable order.
type Topology struct {
	Names Names
	// Groups are the pipeline's stages, in pipeline order.
	Groups []Group
	// Consumers are the groups outside the pipeline that read its topics.
	Consumers []Group
	// Tables are the group tables, in pipeline order.
	Tables []TableSpec
	Topics []Topic
}

// groups is the declaration: the three stages with their inputs, tables,
// loopbacks and outputs, in pipeline order. processors/pipeline builds its
// goka graphs from it (and a test there holds goka's reading of them to it).
func groups(n Names) []Group {
	return []Group{
		{Name: n.ValidateGroup(), Stage: StageValidate,
			Inputs:  []string{n.Inbound()},
			Outputs: []string{n.Verdicts(), n.Exceptions(), n.Outbound(), n.Audit()}},
		{Name: n.IdentityGroup(), Stage: StageIdentity,
			Inputs:  []string{n.Verdicts()},
			Table:   Table(n.IdentityGroup()),
			Outputs: []string{n.Accepted(), n.Exceptions(), n.Outbound(), n.Audit()}},
		// The match stage also writes <ns>.inbound (the utility's AFFs for
		// AUTO investment managers, messages.md §5a step 4),
		// <ns>.v1.verdicts (an identity it rejected, released: a rejected
		// message does not claim its MsgId, §4) and its own input,
		// <ns>.accepted (a trade's allegement record when its timer is due,
		// among the trade's messages: processors/pipeline/timers.go; its
		// rewrite record when a former owner's late write of it was skipped:
		// fence.go).
		{Name: n.MatchGroup(), Stage: StageMatch,
			Inputs:  []string{n.Accepted()},
			Loop:    Loop(n.MatchGroup()),
			Table:   Table(n.MatchGroup()),
			Outputs: []string{n.CLS(), n.Outbound(), n.Exceptions(), n.Audit(), n.Inbound(), n.Verdicts(), n.Accepted()}},
	}
}

// consumers are the groups outside the pipeline.
func consumers(n Names) []Group {
	return []Group{
		// `ste analytics ingest`: the contract topics into the analytics store.
		{Name: n.AnalyticsGroup(), Inputs: []string{n.CLS(), n.Audit(), n.Exceptions(), n.Outbound(), n.Monitor()}},
		// Per-participant delivery: <ns>.outbound to each <ns>.out.<BIC>
		// (Names.Delivery; the participants come from reference data).
		{Name: n.DeliveryGroup(), Inputs: []string{n.Outbound()}},
		// `ste iso20022`: STE's outputs of ISO-origin messages into
		// sese.024/027/028/029 (docs/spec/adapters.md §5.6).
		{Name: n.ISO20022Group(), Inputs: []string{n.Outbound()}},
	}
}

// tableHolds is what each stage's table store keeps per key.
var tableHolds = map[Stage]string{
	StageIdentity: "the accepted message's digest and when it is forgotten",
	StageMatch:    "the trade's compact state",
}

// topicNotes are what the groups cannot say about a topic: its key, and the
// topics outside any group (read by the runtime and tools).
func topicNotes(n Names) map[string]Topic {
	notes := []Topic{
		{Name: n.Inbound(), Key: "any (the driver uses the sender BIC)", BrokerTime: true, Contract: true},
		{Name: n.CLS(), Key: "trade key", Contract: true},
		{Name: n.Outbound(), Key: "receiving participant BIC", Contract: true},
		{Name: n.Exceptions(), Key: "sender BIC, or empty", Contract: true},
		{Name: n.Audit(), Key: "trade key, or empty", Contract: true},
		{Name: n.Verdicts(), Key: "Sender:MsgId"},
		{Name: n.Accepted(), Key: "trade key"},
		{Name: Table(n.IdentityGroup()), Key: "Sender:MsgId, or ~batch:… for a record of many (processors/changelog/batch.go)"},
		{Name: Table(n.MatchGroup()), Key: "trade key"},
		{Name: Loop(n.MatchGroup()), Key: "trade key"},
		// Outside the groups: one partition, read whole.
		{Name: n.Refdata(), Kind: KindShared, Key: "entity id", Compacted: true, Contract: true},
		{Name: n.Monitor(), Kind: KindShared, Key: "stage name", Contract: true},
		{Name: n.Instances(), Kind: KindShared, Key: "instance id", Compacted: true},
		{Name: n.Origin(), Kind: KindShared, Key: "replay or migration, and the source namespace", Compacted: true},
		{Name: n.ExceptionStates(), Kind: KindShared, Key: "exception id", Compacted: true},
		{Name: n.Nonces(), Kind: KindShared, Key: "participant BIC"},
		// The adapters' (docs/spec/adapters.md §1, §2, §5.6).
		{Name: n.AdaptersOrigin(), Kind: KindStream, Key: "lower-case hex SHA-256 of the original bytes", Compacted: true},
		{Name: n.AdaptersJournal(), Kind: KindShared, Key: "journal entry (adapters/journal)", Compacted: true},
		{Name: n.ISO20022Outbound(), Kind: KindStream, Key: "receiving participant BIC"},
	}
	m := make(map[string]Topic, len(notes))
	for _, t := range notes {
		m[t.Name] = t
	}
	return m
}

// Describe reads the declaration of namespace ns back: every group with its
// edges, and every topic — those of the groups, then those outside them. A
// topic in a group without a note panics: the declaration is incomplete
// (a test calls Describe, so it fails before anything runs).
func Describe(ns string) Topology {
	n := Names{NS: ns}
	notes := topicNotes(n)
	t := Topology{Names: n, Groups: groups(n), Consumers: consumers(n)}
	seen := map[string]bool{}
	add := func(name string, kind TopicKind) {
		if seen[name] {
			return
		}
		note, ok := notes[name]
		if !ok {
			panic(fmt.Sprintf("topology: topic %s is in the groups but has no note in topicNotes", name))
		}
		seen[name] = true
		note.Kind = kind
		if kind == KindTable {
			note.Compacted = true
		}
		t.Topics = append(t.Topics, note)
	}
	for _, g := range t.Groups {
		for _, s := range g.Inputs {
			add(s, KindStream)
		}
		if g.Loop != "" {
			add(g.Loop, KindStream)
		}
		if g.Table != "" {
			add(g.Table, KindTable)
			t.Tables = append(t.Tables, TableSpec{Changelog: g.Table, Stage: g.Stage, Key: notes[g.Table].Key, Holds: tableHolds[g.Stage]})
		}
		for _, s := range g.Outputs {
			add(s, KindStream)
		}
	}
	// The topics no group reads or writes, in the notes' order.
	for _, name := range n.Shared() {
		add(name, notes[name].Kind)
	}
	for _, name := range n.Adapters() {
		add(name, notes[name].Kind)
	}
	return t
}

// Shared are the topics outside the groups, read whole by the runtime and
// tools: one partition each.
func (n Names) Shared() []string {
	return []string{n.Refdata(), n.Monitor(), n.Instances(), n.Origin(), n.ExceptionStates(), n.Nonces()}
}

// Consumer returns the group outside the pipeline of that name.
func (t Topology) Consumer(name string) (Group, bool) {
	for _, g := range t.Consumers {
		if g.Name == name {
			return g, true
		}
	}
	return Group{}, false
}

// Table returns the table of a stage.
func (t Topology) Table(st Stage) (TableSpec, bool) {
	for _, tb := range t.Tables {
		if tb.Stage == st {
			return tb, true
		}
	}
	return TableSpec{}, false
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
