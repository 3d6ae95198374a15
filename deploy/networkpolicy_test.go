package deploy_test

import (
	"fmt"
	"slices"
	"testing"
)

// The STE pods' lookup port (whole trades) is reachable from the console's
// and the gateway's pods only, their metrics port from Prometheus only
// (issue 30, finding 3); each pod serves the lookup on its own port with
// the utility's shared secret mounted.
func TestHelmNetworkPolicy(t *testing.T) {
	objs := render(t)
	np := find(objs, "NetworkPolicy", "-process")
	if np == nil {
		t.Fatal("no NetworkPolicy for the STE processes")
	}
	for _, w := range []map[string]any{find(objs, "Deployment", "-validate"), find(objs, "StatefulSet", "-match")} {
		labels, _ := get(w, "spec", "template", "metadata", "labels").(map[string]any)
		if !selects(get(np, "spec", "podSelector"), labels) {
			t.Errorf("the policy does not select %s's pods (%v)", nameOf(w), labels)
		}
		c := container(t, w)
		e := env(c)
		if e["STE_LOOKUP"] != "0.0.0.0:9101" || e["STE_UTILITY_SECRET"] != "/etc/ste/utility-secret/utility.secret" {
			t.Errorf("%s: STE_LOOKUP %q, STE_UTILITY_SECRET %q", nameOf(w), e["STE_LOOKUP"], e["STE_UTILITY_SECRET"])
		}
		var ports []string
		for _, p := range c["ports"].([]any) {
			ports = append(ports, fmt.Sprint(str(p, "name"), ":", get(p, "containerPort")))
		}
		if !slices.Contains(ports, "lookup:9101") || !slices.Contains(ports, "http:9100") {
			t.Errorf("%s: ports %v", nameOf(w), ports)
		}
	}
	if pt := stringsOf(get(np, "spec", "policyTypes")); !slices.Equal(pt, []string{"Ingress"}) {
		t.Errorf("policy types %v", pt)
	}
	rules, _ := get(np, "spec", "ingress").([]any)
	byPort := map[string]any{}
	for _, r := range rules {
		ps, _ := get(r, "ports").([]any)
		if len(ps) != 1 {
			t.Fatalf("a rule for %d ports: %v", len(ps), r)
		}
		byPort[fmt.Sprint(get(ps[0], "port"))] = get(r, "from")
	}
	if len(byPort) != 2 || byPort["lookup"] == nil || byPort["http"] == nil {
		t.Fatalf("want one rule for the lookup port and one for metrics: %v", rules)
	}
	lookupFrom := byPort["lookup"].([]any)
	console := map[string]any{"app.kubernetes.io/name": "ste", "app.kubernetes.io/instance": "rel", "app.kubernetes.io/component": "console"}
	gateway := map[string]any{"app.kubernetes.io/name": "ste", "app.kubernetes.io/instance": "rel", "app.kubernetes.io/component": "gateway"}
	match := map[string]any{"app.kubernetes.io/name": "ste", "app.kubernetes.io/instance": "rel", "app.kubernetes.io/component": "identity-match"}
	if len(lookupFrom) != 1 || get(lookupFrom[0], "namespaceSelector") != nil || get(lookupFrom[0], "ipBlock") != nil ||
		!selects(get(lookupFrom[0], "podSelector"), console) || !selects(get(lookupFrom[0], "podSelector"), gateway) ||
		selects(get(lookupFrom[0], "podSelector"), match) {
		t.Errorf("the lookup port is open to %v, want the console's and gateway's pods only", lookupFrom)
	}
	metricsFrom := byPort["http"].([]any)
	if len(metricsFrom) != 1 || get(metricsFrom[0], "namespaceSelector") == nil ||
		str(metricsFrom[0], "podSelector", "matchLabels", "app.kubernetes.io/name") != "prometheus" {
		t.Errorf("the metrics port is open to %v, want Prometheus only", metricsFrom)
	}
	if np := find(render(t, "networkPolicy.enabled=false"), "NetworkPolicy", "-process"); np != nil {
		t.Error("networkPolicy.enabled=false still renders the policy")
	}
}

// selects says whether a label selector (matchLabels, matchExpressions
// with In) selects labels.
func selects(sel any, labels map[string]any) bool {
	if sel == nil {
		return false
	}
	ml, _ := get(sel, "matchLabels").(map[string]any)
	for k, v := range ml {
		if labels[k] != v {
			return false
		}
	}
	exprs, _ := get(sel, "matchExpressions").([]any)
	for _, e := range exprs {
		if str(e, "operator") != "In" || !slices.Contains(stringsOf(get(e, "values")), fmt.Sprint(labels[str(e, "key")])) {
			return false
		}
	}
	return true
}
