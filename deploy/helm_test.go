package deploy_test

import (
	"bytes"
	"fmt"
	"io"
	"log"
	"path"
	"strings"
	"sync"
	"testing"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/lint"
	"helm.sh/helm/v3/pkg/lint/support"
	"helm.sh/helm/v3/pkg/releaseutil"
	"helm.sh/helm/v3/pkg/strvals"
)

// The chart checks run helm's own packages (helm.sh/helm/v3, the release a
// cluster's helm 3 is built from) inside the test instead of a helm binary:
// building the helm command compiled ~600 packages (kubectl, cli-runtime,
// the OCI registry client, ...) that rendering and linting do not use, the
// largest part of a fresh machine's install (docs/benchmarks.md, "make
// test: where the time goes").
const chartDir = "helm/ste"

var quietLoader sync.Once

// helmTemplate is `helm template rel helm/ste --namespace trading --set S
// ...` without the binary, step by step as helm's install action does it
// on a client-only dry run: the chart loaded, each --set parsed by helm's
// strvals into the values, the values coalesced with the chart's and
// checked against its schema, the templates rendered by helm's engine
// (its fail and required are errors here), NOTES.txt left out, hooks and
// manifests sorted in install order and printed under "# Source:" lines.
func helmTemplate(set ...string) ([]byte, error) {
	// helm's loader logs every symbolic link it follows through the
	// standard logger; the chart's links to deploy/monitoring are on
	// purpose (the helm command prints the same lines).
	quietLoader.Do(func() { log.SetOutput(io.Discard) })
	ch, err := loader.Load(chartDir)
	if err != nil {
		return nil, err
	}
	vals := map[string]any{}
	for _, s := range set {
		if err := strvals.ParseInto(s, vals); err != nil {
			return nil, fmt.Errorf("--set %s: %w", s, err)
		}
	}
	rv, err := chartutil.ToRenderValues(ch, vals, chartutil.ReleaseOptions{
		Name: "rel", Namespace: "trading", Revision: 1, IsInstall: true,
	}, chartutil.DefaultCapabilities.Copy())
	if err != nil {
		return nil, err
	}
	files, err := engine.Render(ch, rv)
	if err != nil {
		return nil, err
	}
	for name := range files {
		if strings.HasSuffix(name, "NOTES.txt") {
			delete(files, name)
		}
	}
	hooks, manifests, err := releaseutil.SortManifests(files, nil, releaseutil.InstallOrder)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	for _, h := range hooks {
		fmt.Fprintf(&b, "---\n# Source: %s\n%s\n", h.Path, h.Manifest)
	}
	for _, m := range manifests {
		fmt.Fprintf(&b, "---\n# Source: %s\n%s\n", m.Name, m.Content)
	}
	return b.Bytes(), nil
}

// helmLint is `helm lint helm/ste --strict`: helm's chart linter (Chart.yaml,
// values and their schema, every template rendered and parsed, deprecated
// APIs) with its warnings counted as failures.
func helmLint() error {
	l := lint.All(chartDir, nil, "default", false)
	var problems []string
	for _, m := range l.Messages {
		if m.Severity >= support.WarningSev {
			problems = append(problems, m.Error())
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("helm lint %s: %s", chartDir, strings.Join(problems, "; "))
	}
	return nil
}

// The in-test helm is helm: it refuses what the helm command refuses (a
// --set it cannot parse, a template's fail) and prints every manifest
// under its source, without NOTES.txt.
func TestHelmTemplateIsHelms(t *testing.T) {
	out, err := helmTemplate()
	if err != nil {
		t.Fatal(err)
	}
	for _, tpl := range []string{"deployment-validate.yaml", "statefulset-match.yaml", "services.yaml"} {
		if !bytes.Contains(out, []byte("# Source: "+path.Join("ste/templates", tpl)+"\n")) {
			t.Errorf("no manifest from templates/%s in:\n%s", tpl, firstLine(string(out)))
		}
	}
	if bytes.Contains(out, []byte("NOTES.txt")) {
		t.Error("NOTES.txt rendered as a manifest")
	}
	if _, err := helmTemplate("kafka.brokers[x]=a"); err == nil {
		t.Error("an unparsable --set rendered")
	}
	if _, err := helmTemplate("kafka.sasl.mechanism=GSSAPI"); err == nil {
		t.Error("a value the chart refuses rendered")
	}
}
