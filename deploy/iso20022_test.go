package deploy_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// ste iso20022 in the chart: a Deployment of two replicas (stateless: the
// journal on Kafka is its only state) running a command line the CLI
// accepts, its signer key from a secret (0400), ready on /v1/health,
// /metrics on the http port; a Service, a PodDisruptionBudget, a
// NetworkPolicy and an Ingress for the custodians' port. Without the
// signer's secret it renders only with demo: true.
func TestHelmISO20022(t *testing.T) {
	objs := render(t)
	d := find(objs, "Deployment", "-iso20022")
	if d == nil {
		t.Fatal("no iso20022 Deployment")
	}
	if fmt.Sprint(get(d, "spec", "replicas")) != "2" {
		t.Errorf("replicas %v", get(d, "spec", "replicas"))
	}
	c := container(t, d)
	args := stringsOf(c["args"])
	if err := checkCommandLine(args); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"--addr=0.0.0.0:8444", "--metrics-addr=0.0.0.0:9100", "--public-url=https://ste-iso20022.example.com",
		"--signer-key=/etc/ste/iso20022-signer/signer.key", "--insecure-http"} {
		if !slices.Contains(args, want) {
			t.Errorf("iso20022 args %v lack %s", args, want)
		}
	}
	if slices.Contains(args, "--demo-key") {
		t.Errorf("production args %v", args)
	}
	vols := fmt.Sprint(get(d, "spec", "template", "spec", "volumes"))
	if !strings.Contains(vols, "secretName:ste-iso20022-signer") || !strings.Contains(vols, "defaultMode:256") {
		t.Errorf("signer volume: %s", vols)
	}
	if str(c, "readinessProbe", "httpGet", "path") != "/v1/health" {
		t.Errorf("readiness %v", c["readinessProbe"])
	}
	if svc := find(objs, "Service", "-iso20022"); svc == nil || fmt.Sprint(get(svc, "spec", "ports", 0, "port")) != "8444" {
		t.Errorf("Service %v", svc)
	}
	for _, kind := range []string{"PodDisruptionBudget", "NetworkPolicy", "Ingress"} {
		if find(objs, kind, "-iso20022") == nil {
			t.Errorf("no %s for iso20022", kind)
		}
	}
	tls := container(t, find(render(t, "iso20022.tls.secretName=iso-tls"), "Deployment", "-iso20022"))
	if a := stringsOf(tls["args"]); !slices.Contains(a, "--tls-cert=/etc/ste/iso20022-tls/tls.crt") || slices.Contains(a, "--insecure-http") {
		t.Errorf("TLS args %v", a)
	}
	demo := find(render(t, "demo=true", "iso20022.signerKey.secretName="), "Deployment", "-iso20022")
	if a := stringsOf(container(t, demo)["args"]); !slices.Contains(a, "--demo-key") {
		t.Errorf("demo args %v", a)
	}
	if _, err := helmTemplate("iso20022.signerKey.secretName="); err == nil || !strings.Contains(err.Error(), "iso20022.signerKey.secretName") {
		t.Errorf("no signer key outside demo: %v", err)
	}
	if find(render(t, "iso20022.enabled=false"), "Deployment", "-iso20022") != nil {
		t.Error("iso20022.enabled=false still renders it")
	}
}
