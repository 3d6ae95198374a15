// Package access is STE's trust model on Kafka, as data: the principals of a
// namespace — one per participant and one per part of the utility — and,
// for each, the only topics and consumer groups it may use and how. `ste
// topics manifest` renders it as Strimzi KafkaUser resources (topics/strimzi)
// and the ACL test on real Kafka creates the same rules with the admin API,
// so what is tested is what is deployed. docs/operations.md ("Who may read
// and write what") is the prose of the same table.
//
// The rules are allow rules on a cluster whose authorizer denies by
// default (Strimzi's simple authorization, Kafka's StandardAuthorizer):
// anything not listed is refused.
package access

import (
	"strings"

	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topology"
)

// Operation is a Kafka ACL operation, spelled as Strimzi and Kafka spell it.
type Operation string

const (
	Read            Operation = "Read"
	Write           Operation = "Write"
	Create          Operation = "Create"
	Describe        Operation = "Describe"
	DescribeConfigs Operation = "DescribeConfigs"
)

// ResourceType is what a rule applies to.
type ResourceType string

const (
	Topic ResourceType = "topic"
	Group ResourceType = "group"
)

// Pattern says how a rule's name is matched.
type Pattern string

const (
	Literal Pattern = "literal"
	Prefix  Pattern = "prefix"
)

// Rule allows operations on one resource (from any host).
type Rule struct {
	Type       ResourceType
	Name       string
	Pattern    Pattern
	Operations []Operation
}

// Role says what a principal is.
type Role string

const (
	RoleParticipant Role = "participant"
	RoleProcessors  Role = "processors"
	RoleConsole     Role = "console"
	RoleGateway     Role = "gateway"
	RoleFIXGateway  Role = "fixgw"
	RoleISO20022    Role = "iso20022"
	RoleOperator    Role = "operator"
)

// Principal is one SCRAM user and what it may do.
type Principal struct {
	// User is the SCRAM user name, also the KafkaUser resource name (lower
	// case, as Kubernetes names must be).
	User string
	Role Role
	// BIC is the participant's, for RoleParticipant.
	BIC   string
	Rules []Rule
}

// ParticipantGroupPrefix is the prefix of the consumer groups a participant
// may use: <ns>.out.<BIC>. — the trailing dot keeps an 8-character BIC from
// matching the groups of the 11-character BICs that begin with it.
func ParticipantGroupPrefix(ns, bic string) string { return topics.DeliveryTopic(ns, bic) + "." }

// UserName is the SCRAM user of a principal: <ns>-<role or BIC>, lower case
// (and "_" as "-"): Strimzi makes the SCRAM user of a KafkaUser under the
// resource's name, which Kubernetes allows in lower case only.
func UserName(ns, who string) string {
	return strings.ReplaceAll(strings.ToLower(ns+"-"+who), "_", "-")
}

func lit(t ResourceType, name string, ops ...Operation) Rule {
	return Rule{Type: t, Name: name, Pattern: Literal, Operations: ops}
}

func topicsRule(names []string, ops ...Operation) []Rule {
	out := make([]Rule, len(names))
	for i, n := range names {
		out[i] = lit(Topic, n, ops...)
	}
	return out
}

// Participant is a participant's principal: it reads its own
// <ns>.out.<BIC> (with consumer groups under ParticipantGroupPrefix) and
// writes <ns>.inbound, nothing else. Writing inbound lets it send messages
// under any Sender: the signature check, not Kafka, says whose a message
// is (docs/spec/messages.md section 2).
func Participant(ns, bic string) Principal {
	n := topology.Names{NS: ns}
	return Principal{User: UserName(ns, bic), Role: RoleParticipant, BIC: bic, Rules: []Rule{
		lit(Topic, topics.DeliveryTopic(ns, bic), Read, Describe),
		{Type: Group, Name: ParticipantGroupPrefix(ns, bic), Pattern: Prefix, Operations: []Operation{Read}},
		lit(Topic, n.Inbound(), Write, Describe),
	}}
}

// Processors is the principal of `ste process`: it consumes the pipeline's
// inputs, writes its outputs, tables and loopback, announces itself in the
// registry, and with per-participant delivery reads outbound and writes
// (creating on first use) the participants' topics. It may not write
// <ns>.refdata (operators load it). It writes <ns>.inbound for the
// utility's own AFFs (docs/spec/messages.md §1, §5a step 4), which are
// verified there like any message. It may describe every topic of the
// namespace: at start it checks the namespace's topics are all there.
func Processors(ns string) Principal {
	n := topology.Names{NS: ns}
	t := topology.Describe(ns)
	var reads, writes, groups []string
	for _, g := range t.Groups {
		groups = append(groups, g.Name)
		reads = append(reads, g.Inputs...)
		writes = append(writes, g.Outputs...)
		if g.Loop != "" {
			reads, writes = append(reads, g.Loop), append(writes, g.Loop)
		}
		if g.Table != "" {
			reads, writes = append(reads, g.Table), append(writes, g.Table)
		}
	}
	groups = append(groups, topics.DeliveryGroup(ns))
	reads = append(reads, n.Refdata(), n.Origin(), n.Instances(), n.Outbound())
	writes = append(writes, n.Instances())
	var rules []Rule
	rules = append(rules, Rule{Type: Topic, Name: ns + ".", Pattern: Prefix, Operations: []Operation{Describe, DescribeConfigs}})
	rules = append(rules, topicsRule(dedupe(reads), Read)...)
	rules = append(rules, topicsRule(dedupe(writes), Write)...)
	rules = append(rules, Rule{Type: Topic, Name: ns + ".out.", Pattern: Prefix, Operations: []Operation{Write, Create}})
	for _, g := range groups {
		rules = append(rules, lit(Group, g, Read))
	}
	return Principal{User: UserName(ns, string(RoleProcessors)), Role: RoleProcessors, Rules: rules}
}

// Console is the principal of `ste console` and `ste exceptions`: it reads
// what it shows (exceptions and their states, the monitor samples, the
// audit trail, NACKs on outbound, the registry), records operator states,
// and retries an exception by writing its payload back to <ns>.inbound —
// where it is verified like any message.
func Console(ns string) Principal {
	n := topology.Names{NS: ns}
	rules := []Rule{{Type: Topic, Name: ns + ".", Pattern: Prefix, Operations: []Operation{Describe}}}
	rules = append(rules, topicsRule([]string{n.Exceptions(), n.ExceptionStates(), n.Monitor(), n.Audit(), n.Outbound(), n.Inbound(), n.Instances()}, Read)...)
	rules = append(rules, topicsRule([]string{n.ExceptionStates(), n.Inbound()}, Write)...)
	return Principal{User: UserName(ns, string(RoleConsole)), Role: RoleConsole, Rules: rules}
}

// Gateway is the principal of `ste gateway`: it writes the messages
// participants submit over HTTPS to <ns>.inbound, reads their outputs on
// <ns>.outbound, reads reference data (keys) and the registry (trade
// lookups), and keeps the nonces it accepted.
func Gateway(ns string) Principal {
	n := topology.Names{NS: ns}
	rules := []Rule{{Type: Topic, Name: ns + ".", Pattern: Prefix, Operations: []Operation{Describe}}}
	rules = append(rules, topicsRule([]string{n.Outbound(), n.Refdata(), n.Instances(), n.Nonces()}, Read)...)
	rules = append(rules, topicsRule([]string{n.Inbound(), n.Nonces()}, Write)...)
	return Principal{User: UserName(ns, string(RoleGateway)), Role: RoleGateway, Rules: rules}
}

// FIXGateway is the principal of `ste fixgw` (docs/spec/adapters.md §4): it
// writes the messages it translates to <ns>.inbound and their original
// bytes to <ns>.adapters.origin, reads and writes the adapters' journal,
// and reads <ns>.outbound (its participants' answers, per partition, no
// consumer group) and reference data.
func FIXGateway(ns string) Principal {
	n := topology.Names{NS: ns}
	rules := []Rule{{Type: Topic, Name: ns + ".", Pattern: Prefix, Operations: []Operation{Describe}}}
	rules = append(rules, topicsRule([]string{n.Outbound(), n.Refdata(), n.AdaptersJournal()}, Read)...)
	rules = append(rules, topicsRule([]string{n.Inbound(), n.AdaptersOrigin(), n.AdaptersJournal()}, Write)...)
	return Principal{User: UserName(ns, string(RoleFIXGateway)), Role: RoleFIXGateway, Rules: rules}
}

// ISO20022 is the principal of `ste iso20022` (docs/spec/adapters.md §5),
// every instance: it writes the SETs it translates to <ns>.inbound and
// their original documents to <ns>.adapters.origin, reads and writes the
// adapters' journal, spends nonces in the gateway's nonce space (reads and
// writes <ns>.gateway-nonces, as the gateway does), reads <ns>.outbound in its
// consumer group <ns>.iso20022.v1 and writes what it translates to
// <ns>.iso20022.outbound, which it serves (reads) to custodians, and reads
// reference data. Nothing of the other participants' topics, the tables or
// the registry.
func ISO20022(ns string) Principal {
	n := topology.Names{NS: ns}
	rules := []Rule{{Type: Topic, Name: ns + ".", Pattern: Prefix, Operations: []Operation{Describe}}}
	rules = append(rules, topicsRule([]string{n.Outbound(), n.Refdata(), n.AdaptersJournal(), n.Nonces(), n.ISO20022Outbound()}, Read)...)
	rules = append(rules, topicsRule([]string{n.Inbound(), n.AdaptersOrigin(), n.AdaptersJournal(), n.Nonces(), n.ISO20022Outbound()}, Write)...)
	rules = append(rules, lit(Group, n.ISO20022Group(), Read))
	return Principal{User: UserName(ns, string(RoleISO20022)), Role: RoleISO20022, Rules: rules}
}

// Operator is the principal of `ste refdata load`: the only one that may
// write reference data.
func Operator(ns string) Principal {
	n := topology.Names{NS: ns}
	return Principal{User: UserName(ns, string(RoleOperator)), Role: RoleOperator, Rules: []Rule{
		lit(Topic, n.Refdata(), Read, Write, Describe),
	}}
}

// Principals are every principal of namespace ns: the utility's, then one
// per participant of bics (in their order).
func Principals(ns string, bics []string) []Principal {
	out := []Principal{Processors(ns), Console(ns), Gateway(ns), FIXGateway(ns), ISO20022(ns), Operator(ns)}
	for _, b := range bics {
		out = append(out, Participant(ns, b))
	}
	return out
}

func dedupe(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// Allows reports whether p may do op on the resource, as Kafka's authorizer
// decides on these allow rules: a rule matches its name exactly (literal)
// or as a prefix, and Read, Write or Create imply Describe.
func (p Principal) Allows(op Operation, t ResourceType, name string) bool {
	for _, r := range p.Rules {
		if r.Type != t {
			continue
		}
		if r.Pattern == Literal && r.Name != name || r.Pattern == Prefix && !strings.HasPrefix(name, r.Name) {
			continue
		}
		for _, o := range r.Operations {
			if o == op || op == Describe && (o == Read || o == Write || o == Create) {
				return true
			}
		}
	}
	return false
}
