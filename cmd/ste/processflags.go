package main

import (
	"log/slog"
	"os"

	"github.com/ste-utility/ste/instance"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topology"
	"github.com/ste-utility/ste/trust"
	"github.com/ste-utility/ste/when"
)

// processFlags are the flags of the processors, shared by ste process and
// every command that runs them (ste replay --run): one list, so that any
// ste process flag works there too.
type processFlags struct {
	groups, instanceID, bic, keyFile, httpAddr, tables, stallAfter, atRiskLead *string
	lookupAddr                                                                 *string
	retention                                                                  retentionFlag
	noVerify, deliver, standby                                                 *bool
	secret                                                                     func() (*trust.Secret, error)
}

func addProcessFlags(fs *flagSet, httpDefault string) *processFlags {
	return &processFlags{
		groups:     fs.String("groups", envOr("STE_GROUPS", "all"), "processor groups to run, comma-separated: validate, identity, match, or all ($STE_GROUPS)"),
		instanceID: fs.String("instance-id", os.Getenv("STE_INSTANCE_ID"), "this instance's id ($STE_INSTANCE_ID); default: a stable id from a free slot under $STE_HOME"),
		retention:  addRetentionFlag(fs, "72h", "event-time retention of trades past their newest Created (e.g. 72h, 3d)"),
		bic:        fs.String("utility-bic", envOr("STE_UTILITY_BIC", refdata.DefaultUtilityBIC), "the utility's own BIC ($STE_UTILITY_BIC)"),
		keyFile:    fs.String("utility-key", os.Getenv("STE_UTILITY_KEY"), "the utility's Ed25519 signing key file ($STE_UTILITY_KEY); default: the public demo key, with a warning"),
		httpAddr:   fs.String("http", envOr("STE_HTTP", httpDefault), "address of /healthz, /readyz, /metrics and /status ($STE_HTTP; \"\" turns it off; the address taken is in the log and the registry)"),
		lookupAddr: fs.String("lookup", envOr("STE_LOOKUP", httpDefault), "address of the trade lookup (/trades), for the console and the gateway: its own listener, every request with the utility's lookup token ($STE_LOOKUP; \"\" turns it off; the address taken is in the log and the registry)"),
		noVerify:   fs.Bool("no-verify", false, "skip Ed25519 verification of inbound signatures (benchmarking only)"),
		deliver:    fs.Bool("deliver-per-participant", os.Getenv("STE_DELIVER_PER_PARTICIPANT") == "1", "also copy each record of <ns>.outbound to <ns>.out.<BIC> for its key ($STE_DELIVER_PER_PARTICIPANT=1)"),
		tables:     fs.String("tables", envOr("STE_TABLES", instance.TablesDisk), "where the identity and match tables live: disk (under the instance's directory in $STE_HOME, resumed from there after a restart) or memory (rebuilt from the changelogs at every start) ($STE_TABLES)"),
		standby:    fs.Bool("standby", os.Getenv("STE_STANDBY") != "0", "with disk tables, keep the identity and match partitions other instances own as hot standbys, following their changelogs, so that a lost instance's partitions are taken over without replaying them; costs each instance the whole tables' disk space and changelog reads ($STE_STANDBY=0 turns it off)"),
		secret:     secretFlag(fs),
		atRiskLead: fs.String("at-risk-lead", envOr("STE_AT_RISK_LEAD", "2h"), "an unmatched trade counts in ste_trades_at_risk from this long before its market cutoff (markets.csv; $STE_AT_RISK_LEAD)"),
		stallAfter: fs.String("stall-after", "60s", "/healthz turns unhealthy when a partition this instance owns is behind and makes no progress for this long (table recovery included)"),
	}
}

// check reads the flags that need no service; call it before connecting.
func (p *processFlags) check() (instance.Options, error) {
	var o instance.Options
	if *p.tables != instance.TablesMemory && *p.tables != instance.TablesDisk {
		return o, usageError{Msg: "--tables: want memory or disk"}
	}
	stages, err := topology.ParseStages(*p.groups)
	if err != nil {
		return o, usageError{Msg: "--groups: " + err.Error()}
	}
	if *p.instanceID != "" {
		if err := instance.ValidID(*p.instanceID); err != nil {
			return o, usageError{Msg: "--instance-id: " + err.Error()}
		}
	}
	ret, err := p.retention.Get()
	if err != nil {
		return o, err
	}
	stall, err := when.Duration(*p.stallAfter)
	if err != nil || stall <= 0 {
		return o, usageError{Msg: "--stall-after must be a positive duration (e.g. 60s, 5m)"}
	}
	lead, err := when.Duration(*p.atRiskLead)
	if err != nil || lead <= 0 {
		return o, usageError{Msg: "--at-risk-lead must be a positive duration (e.g. 2h, 90m)"}
	}
	return instance.Options{Stages: stages, Retention: ret, Verify: !*p.noVerify, HTTPAddr: *p.httpAddr, LookupAddr: *p.lookupAddr, Tables: *p.tables, Standby: *p.standby, StallAfter: stall,
		AtRiskLead: lead}, nil
}

// instance completes o with the signer and a claimed identity; release
// gives the identity back.
func (p *processFlags) instance(o instance.Options, log *slog.Logger) (_ instance.Options, release func(), err error) {
	if o.Signer, err = utilitySigner(*p.bic, *p.keyFile, log); err != nil {
		return o, nil, err
	}
	if o.Secret, err = p.secret(); err != nil {
		return o, nil, err
	}
	id, err := instance.Claim(steHome(), *p.instanceID)
	if err != nil {
		return o, nil, err
	}
	o.Identity, o.Logger = id, log
	return o, id.Release, nil
}
