// Package deploy_test checks deploy/ as far as a machine without Docker or
// Kubernetes can: the Dockerfile's build of ste gives a static binary,
// every ste command line of compose.yaml and of the Helm chart is one the
// CLI accepts, and the chart renders the resources a cluster needs (kinds,
// probes, ports, secret references, KEDA's target), with the alert rules and
// dashboards of deploy/monitoring. What these checks cannot show — an image
// built and run, a cluster applying the chart — docs/operations.md lists.
package deploy_test

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/ste-utility/ste/testgate"
	"github.com/ste-utility/ste/topology"
)

var steBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ste-deploy-")
	if err != nil {
		panic(err)
	}
	steBin = filepath.Join(dir, "ste")
	build := exec.Command("go", "build", "-o", steBin, "../cmd/ste")
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "deploy: building ste:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// required says whether a missing tool fails a check (make test sets
// STE_DEPLOY_CHECKS=1; CI=true too) or skips it.
func required(t *testing.T, tool, hint string) {
	t.Helper()
	if os.Getenv("STE_DEPLOY_CHECKS") == "1" {
		t.Fatalf("%s not found (%s)", tool, hint)
	}
	testgate.Need(t, tool+" ("+hint+")", errors.New("not found"))
}

// dockerfileRun is the RUN step of deploy/Dockerfile that follows the
// "# build ste" comment, with its line continuations joined.
func dockerfileRun(t *testing.T, marker string) string {
	t.Helper()
	b, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) != "# "+marker {
			continue
		}
		var run strings.Builder
		for _, l := range lines[i+1:] {
			run.WriteString(strings.TrimSuffix(strings.TrimSpace(l), "\\"))
			run.WriteString(" ")
			if !strings.HasSuffix(strings.TrimSpace(l), "\\") {
				break
			}
		}
		cmd := strings.TrimSpace(run.String())
		if !strings.HasPrefix(cmd, "RUN ") {
			t.Fatalf("Dockerfile: %q is not followed by a RUN step: %s", marker, cmd)
		}
		return strings.TrimPrefix(cmd, "RUN ")
	}
	t.Fatalf("Dockerfile: no %q step", marker)
	return ""
}

// dockerfileArg is the default of an ARG.
func dockerfileArg(t *testing.T, name string) string {
	t.Helper()
	b, _ := os.ReadFile("Dockerfile")
	m := regexp.MustCompile(`(?m)^ARG ` + name + `=(\S+)$`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("Dockerfile: no ARG %s with a default", name)
	}
	return string(m[1])
}

// The Dockerfile's build of ste, run here as written (its output directory
// moved to a temporary one), gives a static ELF: no interpreter, no shared
// libraries, so it runs on distroless/static.
func TestDockerfileBuildsStaticSte(t *testing.T) {
	run := dockerfileRun(t, "build ste")
	if !strings.Contains(run, "go build") || !strings.Contains(run, "/out/ste ./cmd/ste") {
		t.Fatalf("the build ste step does not build ./cmd/ste into /out/ste: %s", run)
	}
	out := t.TempDir()
	cmd := exec.Command("sh", "-c", strings.ReplaceAll(run, "/out/", out+"/"))
	cmd.Dir = ".." // the Dockerfile's WORKDIR holds the repository
	cmd.Env = append(os.Environ(), "VERSION="+dockerfileArg(t, "VERSION"))
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", run, err, b)
	}
	f, err := elf.Open(filepath.Join(out, "ste"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
			t.Fatalf("ste built by the Dockerfile is dynamically linked (%v)", p.Type)
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		t.Fatalf("ste built by the Dockerfile needs %v", libs)
	}
}

// cliFlags is the command's flags, read from `ste <command> --help`; an
// unknown command is an error.
func cliFlags(command []string) (map[string]bool, error) {
	cmd := exec.Command(steBin, append(slices.Clone(command), "--help")...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("ste %s --help: %v: %s", strings.Join(command, " "), err, strings.TrimSpace(out.String()))
	}
	if !strings.HasPrefix(out.String(), "usage: ste "+strings.Join(command, " ")+" ") {
		return nil, fmt.Errorf("ste %s is not a command: %s", strings.Join(command, " "), firstLine(out.String()))
	}
	flags := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^  -([a-z0-9-]+)`).FindAllStringSubmatch(out.String(), -1) {
		flags[m[1]] = true
	}
	return flags, nil
}

func firstLine(s string) string { return strings.SplitN(s, "\n", 2)[0] }

// checkCommandLine holds one ste command line (the words after "ste") to
// the CLI: the command exists and every flag is one of its flags.
func checkCommandLine(args []string) error {
	var command []string
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			break
		}
		command = append(command, a)
	}
	if len(command) == 0 || len(command) > 2 {
		return fmt.Errorf("no command in %q", args)
	}
	flags, err := cliFlags(command)
	if err != nil {
		return err
	}
	for _, a := range args[len(command):] {
		if !strings.HasPrefix(a, "-") {
			continue // a value
		}
		name := strings.TrimLeft(strings.SplitN(a, "=", 2)[0], "-")
		if !flags[name] {
			return fmt.Errorf("ste %s has no flag --%s", strings.Join(command, " "), name)
		}
	}
	return nil
}

// steHelp is `ste --help`.
func steHelp(t *testing.T) string {
	t.Helper()
	out, err := exec.Command(steBin, "--help").Output()
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// checkEnv holds environment variable names to the CLI: every STE_ name is
// one `ste --help` lists.
func checkEnv(help string, names []string) error {
	for _, n := range names {
		if strings.HasPrefix(n, "STE_") && !regexp.MustCompile(`\b`+n+`\b`).MatchString(help) {
			return fmt.Errorf("%s is not an environment variable ste --help lists", n)
		}
	}
	return nil
}

// Every environment variable the CLI reads is listed in `ste --help`.
func TestHelpListsEveryVariable(t *testing.T) {
	help := steHelp(t)
	files, _ := filepath.Glob("../cmd/ste/*.go")
	var names []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		// A server's signer flags are named from a prefix
		// (newSignerFlags): the variables are the prefix's _SIGNER_BIC
		// and _SIGNER_KEY.
		prefixes := map[string]bool{}
		for _, m := range regexp.MustCompile(`newSignerFlags\(fs, "(STE_[A-Z0-9_]+)"`).FindAllSubmatch(b, -1) {
			prefixes[string(m[1])] = true
			names = append(names, string(m[1])+"_SIGNER_BIC", string(m[1])+"_SIGNER_KEY")
		}
		for _, m := range regexp.MustCompile(`"(STE_[A-Z0-9_]+)"`).FindAllSubmatch(b, -1) {
			if !prefixes[string(m[1])] {
				names = append(names, string(m[1]))
			}
		}
	}
	if len(names) < 15 {
		t.Fatalf("found only %d variables in cmd/ste", len(names))
	}
	if err := checkEnv(help, names); err != nil {
		t.Fatal(err)
	}
}

type composeFile struct {
	Services map[string]struct {
		Image       string            `yaml:"image"`
		Command     []string          `yaml:"command"`
		Environment map[string]string `yaml:"environment"`
		Volumes     []string          `yaml:"volumes"`
		DependsOn   yaml.Node         `yaml:"depends_on"`
	} `yaml:"services"`
}

// compose.yaml parses; each ste service's command line is one the CLI
// accepts and its environment is ste's; the files it mounts exist; the
// services the acceptance asks for are there.
func TestComposeCommandsMatchTheCLI(t *testing.T) {
	b, err := os.ReadFile("compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var c composeFile
	if err := yaml.Unmarshal(b, &c); err != nil {
		t.Fatalf("compose.yaml: %v", err)
	}
	help := steHelp(t)
	var groups []string
	steServices := 0
	for name, s := range c.Services {
		for _, v := range s.Volumes {
			if src := strings.SplitN(v, ":", 2)[0]; strings.HasPrefix(src, "./") {
				if _, err := os.Stat(src); err != nil {
					t.Errorf("service %s mounts %s: %v", name, src, err)
				}
			}
		}
		if !strings.HasPrefix(s.Image, "ste:") {
			continue
		}
		steServices++
		if err := checkCommandLine(s.Command); err != nil {
			t.Errorf("service %s: %v", name, err)
		}
		var env []string
		for k := range s.Environment {
			env = append(env, k)
		}
		if err := checkEnv(help, env); err != nil {
			t.Errorf("service %s: %v", name, err)
		}
		if i := slices.Index(s.Command, "--groups"); i >= 0 && s.Command[0] == "process" {
			groups = append(groups, s.Command[i+1])
		}
	}
	slices.Sort(groups)
	if !slices.Equal(groups, []string{"identity,match", "validate"}) {
		t.Errorf("process services run groups %v, want validate and identity,match apart", groups)
	}
	for _, want := range []string{"kafka", "clickhouse", "analytics", "prometheus", "grafana"} {
		if _, ok := c.Services[want]; !ok {
			t.Errorf("compose.yaml has no %s service", want)
		}
	}
	if steServices < 5 {
		t.Errorf("only %d ste services", steServices)
	}
}

// The compose Prometheus configuration is valid with STE's rules.
func TestComposePrometheusConfig(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		required(t, "promtool", "Debian's prometheus package; make test installs it")
	}
	dir := t.TempDir()
	cfg, err := os.ReadFile("monitoring/prometheus/prometheus.yml")
	if err != nil {
		t.Fatal(err)
	}
	rules, _ := os.ReadFile("monitoring/prometheus/alerts.yaml")
	os.WriteFile(filepath.Join(dir, "alerts.yaml"), rules, 0o644)
	os.WriteFile(filepath.Join(dir, "prometheus.yml"), bytes.ReplaceAll(cfg, []byte("/etc/prometheus/"), []byte(dir+"/")), 0o644)
	if out, err := exec.Command(promtool, "check", "config", filepath.Join(dir, "prometheus.yml")).CombinedOutput(); err != nil {
		t.Fatalf("promtool check config: %v\n%s", err, out)
	}
}

func kindOf(o map[string]any) string { return str(o, "kind") }
func nameOf(o map[string]any) string { return str(o, "metadata", "name") }

// get walks maps by keys and lists by integer index.
func get(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[k]
		case int:
			l, ok := v.([]any)
			if !ok || k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

func str(v any, path ...any) string { s, _ := get(v, path...).(string); return s }

// render runs helm template with values and parses the YAML stream.
func render(t *testing.T, set ...string) []map[string]any {
	t.Helper()
	dec := yaml.NewDecoder(bytes.NewReader(renderRaw(t, set...)))
	var objs []map[string]any
	for {
		var o map[string]any
		err := dec.Decode(&o)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("helm template output: %v", err)
		}
		if o != nil {
			objs = append(objs, o)
		}
	}
	return objs
}

// renderRaw is helm template's output with values (helmTemplate).
func renderRaw(t *testing.T, set ...string) []byte {
	t.Helper()
	out, err := helmTemplate(set...)
	if err != nil {
		t.Fatalf("helm template --set %s: %v", strings.Join(set, ","), err)
	}
	return out
}

func find(objs []map[string]any, kind, nameSuffix string) map[string]any {
	for _, o := range objs {
		if kindOf(o) == kind && strings.HasSuffix(nameOf(o), nameSuffix) {
			return o
		}
	}
	return nil
}

// container is the ste container of a workload.
func container(t *testing.T, o map[string]any) map[string]any {
	t.Helper()
	c, ok := get(o, "spec", "template", "spec", "containers", 0).(map[string]any)
	if !ok || c["name"] != "ste" {
		t.Fatalf("%s %s: no ste container", kindOf(o), nameOf(o))
	}
	return c
}

func stringsOf(v any) []string {
	var out []string
	l, _ := v.([]any)
	for _, x := range l {
		out = append(out, fmt.Sprint(x))
	}
	return out
}

// env is a container's environment: literal values, and "secret:NAME/KEY"
// or "field:PATH" for references.
func env(c map[string]any) map[string]string {
	out := map[string]string{}
	l, _ := c["env"].([]any)
	for _, e := range l {
		name := str(e, "name")
		switch {
		case get(e, "valueFrom", "secretKeyRef") != nil:
			out[name] = "secret:" + str(e, "valueFrom", "secretKeyRef", "name") + "/" + str(e, "valueFrom", "secretKeyRef", "key")
		case get(e, "valueFrom", "fieldRef") != nil:
			out[name] = "field:" + str(e, "valueFrom", "fieldRef", "fieldPath")
		default:
			out[name] = str(e, "value")
		}
	}
	return out
}

// mounts maps a container's mount paths to the secret each volume holds
// ("" for other volumes).
func mounts(pod any, c map[string]any) map[string]string {
	secrets := map[string]string{}
	vols, _ := get(pod, "volumes").([]any)
	for _, v := range vols {
		secrets[str(v, "name")] = str(v, "secret", "secretName")
	}
	out := map[string]string{}
	ms, _ := c["volumeMounts"].([]any)
	for _, m := range ms {
		out[str(m, "mountPath")] = secrets[str(m, "name")]
	}
	return out
}

// secretOf is the secret mounted at the directory of a file path.
func secretOf(ms map[string]string, file string) string { return ms[filepath.Dir(file)] }

// checkProcessPod holds a rendered ste process pod to the chart's promises.
func checkProcessPod(t *testing.T, o map[string]any, groups string, port int) {
	t.Helper()
	c := container(t, o)
	args := stringsOf(c["args"])
	if err := checkCommandLine(args); err != nil {
		t.Errorf("%s: %v", nameOf(o), err)
	}
	if !slices.Contains(args, "--groups="+groups) {
		t.Errorf("%s runs %v, want --groups=%s", nameOf(o), args, groups)
	}
	e := env(c)
	var names []string
	for k := range e {
		names = append(names, k)
	}
	if err := checkEnv(steHelp(t), names); err != nil {
		t.Errorf("%s: %v", nameOf(o), err)
	}
	if e["STE_INSTANCE_ID"] != "field:metadata.name" {
		t.Errorf("%s: the instance id is %q, want the pod name", nameOf(o), e["STE_INSTANCE_ID"])
	}
	if e["STE_HTTP"] != fmt.Sprintf("0.0.0.0:%d", port) {
		t.Errorf("%s: STE_HTTP %q, want the fixed port %d", nameOf(o), e["STE_HTTP"], port)
	}
	// The probes reach the port ste serves, by its name.
	portName := ""
	ps, _ := c["ports"].([]any)
	for _, p := range ps {
		if fmt.Sprint(get(p, "containerPort")) == fmt.Sprint(port) {
			portName = str(p, "name")
		}
	}
	if portName == "" {
		t.Fatalf("%s: no container port %d", nameOf(o), port)
	}
	for probe, path := range map[string]string{"livenessProbe": "/healthz", "readinessProbe": "/readyz", "startupProbe": "/healthz"} {
		if str(c, probe, "httpGet", "path") != path || fmt.Sprint(get(c, probe, "httpGet", "port")) != portName {
			t.Errorf("%s: %s is %v, want GET %s on port %s", nameOf(o), probe, c[probe], path, portName)
		}
	}
	// Secrets are mounted files, never values: the Kafka password, the CA
	// and the utility key.
	ms := mounts(get(o, "spec", "template", "spec"), c)
	for file, secret := range map[string]string{e["STE_KAFKA_SASL_PASSWORD_FILE"]: "ste", e["STE_KAFKA_TLS_CA"]: "my-cluster-cluster-ca-cert"} {
		if file == "" || secretOf(ms, file) != secret {
			t.Errorf("%s: %s is not in secret %s (mounts %v)", nameOf(o), file, secret, ms)
		}
	}
	key := ""
	for _, a := range args {
		if strings.HasPrefix(a, "--utility-key=") {
			key = strings.TrimPrefix(a, "--utility-key=")
		}
	}
	if key == "" || secretOf(ms, key) != "ste-utility-key" {
		t.Errorf("%s: the utility key %q is not from secret ste-utility-key", nameOf(o), key)
	}
	if _, ok := e["STE_KAFKA_SASL_PASSWORD"]; ok {
		t.Errorf("%s: the SASL password is an environment value", nameOf(o))
	}
}

// The chart passes helm lint and renders, with its defaults, every kind a
// deployment needs, wired to each other.
func TestHelmChart(t *testing.T) {
	if err := helmLint(); err != nil {
		t.Fatal(err)
	}
	objs := render(t)
	var kinds []string
	for _, o := range objs {
		kinds = append(kinds, kindOf(o))
	}
	for _, want := range []string{"Deployment", "StatefulSet", "Service", "PodDisruptionBudget", "ServiceMonitor",
		"PrometheusRule", "ConfigMap", "ScaledObject", "TriggerAuthentication"} {
		if !slices.Contains(kinds, want) {
			t.Errorf("no %s rendered (kinds: %v)", want, kinds)
		}
	}
	validate, match := find(objs, "Deployment", "-validate"), find(objs, "StatefulSet", "-match")
	if validate == nil || match == nil {
		t.Fatalf("want a validate Deployment and an identity+match StatefulSet; kinds %v", kinds)
	}
	checkProcessPod(t, validate, "validate", 9100)
	checkProcessPod(t, match, "identity,match", 9100)
	if !slices.Contains(stringsOf(container(t, match)["args"]), "--no-create-topics") {
		t.Error("by default the topics are the operator's: --no-create-topics")
	}
	// The stateful pods keep $STE_HOME (their disk tables) on a volume of
	// their own; the validate pods, which hold no state, on an emptyDir.
	if str(match, "spec", "volumeClaimTemplates", 0, "metadata", "name") != "home" ||
		fmt.Sprint(get(match, "spec", "template", "spec", "volumes")) == fmt.Sprint(get(validate, "spec", "template", "spec", "volumes")) ||
		!strings.Contains(fmt.Sprint(get(validate, "spec", "template", "spec", "volumes")), "name:home") {
		t.Errorf("want $STE_HOME on a claim for the StatefulSet, an emptyDir for validate: %v / %v",
			get(match, "spec", "volumeClaimTemplates"), get(validate, "spec", "template", "spec", "volumes"))
	}
	if get(validate, "spec", "replicas") != nil {
		t.Error("with KEDA on, the validate Deployment must leave replicas to it")
	}
	if svc := find(objs, "Service", "-match"); svc == nil || str(match, "spec", "serviceName") != nameOf(svc) ||
		str(svc, "spec", "clusterIP") != "None" {
		t.Error("the StatefulSet's serviceName is not its headless service")
	}

	// PDBs select the two workloads.
	for _, pdb := range []string{"-validate", "-match"} {
		p := find(objs, "PodDisruptionBudget", pdb)
		w := validate
		if pdb == "-match" {
			w = match
		}
		if p == nil || fmt.Sprint(get(p, "spec", "selector")) != fmt.Sprint(get(w, "spec", "selector")) {
			t.Errorf("PodDisruptionBudget%s does not select its workload", pdb)
		}
	}
	// The ServiceMonitor scrapes /metrics on the metrics service's port.
	sm, metrics := find(objs, "ServiceMonitor", ""), find(objs, "Service", "-metrics")
	if sm == nil || metrics == nil || str(sm, "spec", "endpoints", 0, "port") != str(metrics, "spec", "ports", 0, "name") ||
		str(sm, "spec", "endpoints", 0, "path") != "/metrics" ||
		!labelsMatch(get(sm, "spec", "selector", "matchLabels"), get(metrics, "metadata", "labels")) {
		t.Errorf("the ServiceMonitor does not scrape the metrics service: %v / %v", sm, metrics)
	}
	// KEDA: the validate Deployment, on its group's lag on inbound, at
	// most one pod per partition, with the pods' credentials. The group and
	// topic are the ones topology names for the chart's namespace — one
	// other than the default, so that a name written out in the template
	// shows.
	names := topology.Names{NS: "prod-7"}
	so := find(render(t, "namespace="+names.NS), "ScaledObject", "-validate")
	trig := get(so, "spec", "triggers", 0)
	if str(so, "spec", "scaleTargetRef", "name") != nameOf(validate) || fmt.Sprint(get(so, "spec", "maxReplicaCount")) != "8" ||
		str(trig, "type") != "kafka" || str(trig, "metadata", "consumerGroup") != names.ValidateGroup() ||
		str(trig, "metadata", "topic") != names.Inbound() || str(trig, "metadata", "sasl") != "scram_sha512" {
		t.Errorf("ScaledObject %v, want group %s on %s", so, names.ValidateGroup(), names.Inbound())
	}
	ta := find(objs, "TriggerAuthentication", "")
	if ta == nil || str(trig, "authenticationRef", "name") != nameOf(ta) ||
		!strings.Contains(fmt.Sprint(get(ta, "spec", "secretTargetRef")), "name:ste parameter:password") {
		t.Errorf("TriggerAuthentication %v", ta)
	}

	// The alert rules and dashboards are deploy/monitoring's, unchanged.
	rules, _ := os.ReadFile("monitoring/prometheus/alerts.yaml")
	var want map[string]any
	yaml.Unmarshal(rules, &want)
	pr := find(objs, "PrometheusRule", "")
	if pr == nil || fmt.Sprint(get(pr, "spec", "groups")) != fmt.Sprint(want["groups"]) {
		t.Error("the PrometheusRule's groups are not alerts.yaml's")
	}
	dashboards, _ := filepath.Glob("monitoring/grafana/dashboards/*.json")
	for _, d := range dashboards {
		b, _ := os.ReadFile(d)
		cm := find(objs, "ConfigMap", "-dashboard-"+strings.TrimSuffix(filepath.Base(d), ".json"))
		if cm == nil || str(cm, "data", filepath.Base(d)) != strings.TrimRight(string(b), "\n") ||
			str(cm, "metadata", "labels", "grafana_dashboard") != "1" {
			t.Errorf("no dashboard ConfigMap with %s as it is", d)
		}
	}
}

func labelsMatch(selector, labels any) bool {
	sel, _ := selector.(map[string]any)
	lab, _ := labels.(map[string]any)
	for k, v := range sel {
		if lab[k] != v {
			return false
		}
	}
	return len(sel) > 0
}

// Other values render what they say: STE creating topics, mutual TLS,
// no KEDA, another port, analytics with its DSN from a secret.
func TestHelmChartValues(t *testing.T) {
	objs := render(t, "topics.create=true", "topics.replication=3", "kafka.tls.clientSecret.name=ste-client",
		"validate.keda.enabled=false", "validate.replicas=3", "http.port=9200", "analytics.enabled=true",
		"kafka.sasl.mechanism=PLAIN")
	validate := find(objs, "Deployment", "-validate")
	checkProcessPod(t, validate, "validate", 9200)
	c := container(t, validate)
	args := stringsOf(c["args"])
	if slices.Contains(args, "--no-create-topics") || !slices.Contains(args, "--replication=3") {
		t.Errorf("topics.create: args %v", args)
	}
	if fmt.Sprint(get(validate, "spec", "replicas")) != "3" || find(objs, "ScaledObject", "") != nil {
		t.Error("without KEDA the Deployment has its replicas and no ScaledObject is rendered")
	}
	e, ms := env(c), mounts(get(validate, "spec", "template", "spec"), c)
	if secretOf(ms, e["STE_KAFKA_TLS_CERT"]) != "ste-client" || secretOf(ms, e["STE_KAFKA_TLS_KEY"]) != "ste-client" {
		t.Errorf("client certificate not mounted from ste-client: %v %v", e, ms)
	}
	an := find(objs, "Deployment", "-analytics")
	if an == nil {
		t.Fatal("analytics.enabled renders no analytics Deployment")
	}
	ac := container(t, an)
	if err := checkCommandLine(stringsOf(ac["args"])); err != nil {
		t.Error(err)
	}
	if env(ac)["STE_CLICKHOUSE"] != "secret:ste-clickhouse/dsn" {
		t.Errorf("the ClickHouse DSN is not from its secret: %v", env(ac))
	}
	// KEDA's SASL names follow the mechanism.
	objs = render(t, "kafka.sasl.mechanism=PLAIN")
	if s := str(find(objs, "ScaledObject", ""), "spec", "triggers", 0, "metadata", "sasl"); s != "plaintext" {
		t.Errorf("KEDA sasl for PLAIN: %q", s)
	}
	// A wrong mechanism does not render.
	if out, err := helmTemplate("kafka.sasl.mechanism=GSSAPI"); err == nil {
		t.Errorf("an unknown SASL mechanism rendered:\n%s", firstLine(string(out)))
	}
}

// The Dockerfile's build of ste-chdb names the endpoint's binary where it
// is (chendpoint/cmd/ste-chdb), and every file it copies from the
// repository is there: a move of the endpoint's tree shows here, not in an
// image build that cannot run on this machine.
func TestDockerfilePathsExist(t *testing.T) {
	run := dockerfileRun(t, "build ste-chdb (loads libchdb.so at run time: no cgo needed to build it)")
	m := regexp.MustCompile(`-o /out/ste-chdb (\S+)$`).FindStringSubmatch(strings.TrimSpace(run))
	if m == nil {
		t.Fatalf("the build ste-chdb step does not build into /out/ste-chdb: %s", run)
	}
	list := exec.Command("go", "list", m[1])
	list.Dir = ".." // the Dockerfile's WORKDIR holds the repository
	if out, err := list.CombinedOutput(); err != nil || strings.TrimSpace(string(out)) != "github.com/ste-utility/ste/chendpoint/cmd/ste-chdb" {
		t.Fatalf("the build ste-chdb step builds %s: %v %s", m[1], err, out)
	}
	b, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 || f[0] != "COPY" || strings.HasPrefix(f[1], "--from=") {
			continue
		}
		for _, src := range f[1 : len(f)-1] {
			if _, err := os.Stat(filepath.Join("..", src)); err != nil {
				t.Errorf("Dockerfile: COPY %s: %v", src, err)
			}
		}
	}
}
