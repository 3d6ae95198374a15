package deploy_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// ste fixgw in the chart: a StatefulSet of one replica running a command
// line the CLI accepts, its store under $STE_HOME on a volume claim, TLS
// from its secret, its signer key and credentials from secrets (0400: the
// process refuses a credentials file others may read), ready on /health,
// scraped on the http port; a Service for the FIX port. Without the
// secrets it renders only with demo: true.
func TestHelmFIXGateway(t *testing.T) {
	objs := render(t)
	s := find(objs, "StatefulSet", "-fixgw")
	if s == nil {
		t.Fatal("no fixgw StatefulSet")
	}
	if fmt.Sprint(get(s, "spec", "replicas")) != "1" {
		t.Errorf("replicas %v: one session store, one process", get(s, "spec", "replicas"))
	}
	c := container(t, s)
	args := stringsOf(c["args"])
	if err := checkCommandLine(args); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"--addr=0.0.0.0:9880", "--health-addr=0.0.0.0:9100", "--store=/var/lib/ste/fixgw",
		"--tls-cert=/etc/ste/fixgw-tls/tls.crt", "--signer-key=/etc/ste/fixgw-signer/signer.key",
		"--credentials=/etc/ste/fixgw-credentials/credentials.csv"} {
		if !slices.Contains(args, want) {
			t.Errorf("fixgw args %v lack %s", args, want)
		}
	}
	if slices.Contains(args, "--demo-key") || slices.Contains(args, "--demo-credentials") || slices.Contains(args, "--insecure-plain") {
		t.Errorf("production args %v", args)
	}
	if str(s, "spec", "volumeClaimTemplates", 0, "metadata", "name") != "home" ||
		!strings.Contains(fmt.Sprint(c["volumeMounts"]), "mountPath:/var/lib/ste") {
		t.Errorf("the store is not on the claim: %v / %v", get(s, "spec", "volumeClaimTemplates"), c["volumeMounts"])
	}
	vols := fmt.Sprint(get(s, "spec", "template", "spec", "volumes"))
	if !strings.Contains(vols, "secretName:ste-fixgw-credentials") || !strings.Contains(vols, "defaultMode:256") {
		t.Errorf("credentials volume: %s", vols)
	}
	if str(c, "readinessProbe", "httpGet", "path") != "/health" {
		t.Errorf("readiness %v", c["readinessProbe"])
	}
	if svc := find(objs, "Service", "-fixgw"); svc == nil || fmt.Sprint(get(svc, "spec", "ports", 0, "port")) != "9880" {
		t.Errorf("Service %v", svc)
	}
	demo := find(render(t, "demo=true", "fixgw.signerKey.secretName=", "fixgw.credentials.secretName="), "StatefulSet", "-fixgw")
	if a := stringsOf(container(t, demo)["args"]); !slices.Contains(a, "--demo-key") || !slices.Contains(a, "--demo-credentials") {
		t.Errorf("demo args %v", a)
	}
	if _, err := helmTemplate("fixgw.credentials.secretName="); err == nil || !strings.Contains(err.Error(), "fixgw.credentials.secretName") {
		t.Errorf("no credentials outside demo: %v", err)
	}
	if find(render(t, "fixgw.enabled=false"), "StatefulSet", "-fixgw") != nil {
		t.Error("fixgw.enabled=false still renders it")
	}
}
