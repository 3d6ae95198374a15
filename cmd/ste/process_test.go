package main

import (
	"crypto/ed25519"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ste-utility/ste/instance"
	"github.com/ste-utility/ste/kafkaconn/testca"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/trust"
)

// processFlagCase is what one flag of ste process must do: args set it
// (with the flags it needs beside it) to a value other than its default,
// and the options built then differ from those of base (nil: no flag) in
// exactly the fields named — no more, no less.
type processFlagCase struct {
	args, base []string
	fields     []string
	check      func(o instance.Options) bool // optional: the value itself
}

// TestProcessFlagsReachOptions holds every flag `ste process --help` lists
// to the options it names: set alone, each one changes the instance options
// the command builds (before it connects) in its own field and nowhere
// else, and so does the environment variable its help names, given
// instead of the flag. A flag that is parsed and dropped — as
// --deliver-per-participant once was (issue 51) — fails here, and so does
// a new flag without a row in the table.
func TestProcessFlagsReachOptions(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("STE_HOME", filepath.Join(dir, "home"))
	ca, err := testca.Write(filepath.Join(dir, "ca"), "flags")
	if err != nil {
		t.Fatal(err)
	}
	pw := filepath.Join(dir, "password")
	keyFile := filepath.Join(dir, "utility.key")
	_, key, _ := ed25519.GenerateKey(nil)
	pem, err := schemas.EncodePrivateKeyPEM(key)
	if err != nil {
		t.Fatal(err)
	}
	secretFile := filepath.Join(dir, "other.secret")
	for _, err := range []error{os.WriteFile(pw, []byte("pw-1\n"), 0o600), os.WriteFile(keyFile, pem, 0o600)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, err := trust.LoadOrCreate(secretFile); err != nil {
		t.Fatal(err)
	}
	sasl := func(user string) []string {
		return []string{"--sasl-mechanism", "SCRAM-SHA-512", "--sasl-username", user, "--sasl-password-file", pw}
	}
	kafka := []string{"Kafka"}
	cases := map[string]processFlagCase{
		"brokers":                 {args: []string{"--brokers", "10.1.2.3:9093"}, fields: kafka},
		"tls":                     {args: []string{"--tls"}, fields: kafka},
		"tls-ca":                  {args: []string{"--tls-ca", ca.CA}, fields: kafka},
		"tls-cert":                {args: []string{"--tls-cert", ca.ClientCert, "--tls-key", ca.ClientKey}, fields: kafka},
		"tls-key":                 {args: []string{"--tls-cert", ca.ClientCert, "--tls-key", ca.ClientKey}, fields: kafka},
		"tls-server-name":         {args: []string{"--tls-server-name", "kafka.example"}, fields: kafka},
		"sasl-mechanism":          {args: sasl("u1"), fields: kafka},
		"sasl-username":           {args: sasl("u2"), base: sasl("u1"), fields: kafka},
		"sasl-password-file":      {args: sasl("u1"), fields: kafka},
		"namespace":               {args: []string{"--namespace", "other"}, fields: []string{"Namespace"}},
		"replication":             {args: []string{"--replication", "3"}, fields: []string{"Topics"}},
		"min-insync":              {args: []string{"--replication", "3", "--min-insync", "3"}, base: []string{"--replication", "3"}, fields: []string{"Topics"}},
		"no-create-topics":        {args: []string{"--no-create-topics"}, fields: []string{"Topics"}},
		"refdata":                 {args: []string{"--refdata", dir}, fields: []string{"RefdataDir"}},
		"groups":                  {args: []string{"--groups", "validate"}, fields: []string{"Stages"}},
		"instance-id":             {args: []string{"--instance-id", "flags-test-1"}, fields: []string{"Identity"}},
		"retention":               {args: []string{"--retention", "5d"}, fields: []string{"Retention"}},
		"allow-short-retention":   {args: []string{"--retention", "30m", "--allow-short-retention"}, fields: []string{"Retention"}},
		"utility-bic":             {args: []string{"--utility-bic", "OTHRSGSGXXX"}, fields: []string{"Signer"}},
		"utility-key":             {args: []string{"--utility-key", keyFile}, fields: []string{"Signer"}, check: func(o instance.Options) bool { return o.Signer.Key.Equal(key) }},
		"http":                    {args: []string{"--http", "127.0.0.1:9999"}, fields: []string{"HTTPAddr"}},
		"lookup":                  {args: []string{"--lookup", "127.0.0.1:9998"}, fields: []string{"LookupAddr"}},
		"no-verify":               {args: []string{"--no-verify"}, fields: []string{"Verify"}},
		"deliver-per-participant": {args: []string{"--deliver-per-participant"}, fields: []string{"DeliverPerParticipant"}, check: func(o instance.Options) bool { return o.DeliverPerParticipant }},
		"tables":                  {args: []string{"--tables", "memory"}, fields: []string{"Tables"}},
		"standby":                 {args: []string{"--standby=false"}, fields: []string{"Standby"}},
		"utility-secret":          {args: []string{"--utility-secret", secretFile}, fields: []string{"Secret"}},
		"at-risk-lead":            {args: []string{"--at-risk-lead", "3h"}, fields: []string{"AtRiskLead"}, check: func(o instance.Options) bool { return o.AtRiskLead == 3*time.Hour }},
		"allegement-delay":        {args: []string{"--allegement-delay", "5m"}, fields: []string{"AllegementDelay"}, check: func(o instance.Options) bool { return o.AllegementDelay == 5*time.Minute }},
		"stall-after":             {args: []string{"--stall-after", "2m"}, fields: []string{"StallAfter"}},
		"log-format":              {args: []string{"--log-format", "json"}, fields: []string{"Logger"}},
		"log-level":               {args: []string{"--log-level", "debug"}, fields: []string{"Logger"}},
	}

	// The flags and the variables their help names, cleared so that the
	// machine's environment (STE_BROKERS, …) changes no default.
	envOf := map[string]string{}    // flag → variable
	envValue := map[string]string{} // flag → the value its help gives the variable ("=1")
	envRe := regexp.MustCompile(`\(\$(STE_[A-Z_]+)(=(\S+?))?[;) ]`)
	var listed []string
	newProcessCmd().fs.VisitAll(func(f *flag.Flag) {
		listed = append(listed, f.Name)
		if m := envRe.FindStringSubmatch(f.Usage); m != nil {
			envOf[f.Name], envValue[f.Name] = m[1], m[3]
		}
	})
	for _, v := range envOf {
		t.Setenv(v, "")
	}
	t.Setenv("STE_KAFKA_SASL_PASSWORD", "")
	if len(envOf) < 10 {
		t.Fatalf("only %d flags name an environment variable: is the pattern still right? %v", len(envOf), envOf)
	}

	build := func(t *testing.T, args []string) instance.Options {
		t.Helper()
		c := newProcessCmd()
		if err := c.fs.Read(args); err != nil {
			t.Fatalf("ste process %s: %v", strings.Join(args, " "), err)
		}
		o, err := c.options()
		if err != nil {
			t.Fatalf("ste process %s: %v", strings.Join(args, " "), err)
		}
		o, release, err := c.instance(o)
		if err != nil {
			t.Fatalf("ste process %s: %v", strings.Join(args, " "), err)
		}
		release()
		// The identity is its id, directory and slot (not its lock file).
		o.Identity = &instance.Identity{ID: o.Identity.ID, Dir: o.Identity.Dir, Slot: o.Identity.Slot}
		return o
	}
	changed := func(a, b instance.Options) []string {
		var out []string
		va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
		for i := 0; i < va.NumField(); i++ {
			if !reflect.DeepEqual(va.Field(i).Interface(), vb.Field(i).Interface()) {
				out = append(out, va.Type().Field(i).Name)
			}
		}
		return out
	}
	// The comparison itself: two builds of the same command line are equal.
	if d := changed(build(t, nil), build(t, nil)); len(d) > 0 {
		t.Fatalf("two builds without flags differ in %v", d)
	}

	for _, name := range listed {
		c, ok := cases[name]
		if !ok {
			t.Errorf("--%s has no row in this test: say which option it sets", name)
			continue
		}
		t.Run(name, func(t *testing.T) {
			if !slices.Contains(c.args, "--"+name) && !slices.ContainsFunc(c.args, func(a string) bool { return strings.HasPrefix(a, "--"+name+"=") }) {
				t.Fatalf("the row of --%s does not set it: %v", name, c.args)
			}
			base := build(t, c.base)
			got := build(t, c.args)
			if d := changed(base, got); !slices.Equal(d, c.fields) {
				t.Errorf("ste process %s changes %v of the options, want %v", strings.Join(c.args, " "), d, c.fields)
			}
			if c.check != nil && !c.check(got) {
				t.Errorf("ste process %s: the option is not the value given", strings.Join(c.args, " "))
			}
			env, ok := envOf[name]
			if !ok {
				return
			}
			// The same through its variable: the flag's value (or the one
			// its help gives) in the environment, the other flags as they are.
			value, rest := envValue[name], []string{}
			for i := 0; i < len(c.args); i++ {
				a := c.args[i]
				switch {
				case a == "--"+name && (i+1 == len(c.args) || strings.HasPrefix(c.args[i+1], "--")):
					if value == "" {
						value = "true"
					}
				case a == "--"+name:
					if value == "" {
						value = c.args[i+1]
					}
					i++
				case strings.HasPrefix(a, "--"+name+"="):
					if value == "" {
						value = strings.TrimPrefix(a, "--"+name+"=")
					}
				default:
					rest = append(rest, a)
				}
			}
			t.Setenv(env, value)
			got = build(t, rest)
			if d := changed(base, got); !slices.Equal(d, c.fields) {
				t.Errorf("%s=%s with %v changes %v of the options, want %v", env, value, rest, d, c.fields)
			}
			if c.check != nil && !c.check(got) {
				t.Errorf("%s=%s: the option is not the value given", env, value)
			}
		})
	}
	for name := range cases {
		if !slices.Contains(listed, name) {
			t.Errorf("the table has a row for --%s, which ste process no longer has", name)
		}
	}
}

// TestProcessKeyBeforeCluster: a bad --utility-key is the one line ste
// process prints, before it tries the cluster (issue 51: it was checked
// only once connected, so an unreachable cluster hid it).
func TestProcessKeyBeforeCluster(t *testing.T) {
	t.Setenv("STE_HOME", t.TempDir())
	var stdout, stderr strings.Builder
	start := time.Now()
	code := run([]string{"process", "--brokers", "127.0.0.1:1", "--utility-key", filepath.Join(t.TempDir(), "missing.key")}, &stdout, &stderr)
	if code == 0 || !strings.Contains(stderr.String(), "utility key") && !strings.Contains(stderr.String(), "no file at the path given") {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if lines := strings.Split(strings.TrimSpace(stderr.String()), "\n"); len(lines) != 1 {
		t.Errorf("want one line, got:\n%s", stderr.String())
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the key was refused after %v: was the cluster tried first?", d)
	}
}
