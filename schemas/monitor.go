package schemas

import "encoding/json"

// MonitorSample is the project's record on <ns>.monitor: one stage's queue
// at one sampling instant, as `ste monitor` measures it (operational-law
// inputs of Buzen and Denning: arrivals, completions, queue length). Stage
// "network" is the whole pipeline: arrivals on inbound, completions = journeys
// ended (audit events written), queue = messages in the system.
type MonitorSample struct {
	At          string            `json:"at"` // RFC 3339 with microseconds, UTC
	Namespace   string            `json:"namespace"`
	Stage       string            `json:"stage"`       // validate, identity, match, network
	Interval    float64           `json:"interval"`    // seconds since the previous sample of this stage
	Arrivals    int64             `json:"arrivals"`    // records that arrived during the interval
	Completions int64             `json:"completions"` // records the stage finished during the interval
	Queue       int64             `json:"queue"`       // records waiting or in service at the instant
	Partitions  []PartitionSample `json:"partitions,omitempty"`
}

// PartitionSample is one input partition of a stage.
type PartitionSample struct {
	Partition int32 `json:"partition"`
	End       int64 `json:"end"`       // end offset of the stage's input
	Committed int64 `json:"committed"` // the group's committed offset
	Lag       int64 `json:"lag"`
}

// Marshal is the JSON form.
func (s *MonitorSample) Marshal() []byte {
	b, _ := json.Marshal(s)
	return b
}
