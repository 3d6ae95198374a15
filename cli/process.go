package cli

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/ste-utility/ste/instance"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topology"
	"github.com/ste-utility/ste/trust"
	"github.com/ste-utility/ste/when"
)

// ProcessFlags are the flags of the processors, shared by ste process and
// every command that runs them (ste replay --run): one list, so that any
// ste process flag works there too.
type ProcessFlags struct {
	groups, instanceID, bic, keyFile, httpAddr, tables, stallAfter, atRiskLead *string
	allegementDelay                                                            *string
	lookupAddr                                                                 *string
	retention                                                                  Retention
	noVerify, deliver, standby                                                 *bool
	Secret                                                                     func() (*trust.Secret, error)
}

func AddProcessFlags(fs *FlagSet, httpDefault string) *ProcessFlags {
	return &ProcessFlags{
		groups:          fs.String("groups", EnvOr("STE_GROUPS", "all"), "processor groups to run, comma-separated: validate, identity, match, or all ($STE_GROUPS)"),
		instanceID:      fs.String("instance-id", os.Getenv("STE_INSTANCE_ID"), "this instance's id ($STE_INSTANCE_ID); default: a stable id from a free slot under $STE_HOME"),
		retention:       AddRetention(fs, "72h", "event-time retention of trades past their newest Created (e.g. 72h, 3d)"),
		bic:             fs.String("utility-bic", EnvOr("STE_UTILITY_BIC", refdata.DefaultUtilityBIC), "the utility's own BIC ($STE_UTILITY_BIC)"),
		keyFile:         fs.String("utility-key", os.Getenv("STE_UTILITY_KEY"), "the utility's Ed25519 signing key file ($STE_UTILITY_KEY); default: the public demo key, with a warning"),
		httpAddr:        fs.String("http", EnvOr("STE_HTTP", httpDefault), "address of /healthz, /readyz, /metrics and /status ($STE_HTTP; \"\" turns it off; the address taken is in the log and the registry)"),
		lookupAddr:      fs.String("lookup", EnvOr("STE_LOOKUP", httpDefault), "address of the trade lookup (/trades), for the console and the gateway: its own listener, every request with the utility's lookup token ($STE_LOOKUP; \"\" turns it off; the address taken is in the log and the registry)"),
		noVerify:        fs.Bool("no-verify", false, "skip Ed25519 verification of inbound signatures (benchmarking only)"),
		deliver:         fs.Bool("deliver-per-participant", os.Getenv("STE_DELIVER_PER_PARTICIPANT") == "1", "also copy each record of <ns>.outbound to <ns>.out.<BIC> for its key ($STE_DELIVER_PER_PARTICIPANT=1)"),
		tables:          fs.String("tables", EnvOr("STE_TABLES", instance.TablesDisk), "where the identity and match tables live: disk (under the instance's directory in $STE_HOME, resumed from there after a restart) or memory (rebuilt from the changelogs at every start) ($STE_TABLES)"),
		standby:         fs.Bool("standby", os.Getenv("STE_STANDBY") != "0", "with disk tables, keep the identity and match partitions other instances own as hot standbys, following their changelogs, so that a lost instance's partitions are taken over without replaying them; costs each instance the whole tables' disk space and changelog reads ($STE_STANDBY=0 turns it off)"),
		Secret:          SecretFlag(fs),
		atRiskLead:      fs.String("at-risk-lead", EnvOr("STE_AT_RISK_LEAD", "2h"), "an unmatched trade counts in ste_trades_at_risk from this long before its market cutoff (markets.csv; $STE_AT_RISK_LEAD)"),
		stallAfter:      fs.String("stall-after", "60s", "/healthz turns unhealthy when a partition this instance owns is behind and makes no progress for this long (table recovery included)"),
		allegementDelay: fs.String("allegement-delay", EnvOr("STE_ALLEGEMENT_DELAY", "60s"), "quiet time (wall clock) after a trade's last message before its allegements (ALG) are sent; 0 sends them after every message ($STE_ALLEGEMENT_DELAY)"),
	}
}

// Check reads the flags that need no service; call it before connecting.
func (p *ProcessFlags) Check() (instance.Options, error) {
	var o instance.Options
	if *p.tables != instance.TablesMemory && *p.tables != instance.TablesDisk {
		return o, UsageError{Msg: "--tables: want memory or disk"}
	}
	stages, err := topology.ParseStages(*p.groups)
	if err != nil {
		return o, UsageError{Msg: "--groups: " + err.Error()}
	}
	if *p.instanceID != "" {
		if err := instance.ValidID(*p.instanceID); err != nil {
			return o, UsageError{Msg: "--instance-id: " + err.Error()}
		}
	}
	ret, err := p.retention.Get()
	if err != nil {
		return o, err
	}
	stall, err := when.Duration(*p.stallAfter)
	if err != nil || stall <= 0 {
		return o, UsageError{Msg: "--stall-after must be a positive duration (e.g. 60s, 5m)"}
	}
	lead, err := when.Duration(*p.atRiskLead)
	if err != nil || lead <= 0 {
		return o, UsageError{Msg: "--at-risk-lead must be a positive duration (e.g. 2h, 90m)"}
	}
	if !schemas.IsBIC(*p.bic) {
		return o, UsageError{Msg: fmt.Sprintf("--utility-bic %q is not a BIC", *p.bic)}
	}
	// The key file is read now, before any connection: a wrong path or a
	// file that holds no key is the one line the operator sees (Instance
	// reads it again, with the log line it gives).
	if *p.keyFile != "" {
		if _, err := schemas.LoadUtilityKey(*p.keyFile); err != nil {
			return o, err
		}
	}
	alg, err := when.Duration(*p.allegementDelay)
	if err != nil || alg < 0 {
		return o, UsageError{Msg: "--allegement-delay must be a duration of 0 or more (e.g. 60s, 5m; 0: after every message)"}
	}
	if alg == 0 {
		alg = instance.AllegeEveryMessage
	}
	return instance.Options{Stages: stages, Retention: ret, Verify: !*p.noVerify, HTTPAddr: *p.httpAddr, LookupAddr: *p.lookupAddr, Tables: *p.tables, Standby: *p.standby, StallAfter: stall,
		AtRiskLead: lead, DeliverPerParticipant: *p.deliver, AllegementDelay: alg}, nil
}

// Instance completes o with the signer and a claimed identity; release
// gives the identity back.
func (p *ProcessFlags) Instance(o instance.Options, log *slog.Logger) (_ instance.Options, release func(), err error) {
	if o.Signer, err = UtilitySigner(*p.bic, *p.keyFile, log); err != nil {
		return o, nil, err
	}
	if o.Secret, err = p.Secret(); err != nil {
		return o, nil, err
	}
	id, err := instance.Claim(Home(), *p.instanceID)
	if err != nil {
		return o, nil, err
	}
	o.Identity, o.Logger = id, log
	return o, id.Release, nil
}

// SecretFlag adds --utility-secret: the file of the utility's shared
// secret, which proves the control records its processes write and read
// (exceptions, exception states, registry entries, origin markers; trust).
// Every process of one utility must hold the same one. By default it is
// $STE_HOME/utility.secret, made by the first process that needs it (the
// processes of one machine share it); a file named explicitly must exist.
func SecretFlag(fs *FlagSet) func() (*trust.Secret, error) {
	path := fs.String("utility-secret", os.Getenv("STE_UTILITY_SECRET"),
		"file of the utility's shared secret, which proves its control records ($STE_UTILITY_SECRET; default $STE_HOME/"+trust.FileName+", created 0600 when missing)")
	return func() (*trust.Secret, error) {
		if *path == "" {
			return trust.LoadOrCreate(trust.DefaultPath(Home()))
		}
		return trust.LoadNamed(*path)
	}
}

// FileExists says whether path exists.
func FileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// Home is where embedded defaults live: $STE_HOME, else
// ~/.local/share/ste.
func Home() string {
	if h := os.Getenv("STE_HOME"); h != "" {
		return h
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ".ste"
	}
	return filepath.Join(home, ".local", "share", "ste")
}

// Namespace registers --namespace (default $STE_NAMESPACE, else ste), its
// name checked by Read.
func Namespace(fs *FlagSet) *string {
	ns := fs.String("namespace", EnvOr("STE_NAMESPACE", "ste"), "topic namespace ($STE_NAMESPACE)")
	fs.Check(func() error { return ValidNamespace(*ns) })
	return ns
}

// ValidNamespace is the namespace check of every flag naming one.
func ValidNamespace(ns string) error {
	if err := topology.ValidNamespace(ns); err != nil {
		return UsageError{Msg: "--" + err.Error()}
	}
	return nil
}

// UtilitySigner is the signing-key policy (refdata.UtilitySigner) behind
// the check of --utility-bic.
func UtilitySigner(bic, keyFile string, log *slog.Logger) (*schemas.Signer, error) {
	if !schemas.IsBIC(bic) {
		return nil, UsageError{Msg: fmt.Sprintf("--utility-bic %q is not a BIC", bic)}
	}
	return refdata.UtilitySigner(bic, keyFile, log)
}
