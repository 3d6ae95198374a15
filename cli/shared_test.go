package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ste-utility/ste/exceptions"
	"github.com/ste-utility/ste/instance"
	"github.com/ste-utility/ste/testgate"
	"github.com/ste-utility/ste/trust"
)

// usageErr says whether err is a UsageError whose message starts with want.
func usageErr(err error, want string) bool {
	var u UsageError
	return errors.As(err, &u) && strings.HasPrefix(u.Msg, want)
}

// Namespace: the flag's name is checked by Read, so that no command
// forgets the check.
func TestNamespaceChecked(t *testing.T) {
	t.Setenv("STE_NAMESPACE", "")
	fs := Flags("x", "")
	Namespace(fs)
	if err := fs.Read([]string{"--namespace", "Bad NS!"}); !usageErr(err, "--") {
		t.Errorf("bad namespace: %v", err)
	}
	fs = Flags("x", "")
	ns := Namespace(fs)
	if err := fs.Read(nil); err != nil || *ns != "ste" {
		t.Errorf("default namespace: %q %v", *ns, err)
	}
	if err := ValidNamespace("sandbox1"); err != nil {
		t.Errorf("ValidNamespace(sandbox1) = %v", err)
	}
}

func TestHome(t *testing.T) {
	t.Setenv("STE_HOME", "/srv/ste")
	if h := Home(); h != "/srv/ste" {
		t.Errorf("Home() = %q with $STE_HOME", h)
	}
	t.Setenv("STE_HOME", "")
	t.Setenv("HOME", "/home/op")
	if h := Home(); h != "/home/op/.local/share/ste" {
		t.Errorf("Home() = %q without $STE_HOME", h)
	}
}

// SecretFlag: by default $STE_HOME's secret, made when missing; a file
// named explicitly must exist.
func TestSecretFlag(t *testing.T) {
	home := t.TempDir()
	t.Setenv("STE_HOME", home)
	t.Setenv("STE_UTILITY_SECRET", "")
	fs := Flags("x", "")
	secret := SecretFlag(fs)
	if err := fs.Read(nil); err != nil {
		t.Fatal(err)
	}
	if _, err := secret(); err != nil || !FileExists(trust.DefaultPath(home)) {
		t.Errorf("default secret: %v, file made: %v", err, FileExists(trust.DefaultPath(home)))
	}
	fs = Flags("x", "")
	secret = SecretFlag(fs)
	if err := fs.Read([]string{"--utility-secret", filepath.Join(home, "missing")}); err != nil {
		t.Fatal(err)
	}
	if _, err := secret(); err == nil {
		t.Error("a missing named secret file was accepted")
	}
}

// ProcessFlags.Check: each flag's bad value is a usage error naming it;
// the defaults make the options of ste process.
func TestProcessFlagsCheck(t *testing.T) {
	for _, env := range []string{"STE_GROUPS", "STE_TABLES", "STE_AT_RISK_LEAD", "STE_INSTANCE_ID", "STE_ALLEGEMENT_DELAY"} {
		t.Setenv(env, "")
	}
	check := func(args ...string) error {
		fs := Flags("process", "")
		p := AddProcessFlags(fs, "")
		if err := fs.Read(args); err != nil {
			return err
		}
		_, err := p.Check()
		return err
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--tables", "ram"}, "--tables"},
		{[]string{"--groups", "nope"}, "--groups"},
		{[]string{"--stall-after", "0s"}, "--stall-after"},
		{[]string{"--at-risk-lead", "soon"}, "--at-risk-lead"},
		{[]string{"--retention", "1m"}, "--retention"},
		{[]string{"--instance-id", "a/b"}, "--instance-id"},
		{[]string{"--allegement-delay", "-1s"}, "--allegement-delay"},
		{[]string{"--allegement-delay", "later"}, "--allegement-delay"},
	} {
		if err := check(c.args...); !usageErr(err, c.want) {
			t.Errorf("%v: %v, want a usage error on %s", c.args, err, c.want)
		}
	}
	fs := Flags("process", "")
	p := AddProcessFlags(fs, "")
	if err := fs.Read([]string{"--no-verify"}); err != nil {
		t.Fatal(err)
	}
	o, err := p.Check()
	if err != nil || o.Retention != 72*time.Hour || o.Verify || len(o.Stages) == 0 || o.AtRiskLead != 2*time.Hour ||
		o.AllegementDelay != time.Minute {
		t.Errorf("defaults: %+v %v", o, err)
	}
	// --allegement-delay 0 is after every message.
	fs = Flags("process", "")
	p = AddProcessFlags(fs, "")
	if err := fs.Read([]string{"--allegement-delay", "0"}); err != nil {
		t.Fatal(err)
	}
	if o, err := p.Check(); err != nil || o.AllegementDelay != instance.AllegeEveryMessage {
		t.Errorf("--allegement-delay 0: %v %v", o.AllegementDelay, err)
	}
}

// ExcFlags: a bad filter is a usage error; a change selects open
// exceptions by default and refuses to run on no selection at all,
// before it connects.
func TestExcFlags(t *testing.T) {
	f := NewExcFlags("exceptions list", ExcFilterSynopsis, false)
	if _, _, err := f.Parse([]string{"--state", "bogus"}); !usageErr(err, `--state "bogus"`) {
		t.Errorf("bad state: %v", err)
	}
	f = NewExcFlags("exceptions list", ExcFilterSynopsis, false)
	if _, _, err := f.Parse([]string{"--since", "yesterday-ish"}); !usageErr(err, "--") {
		t.Errorf("bad since: %v", err)
	}
	f = NewExcFlags("exceptions retry", ExcFilterSynopsis, true)
	ids, flt, err := f.Parse([]string{"--reason", "UNKNOWN_SECURITY"})
	if err != nil || len(ids) != 0 || len(flt.States) != 1 || flt.States[0] != exceptions.Open {
		t.Errorf("retry by filter: %v %+v %v", ids, flt, err)
	}
	f = NewExcFlags("exceptions retry", ExcFilterSynopsis, true)
	f.Wait = new(time.Duration)
	if err := f.Change(context.Background(), nil, true); !usageErr(err, "name exception ids") {
		t.Errorf("retry of nothing: %v", err)
	}
}

func TestUsageListsCommands(t *testing.T) {
	var b bytes.Buffer
	Usage(&b, []Command{{Name: "topics create", Summary: "create every topic"}})
	for _, want := range []string{"usage: ste <command>", "  topics create    create every topic\n", "STE_BROKERS", "STE_PPROF"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("usage lacks %q:\n%s", want, b.String())
		}
	}
}

func TestClickHouseDefault(t *testing.T) {
	t.Setenv("STE_CLICKHOUSE", "http://ch:8123")
	fs := Flags("x", "")
	dsn := ClickHouse(fs)
	if err := fs.Read(nil); err != nil || *dsn != "http://ch:8123" {
		t.Errorf("--clickhouse default %q %v", *dsn, err)
	}
}

// Progress is drawn on a terminal only.
func TestProgressOffTerminal(t *testing.T) {
	if IsTerminal(os.Stderr) {
		testgate.Need(t, "stderr off a terminal (run it with 2>file)", errors.New("stderr is a terminal"))
	}
	if SendProgress() != nil || LagProgress() != nil {
		t.Error("progress drawn to a non-terminal")
	}
}
