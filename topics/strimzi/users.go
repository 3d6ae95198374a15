package strimzi

import (
	"fmt"

	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topics/access"
)

// KafkaUser is the part of Strimzi's KafkaUser resource STE sets: a SCRAM
// user (the user operator makes its password, in a Secret of the user's
// name) and its ACLs under simple authorization.
type KafkaUser struct {
	APIVersion string   `yaml:"apiVersion"`
	Kind       string   `yaml:"kind"`
	Metadata   Metadata `yaml:"metadata"`
	Spec       UserSpec `yaml:"spec"`
}

// UserSpec is a KafkaUser's authentication and authorization.
type UserSpec struct {
	Authentication struct {
		Type string `yaml:"type"`
	} `yaml:"authentication"`
	Authorization struct {
		Type string    `yaml:"type"`
		ACLs []ACLRule `yaml:"acls"`
	} `yaml:"authorization"`
}

// ACLRule is one allow rule of a KafkaUser.
type ACLRule struct {
	Resource struct {
		Type        string `yaml:"type"`
		Name        string `yaml:"name"`
		PatternType string `yaml:"patternType"`
	} `yaml:"resource"`
	Operations []string `yaml:"operations"`
	Host       string   `yaml:"host"`
}

// Users are the KafkaUser resources of the principals (topics/access), one
// each, SCRAM-SHA-512, with exactly the principal's rules.
func Users(ps []access.Principal, o Options) ([]KafkaUser, error) {
	if o.Cluster == "" {
		return nil, fmt.Errorf("strimzi: no cluster name")
	}
	seen := map[string]bool{}
	var out []KafkaUser
	for _, p := range ps {
		if p.User != ResourceName(p.User) {
			return nil, fmt.Errorf("user %s is not a Kubernetes resource name", p.User)
		}
		if seen[p.User] {
			return nil, fmt.Errorf("two principals are user %s", p.User)
		}
		seen[p.User] = true
		u := KafkaUser{APIVersion: o.apiVersion(), Kind: "KafkaUser",
			Metadata: Metadata{Name: p.User, Namespace: o.Namespace, Labels: map[string]string{
				"strimzi.io/cluster": o.Cluster, "app.kubernetes.io/part-of": "ste", "ste/role": string(p.Role)}}}
		u.Spec.Authentication.Type = "scram-sha-512"
		u.Spec.Authorization.Type = "simple"
		for _, r := range p.Rules {
			var a ACLRule
			a.Resource.Type, a.Resource.Name, a.Resource.PatternType = string(r.Type), r.Name, string(r.Pattern)
			for _, op := range r.Operations {
				a.Operations = append(a.Operations, string(op))
			}
			a.Host = "*"
			u.Spec.Authorization.ACLs = append(u.Spec.Authorization.ACLs, a)
		}
		out = append(out, u)
	}
	return out, nil
}

// NamespaceManifest is `ste topics manifest`: the namespace's topics, the
// <ns>.out.<BIC> topic of every participant of bics, and the users of
// access.Principals — the utility's and one per participant.
func NamespaceManifest(ns string, to topics.Options, bics []string, o Options) ([]byte, error) {
	specs := topics.Specs(ns, to)
	for _, b := range bics {
		specs = append(specs, topics.DeliverySpec(ns, b, to))
	}
	return Manifest(specs, access.Principals(ns, bics), o)
}
