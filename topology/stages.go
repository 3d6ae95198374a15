package topology

import (
	"fmt"
	"slices"
	"strings"
)

// Stage is one processing stage: a group of the pipeline.
type Stage uint8

const (
	StageValidate Stage = iota + 1
	StageIdentity
	StageMatch
)

var stageNames = [...]string{"", "validate", "identity", "match"}

func (s Stage) String() string {
	if int(s) < len(stageNames) {
		return stageNames[s]
	}
	return "?"
}

// Stages lists the stages in pipeline order.
var Stages = []Stage{StageValidate, StageIdentity, StageMatch}

// StageNames are the stages' names, in pipeline order.
func StageNames() []string {
	out := make([]string, len(Stages))
	for i, st := range Stages {
		out[i] = st.String()
	}
	return out
}

// Network is the name the monitor (and its samples, the reports and the
// console) gives the whole pipeline measured end to end, beside the
// stages': arrivals on <ns>.inbound, completions = journeys ended.
const Network = "network"

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

// ClientID is the Kafka client id of stage st's clients in instance
// instanceID: ste-<instance id>-<stage>, so that an operator (and the lag
// code, and the trade lookups' routing) can tell the members of a group
// apart and find their instance.
func ClientID(instanceID string, st Stage) string {
	return "ste-" + instanceID + "-" + st.String()
}

// InstanceOf is the instance id in a client id of stage st's (ClientID),
// ok false for any other client id.
func InstanceOf(clientID string, st Stage) (string, bool) {
	id, ok := strings.CutPrefix(clientID, "ste-")
	if !ok {
		return "", false
	}
	id, ok = strings.CutSuffix(id, "-"+st.String())
	return id, ok && id != ""
}
