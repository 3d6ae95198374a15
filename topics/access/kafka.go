package access

import (
	"github.com/twmb/franz-go/pkg/kadm"
)

var kafkaOps = map[Operation]kadm.ACLOperation{
	Read: kadm.OpRead, Write: kadm.OpWrite, Create: kadm.OpCreate,
	Describe: kadm.OpDescribe, DescribeConfigs: kadm.OpDescribeConfigs,
}

// ACLs are p's rules as Kafka admin ACL creations (User:<p.User>, any
// host): the same rules the KafkaUser of the manifest carries, for a cluster
// administered without Strimzi and for the ACL test.
func (p Principal) ACLs() []*kadm.ACLBuilder {
	var out []*kadm.ACLBuilder
	for _, r := range p.Rules {
		ops := make([]kadm.ACLOperation, len(r.Operations))
		for i, o := range r.Operations {
			ops[i] = kafkaOps[o]
		}
		b := kadm.NewACLs().Allow("User:" + p.User).AllowHosts("*").Operations(ops...)
		if r.Type == Topic {
			b = b.Topics(r.Name)
		} else {
			b = b.Groups(r.Name)
		}
		if r.Pattern == Prefix {
			b = b.ResourcePatternType(kadm.ACLPatternPrefixed)
		}
		out = append(out, b)
	}
	return out
}
