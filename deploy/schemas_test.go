package deploy_test

// The manifests STE ships, held to the schemas a cluster enforces: every
// object the Helm chart renders decoded strictly into the Kubernetes API
// types (k8s.io/api: an unknown or misspelt field, a wrong type, a
// duplicate key is an error, as with kubectl's strict field validation),
// and every custom resource — KEDA's ScaledObject and
// TriggerAuthentication, the Prometheus Operator's ServiceMonitor and
// PrometheusRule from the chart, Strimzi's KafkaTopic and KafkaUser from
// `ste topics manifest` — validated against the openAPIV3Schema of the CRD
// its project releases (make crds fetches them: deploy/crds/fetch.sh). What
// a cluster would check beyond this (admission, CEL rules, defaults) is in
// docs/operations.md, "What is checked here".

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topics/strimzi"
)

// builtin are the Kubernetes API types of the kinds the chart renders, by
// apiVersion/kind; a kind not here (nor a CRD's) fails the check, so that a
// new kind in the chart gets its schema too.
var builtin = map[string]func() any{
	"apps/v1/Deployment":                     func() any { return &appsv1.Deployment{} },
	"apps/v1/StatefulSet":                    func() any { return &appsv1.StatefulSet{} },
	"v1/Service":                             func() any { return &corev1.Service{} },
	"v1/ConfigMap":                           func() any { return &corev1.ConfigMap{} },
	"v1/Secret":                              func() any { return &corev1.Secret{} },
	"v1/ServiceAccount":                      func() any { return &corev1.ServiceAccount{} },
	"policy/v1/PodDisruptionBudget":          func() any { return &policyv1.PodDisruptionBudget{} },
	"networking.k8s.io/v1/NetworkPolicy":     func() any { return &networkingv1.NetworkPolicy{} },
	"networking.k8s.io/v1/Ingress":           func() any { return &networkingv1.Ingress{} },
	"autoscaling/v2/HorizontalPodAutoscaler": func() any { return &autoscalingv2.HorizontalPodAutoscaler{} },
}

// crdFiles are the released CRDs (under $STE_CRDS, make crds) of the
// custom resources STE renders, by group.
var crdFiles = map[string][]string{
	"keda.sh":               {"keda-v2.21.0/keda.sh_scaledobjects.yaml", "keda-v2.21.0/keda.sh_triggerauthentications.yaml"},
	"monitoring.coreos.com": {"prometheus-operator-v0.85.0/monitoring.coreos.com_servicemonitors.yaml", "prometheus-operator-v0.85.0/monitoring.coreos.com_prometheusrules.yaml"},
	"kafka.strimzi.io":      {"strimzi-0.45.0/043-Crd-kafkatopic.yaml", "strimzi-0.45.0/044-Crd-kafkauser.yaml"},
}

// schemas are compiled CRD schemas by apiVersion/kind.
type schemas map[string]*jsonschema.Schema

// loadSchemas compiles the openAPIV3Schema of every served version of the
// released CRDs.
func loadSchemas(t *testing.T) schemas {
	t.Helper()
	dir := os.Getenv("STE_CRDS")
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".cache", "ste", "crds")
		if c := os.Getenv("STE_CACHE"); c != "" {
			dir = filepath.Join(c, "crds")
		}
	}
	out := schemas{}
	for _, files := range crdFiles {
		for _, f := range files {
			b, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				required(t, "the released CRDs", "make crds fetches them: "+err.Error())
			}
			var crd struct {
				Spec struct {
					Group string `json:"group"`
					Names struct {
						Kind string `json:"kind"`
					} `json:"names"`
					Versions []struct {
						Name   string `json:"name"`
						Served bool   `json:"served"`
						Schema struct {
							OpenAPIV3Schema map[string]any `json:"openAPIV3Schema"`
						} `json:"schema"`
					} `json:"versions"`
				} `json:"spec"`
			}
			if err := sigsyaml.Unmarshal(b, &crd); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			for _, v := range crd.Spec.Versions {
				if !v.Served || v.Schema.OpenAPIV3Schema == nil {
					continue
				}
				s, err := compileCRDSchema(f+"#"+v.Name, v.Schema.OpenAPIV3Schema)
				if err != nil {
					t.Fatalf("%s %s: %v", f, v.Name, err)
				}
				out[crd.Spec.Group+"/"+v.Name+"/"+crd.Spec.Names.Kind] = s
			}
		}
	}
	return out
}

// compileCRDSchema compiles a CRD's structural schema (OpenAPI v3.0, i.e.
// JSON Schema draft 4 with Kubernetes' extensions) as the API server reads
// it: nullable admits null, x-kubernetes-int-or-string an integer or a
// string, and an object that lists its properties admits no others unless
// it says x-kubernetes-preserve-unknown-fields (the API server prunes such
// fields, or with strict field validation rejects them: either way the
// field a manifest meant to set is not set).
func compileCRDSchema(name string, openAPI map[string]any) (*jsonschema.Schema, error) {
	var fix func(v any)
	fix = func(v any) {
		switch s := v.(type) {
		case map[string]any:
			for _, k := range []string{"properties", "patternProperties", "definitions"} {
				if m, ok := s[k].(map[string]any); ok {
					for _, p := range m {
						fix(p)
					}
				}
			}
			for _, k := range []string{"items", "additionalProperties", "not"} {
				if m, ok := s[k].(map[string]any); ok {
					fix(m)
				}
			}
			for _, k := range []string{"allOf", "anyOf", "oneOf"} {
				if l, ok := s[k].([]any); ok {
					for _, p := range l {
						fix(p)
					}
				}
			}
			if s["x-kubernetes-int-or-string"] == true {
				delete(s, "type")
				if _, ok := s["anyOf"]; !ok {
					s["anyOf"] = []any{map[string]any{"type": "integer"}, map[string]any{"type": "string"}}
				}
			}
			if s["nullable"] == true {
				if typ, ok := s["type"].(string); ok {
					s["type"] = []any{typ, "null"}
				}
			}
			if _, ok := s["properties"]; ok && s["x-kubernetes-preserve-unknown-fields"] != true {
				if _, ok := s["additionalProperties"]; !ok {
					s["additionalProperties"] = false
				}
			}
		}
	}
	fix(openAPI)
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft4)
	url := "file:///" + strings.NewReplacer("#", "/", ".", "-").Replace(name) + ".json"
	if err := c.AddResource(url, openAPI); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

// checkManifest holds one YAML document to its schema: a built-in kind
// decoded strictly into its k8s.io/api type, a custom resource validated
// against its CRD's schema and its metadata decoded strictly into
// ObjectMeta. Names and labels are held to Kubernetes' rules either way.
func checkManifest(doc []byte, crds schemas) (string, error) {
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	if err := sigsyaml.Unmarshal(doc, &head); err != nil {
		return "", err
	}
	id := head.APIVersion + "/" + head.Kind
	what := head.Kind + " " + head.Metadata.Name
	var meta metav1.ObjectMeta
	if newObj, ok := builtin[id]; ok {
		obj := newObj()
		if err := sigsyaml.UnmarshalStrict(doc, obj); err != nil {
			return what, fmt.Errorf("not a valid %s: %w", id, err)
		}
		meta.Name, meta.Labels = obj.(metav1.Object).GetName(), obj.(metav1.Object).GetLabels()
	} else if s, ok := crds[id]; ok {
		j, err := sigsyaml.YAMLToJSONStrict(doc)
		if err != nil {
			return what, err
		}
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(j))
		if err != nil {
			return what, err
		}
		if err := s.Validate(v); err != nil {
			// The validator's report, one line: where and what.
			return what, fmt.Errorf("not a valid %s (its CRD's schema): %s", id,
				strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", " ; ")), " "))
		}
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(j, &raw); err != nil {
			return what, err
		}
		dec := json.NewDecoder(bytes.NewReader(raw["metadata"]))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&meta); err != nil {
			return what, fmt.Errorf("metadata: %w", err)
		}
	} else {
		return what, fmt.Errorf("no schema for %s: add its type or its CRD to deploy/schemas_test.go", id)
	}
	if errs := validation.IsDNS1123Subdomain(meta.Name); len(errs) > 0 {
		return what, fmt.Errorf("metadata.name %q: %s", meta.Name, strings.Join(errs, "; "))
	}
	for k, v := range meta.Labels {
		if errs := append(validation.IsQualifiedName(k), validation.IsValidLabelValue(v)...); len(errs) > 0 {
			return what, fmt.Errorf("label %s=%s: %s", k, v, strings.Join(errs, "; "))
		}
	}
	return what, nil
}

// documents splits a YAML stream into its non-empty documents.
func documents(b []byte) [][]byte {
	var out [][]byte
	for _, d := range regexp.MustCompile(`(?m)^---[ \t]*$`).Split(string(b), -1) {
		if strings.TrimSpace(regexp.MustCompile(`(?m)^#.*$`).ReplaceAllString(d, "")) != "" {
			out = append(out, []byte(d))
		}
	}
	return out
}

// chartValueSets switch on every template of the chart between them.
var chartValueSets = [][]string{
	nil,
	{"analytics.enabled=true", "topics.create=true", "topics.replication=3", "kafka.tls.clientSecret.name=ste-client",
		"validate.keda.enabled=false", "gateway.tls.secretName=gw-cert", "stateful.persistence.enabled=false",
		"kafka.sasl.mechanism=PLAIN", "http.port=9200"},
	{"kafka.sasl.mechanism=SCRAM-SHA-256", "gateway.hpa.enabled=false", "gateway.ingress.enabled=false"},
}

// Every object the chart renders, under each value set, is one the
// Kubernetes API (or its kind's released CRD) accepts.
func TestHelmChartAgainstKubernetesSchemas(t *testing.T) {
	crds := loadSchemas(t)
	kinds := map[string]bool{}
	for _, set := range chartValueSets {
		for _, doc := range documents(renderRaw(t, set...)) {
			what, err := checkManifest(doc, crds)
			if err != nil {
				t.Errorf("values %v: %s: %v", set, what, err)
			}
			kinds[strings.SplitN(what, " ", 2)[0]] = true
		}
	}
	var got []string
	for k := range kinds {
		got = append(got, k)
	}
	slices.Sort(got)
	t.Logf("kinds checked: %v", got)
	for _, want := range []string{"Deployment", "StatefulSet", "Service", "PodDisruptionBudget", "NetworkPolicy", "Ingress",
		"HorizontalPodAutoscaler", "ConfigMap", "ScaledObject", "TriggerAuthentication", "ServiceMonitor", "PrometheusRule"} {
		if !kinds[want] {
			t.Errorf("no %s among the rendered kinds %v", want, got)
		}
	}
}

// strimziManifest is `ste topics manifest --strimzi-api v1beta2`'s output
// for a namespace with two participants: every topic as a KafkaTopic, every
// principal as a KafkaUser. v1beta2, because the CRDs checked against are
// Strimzi 0.45.0's (the newest whose CRD generator runs on Java 17); the
// default v1 output differs from it in apiVersion alone
// (TestStrimziV1IsV1Beta2Renamed).
func strimziManifest(t *testing.T) []byte {
	t.Helper()
	return strimziManifestOf(t, strimzi.APIVersionV1Beta2)
}

func strimziManifestOf(t *testing.T, apiVersion string) []byte {
	t.Helper()
	b, err := strimzi.NamespaceManifest("ste", topics.Options{Partitions: 8, Replication: 3, MinInsync: 2},
		[]string{"BANKGB2L", "DEUTDEFF"}, strimzi.Options{Cluster: "my-cluster", Namespace: "trading", APIVersion: apiVersion})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestStrimziV1IsV1Beta2Renamed (issue 51): ste topics manifest prints
// kafka.strimzi.io/v1 by default — the only version Strimzi 1.x serves
// (0.49 to 0.51 serve it beside v1beta2) — and the resources are otherwise
// those checked against the CRDs above: KafkaTopic's spec and KafkaUser's
// (acls[].operations, the form v1 keeps) did not change between the two.
func TestStrimziV1IsV1Beta2Renamed(t *testing.T) {
	def, err := strimzi.NamespaceManifest("ste", topics.Options{Partitions: 8, Replication: 3, MinInsync: 2},
		[]string{"BANKGB2L", "DEUTDEFF"}, strimzi.Options{Cluster: "my-cluster", Namespace: "trading"})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(def), "apiVersion: kafka.strimzi.io/v1\n"); n < 8 || strings.Contains(string(def), "v1beta2") {
		t.Fatalf("the default manifest is not kafka.strimzi.io/v1 throughout (%d resources of v1)", n)
	}
	if got := strings.ReplaceAll(string(strimziManifest(t)), "kafka.strimzi.io/v1beta2", "kafka.strimzi.io/v1"); got != string(def) {
		t.Error("the v1 manifest differs from the v1beta2 one in more than its apiVersion")
	}
	if strings.Contains(string(def), "operation:") {
		t.Error("a KafkaUser ACL uses operation, which v1 removed (operations)")
	}
}

// Every KafkaTopic and KafkaUser `ste topics manifest` prints is valid
// against the CRDs Strimzi releases.
func TestStrimziManifestAgainstTheCRDs(t *testing.T) {
	crds := loadSchemas(t)
	n := map[string]int{}
	for _, doc := range documents(strimziManifest(t)) {
		what, err := checkManifest(doc, crds)
		if err != nil {
			t.Errorf("%s: %v", what, err)
		}
		n[strings.SplitN(what, " ", 2)[0]]++
	}
	if n["KafkaTopic"] < 5 || n["KafkaUser"] < 3 {
		t.Errorf("checked %v: want the namespace's topics and users", n)
	}
}

// Each check fails on a manifest broken the way a hand edit breaks one:
// a misspelt field, a wrong type, a value outside an enum, a missing
// required field — in a built-in kind and in each custom resource.
func TestSchemaChecksRefuseBrokenManifests(t *testing.T) {
	crds := loadSchemas(t)
	docs := map[string][]byte{}
	for _, d := range append(documents(renderRaw(t)), documents(strimziManifest(t))...) {
		var h struct {
			Kind string `json:"kind"`
		}
		sigsyaml.Unmarshal(d, &h)
		if _, ok := docs[h.Kind]; !ok {
			docs[h.Kind] = d
		}
	}
	cases := []struct {
		kind, name string
		edit       func(o map[string]any)
	}{
		{"Deployment", "misspelt container field", func(o map[string]any) {
			c := get(o, "spec", "template", "spec", "containers", 0).(map[string]any)
			c["imagePullPolcy"] = "Always"
		}},
		{"Deployment", "replicas as a string", func(o map[string]any) { o["spec"].(map[string]any)["replicas"] = "two" }},
		{"StatefulSet", "unknown spec field", func(o map[string]any) { o["spec"].(map[string]any)["podManagement"] = "Parallel" }},
		{"Service", "port as a string", func(o map[string]any) {
			get(o, "spec", "ports", 0).(map[string]any)["port"] = "http"
		}},
		{"Service", "label value too long", func(o map[string]any) {
			o["metadata"].(map[string]any)["labels"] = map[string]any{"a": strings.Repeat("x", 64)}
		}},
		{"ScaledObject", "unknown spec field", func(o map[string]any) { o["spec"].(map[string]any)["maxReplicas"] = 3 }},
		{"ScaledObject", "no scaleTargetRef.name", func(o map[string]any) {
			delete(get(o, "spec", "scaleTargetRef").(map[string]any), "name")
		}},
		{"TriggerAuthentication", "secretTargetRef without key", func(o map[string]any) {
			delete(get(o, "spec", "secretTargetRef", 0).(map[string]any), "key")
		}},
		{"ServiceMonitor", "endpoints not a list", func(o map[string]any) { o["spec"].(map[string]any)["endpoints"] = "metrics" }},
		{"PrometheusRule", "rule without expr", func(o map[string]any) {
			delete(get(o, "spec", "groups", 0, "rules", 0).(map[string]any), "expr")
		}},
		{"KafkaTopic", "partitions as a string", func(o map[string]any) { o["spec"].(map[string]any)["partitions"] = "8" }},
		{"KafkaTopic", "misspelt replicas", func(o map[string]any) {
			s := o["spec"].(map[string]any)
			s["replication"] = s["replicas"]
			delete(s, "replicas")
		}},
		{"KafkaUser", "authentication type outside the enum", func(o map[string]any) {
			get(o, "spec", "authentication").(map[string]any)["type"] = "scram-sha-1"
		}},
		{"KafkaUser", "ACL operation outside the enum", func(o map[string]any) {
			get(o, "spec", "authorization", "acls", 0).(map[string]any)["operations"] = []any{"Fly"}
		}},
	}
	for _, c := range cases {
		t.Run(c.kind+"/"+c.name, func(t *testing.T) {
			d, ok := docs[c.kind]
			if !ok {
				t.Fatalf("no %s rendered", c.kind)
			}
			if _, err := checkManifest(d, crds); err != nil {
				t.Fatalf("the manifest as rendered fails already: %v", err)
			}
			var o map[string]any
			if err := sigsyaml.Unmarshal(d, &o); err != nil {
				t.Fatal(err)
			}
			c.edit(o)
			broken, _ := sigsyaml.Marshal(o)
			_, err := checkManifest(broken, crds)
			if err == nil {
				t.Fatalf("a %s with %s passes the check", c.kind, c.name)
			}
			t.Logf("refused: %v", firstLine(err.Error()))
		})
	}
	// A duplicate key, which a YAML parser would let pass with the last
	// value, is refused too.
	dup := append(bytes.Clone(docs["Service"]), []byte("kind: Service\n")...)
	if _, err := checkManifest(dup, crds); err == nil {
		t.Error("a Service with kind twice passes the check")
	}
}
