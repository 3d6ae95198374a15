package deploy_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// The gateway in the chart: a Deployment running a `ste gateway` command
// line the CLI accepts, behind the Ingress (TLS from its secret, plain HTTP
// to the pods with --public-url the Ingress host), scaled on CPU by an HPA,
// a PodDisruptionBudget and a NetworkPolicy over its pods; with a
// certificate of its own, TLS to the pod.
func TestHelmGateway(t *testing.T) {
	objs := render(t)
	d := find(objs, "Deployment", "-gateway")
	if d == nil {
		t.Fatal("no gateway Deployment")
	}
	c := container(t, d)
	args := stringsOf(c["args"])
	if err := checkCommandLine(args); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"--insecure-http", "--public-url=https://ste-gateway.example.com", "--addr=0.0.0.0:8443", "--metrics-addr=0.0.0.0:9100"} {
		if !slices.Contains(args, want) {
			t.Errorf("gateway args %v lack %s", args, want)
		}
	}
	if get(d, "spec", "replicas") != nil {
		t.Error("with the HPA on, the Deployment leaves replicas to it")
	}
	sel := fmt.Sprint(get(d, "spec", "selector", "matchLabels"))
	hpa := find(objs, "HorizontalPodAutoscaler", "-gateway")
	if hpa == nil || str(hpa, "spec", "scaleTargetRef", "name") != nameOf(d) || str(hpa, "spec", "metrics", 0, "resource", "name") != "cpu" {
		t.Errorf("HPA %v", hpa)
	}
	pdb := find(objs, "PodDisruptionBudget", "-gateway")
	np := find(objs, "NetworkPolicy", "-gateway")
	if pdb == nil || fmt.Sprint(get(pdb, "spec", "selector", "matchLabels")) != sel ||
		np == nil || fmt.Sprint(get(np, "spec", "podSelector", "matchLabels")) != sel {
		t.Errorf("PDB %v / NetworkPolicy %v do not select the gateway pods %s", pdb, np, sel)
	}
	svc, ing := find(objs, "Service", "-gateway"), find(objs, "Ingress", "-gateway")
	if svc == nil || ing == nil || str(ing, "spec", "tls", 0, "secretName") != "ste-gateway-tls" ||
		str(ing, "spec", "rules", 0, "http", "paths", 0, "backend", "service", "name") != nameOf(svc) ||
		str(ing, "spec", "rules", 0, "host") != "ste-gateway.example.com" {
		t.Errorf("Ingress %v does not serve the gateway Service over TLS", ing)
	}
	// A certificate of the pods' own: TLS to the pod, no --insecure-http.
	d = find(render(t, "gateway.tls.secretName=gw-cert"), "Deployment", "-gateway")
	args = stringsOf(container(t, d)["args"])
	if slices.Contains(args, "--insecure-http") || !slices.Contains(args, "--tls-cert=/etc/ste/gateway-tls/tls.crt") ||
		!strings.Contains(fmt.Sprint(get(d, "spec", "template", "spec", "volumes")), "secretName:gw-cert") {
		t.Errorf("gateway.tls.secretName: args %v", args)
	}
	if find(render(t, "gateway.enabled=false"), "Deployment", "-gateway") != nil {
		t.Error("gateway.enabled=false still renders the gateway")
	}
}
