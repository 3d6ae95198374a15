package topics

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/trust"
)

// Prove adds the proof that the utility wrote r (trust.ProofHeader). Call
// it once r's topic, key and value are final. A nil secret adds none.
func Prove(s *trust.Secret, r *kgo.Record) {
	if s == nil {
		return
	}
	mac := s.RecordMAC(r.Topic, r.Key, r.Value)
	for i := range r.Headers {
		if r.Headers[i].Key == trust.ProofHeader {
			r.Headers[i].Value = mac
			return
		}
	}
	r.Headers = append(r.Headers, kgo.RecordHeader{Key: trust.ProofHeader, Value: mac})
}

// Proven reports whether r carries a valid proof that the utility wrote
// it; one that does not is counted on Unproven under its topic.
func Proven(s *trust.Secret, r *kgo.Record) bool {
	for _, h := range r.Headers {
		if h.Key == trust.ProofHeader && s.VerifyRecord(r.Topic, r.Key, r.Value, h.Value) {
			return true
		}
	}
	Unproven.WithLabelValues(r.Topic).Inc()
	return false
}

// Unproven counts the control records readers skipped because they carry
// no valid proof: someone other than the utility writes its topics (or a
// process runs with another utility secret). Every process that reads
// control records registers it with its metrics.
var Unproven = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "ste_unproven_records_total",
	Help: "Control records (exceptions, exception states, registry entries, origin markers) skipped for want of the utility's proof, by topic."},
	[]string{"topic"})
