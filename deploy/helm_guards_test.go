package deploy_test

import (
	"strings"
	"testing"
)

// Finding 10 (issue 30): the chart does not render what would run
// insecurely — no utility key (the public demo key would sign), no shared
// secret, TLS or SASL off — unless a value says so on purpose; no pod
// mounts a service account token; every process pod holds the utility
// secret from its Secret.
func TestHelmGuards(t *testing.T) {
	for _, c := range []struct {
		set  []string
		want string // in the error
	}{
		{[]string{"utilityKey.secretName="}, "public demo key"},
		{[]string{"utilitySecret.secretName="}, "utilitySecret.secretName is empty"},
		{[]string{"kafka.tls.enabled=false"}, "in the clear"},
		{[]string{"kafka.sasl.mechanism="}, "without authenticating"},
	} {
		out, err := helmTemplate(c.set...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("helm template --set %v: %v, want a refusal naming %q:\n%s", c.set, err, c.want, firstLine(string(out)))
		}
	}
	// On purpose: it renders.
	render(t, "utilityKey.secretName=", "utilitySecret.secretName=", "demo=true")
	render(t, "kafka.tls.enabled=false", "kafka.sasl.mechanism=", "kafka.insecure=true")
	render(t, "kafka.sasl.mechanism=", "kafka.tls.clientSecret.name=ste-client") // mutual TLS authenticates

	objs := render(t, "analytics.enabled=true")
	for _, o := range objs {
		if k := kindOf(o); k != "Deployment" && k != "StatefulSet" {
			continue
		}
		if v := get(o, "spec", "template", "spec", "automountServiceAccountToken"); v != false {
			t.Errorf("%s %s: automountServiceAccountToken %v, want false", kindOf(o), nameOf(o), v)
		}
	}
	for _, o := range []map[string]any{find(objs, "Deployment", "-validate"), find(objs, "StatefulSet", "-match")} {
		c := container(t, o)
		if f := env(c)["STE_UTILITY_SECRET"]; f == "" || secretOf(mounts(get(o, "spec", "template", "spec"), c), f) != "ste-utility-secret" {
			t.Errorf("%s: the utility secret is not mounted from ste-utility-secret: %v", nameOf(o), env(c))
		}
	}
}
