package access

import (
	"testing"

	"github.com/ste-utility/ste/topology"
)

func TestParticipantReadsOnlyItsOwnTopic(t *testing.T) {
	n := topology.Names{NS: "ste"}
	a := Participant("ste", "BRKASGSG")
	for _, tc := range []struct {
		op   Operation
		typ  ResourceType
		name string
		want bool
	}{
		{Read, Topic, "ste.out.BRKASGSG", true},
		{Read, Group, "ste.out.BRKASGSG.confirmations", true},
		{Write, Topic, n.Inbound(), true},
		{Read, Topic, "ste.out.BRKASGSGXXX", false}, // the 11-character BIC that begins with it
		{Read, Group, "ste.out.BRKASGSGXXX.x", false},
		{Read, Topic, n.Outbound(), false},
		{Read, Topic, n.Inbound(), false},
		{Write, Topic, "ste.out.BRKASGSG", false},
		{Write, Topic, n.Refdata(), false},
		{Read, Topic, n.CLS(), false},
		{Read, Topic, n.Exceptions(), false},
		{Read, Topic, "other.out.BRKASGSG", false},
		{Create, Topic, "ste.out.BRKASGSG", false},
	} {
		if got := a.Allows(tc.op, tc.typ, tc.name); got != tc.want {
			t.Errorf("%s %s %s = %v, want %v", tc.op, tc.typ, tc.name, got, tc.want)
		}
	}
}

// Only the operator writes reference data; only participants, the console
// (a retry) and the gateway (a submission) write inbound; only the
// processors write the outputs and the participants' topics.
func TestUtilityPrincipalsWriteWhatTheyOwn(t *testing.T) {
	n := topology.Names{NS: "ste"}
	ps := Principals("ste", []string{"BRKASGSGXXX"})
	writers := func(topic string) []Role {
		var out []Role
		for _, p := range ps {
			if p.Allows(Write, Topic, topic) {
				out = append(out, p.Role)
			}
		}
		return out
	}
	for topic, want := range map[string][]Role{
		n.Refdata():                    {RoleOperator},
		n.Inbound():                    {RoleProcessors, RoleConsole, RoleGateway, RoleFIXGateway, RoleISO20022, RoleParticipant},
		n.AdaptersOrigin():             {RoleFIXGateway, RoleISO20022},
		n.AdaptersJournal():            {RoleFIXGateway, RoleISO20022},
		n.ISO20022Outbound():           {RoleISO20022},
		n.Outbound():                   {RoleProcessors},
		n.CLS():                        {RoleProcessors},
		n.Exceptions():                 {RoleProcessors},
		n.Audit():                      {RoleProcessors},
		"ste.out.BRKASGSGXXX":          {RoleProcessors},
		n.ExceptionStates():            {RoleConsole},
		n.Nonces():                     {RoleGateway, RoleISO20022},
		n.Verdicts():                   {RoleProcessors},
		topology.Table(n.MatchGroup()): {RoleProcessors},
	} {
		got := writers(topic)
		if len(got) != len(want) {
			t.Errorf("%s written by %v, want %v", topic, got, want)
			continue
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%s written by %v, want %v", topic, got, want)
			}
		}
	}
	if ps[0].Allows(Create, Topic, n.Inbound()) || !ps[0].Allows(Create, Topic, "ste.out.NEWBSGSGXXX") {
		t.Error("the processors create the participants' topics and nothing else")
	}
}

// ste iso20022 reads what it translates and serves and writes what it
// publishes, in its own consumer group; nothing of the pipeline's tables,
// the registry, the participants' topics or the other groups.
func TestISO20022PrincipalKeepsToItsTopics(t *testing.T) {
	n := topology.Names{NS: "ste"}
	p := ISO20022("ste")
	if p.User != "ste-iso20022" || p.Role != RoleISO20022 {
		t.Fatalf("principal %s %s", p.User, p.Role)
	}
	for _, tc := range []struct {
		op   Operation
		typ  ResourceType
		name string
		want bool
	}{
		{Write, Topic, n.Inbound(), true},
		{Write, Topic, n.AdaptersOrigin(), true},
		{Read, Topic, n.AdaptersJournal(), true},
		{Write, Topic, n.AdaptersJournal(), true},
		{Read, Topic, n.Nonces(), true},
		{Write, Topic, n.Nonces(), true},
		{Read, Topic, n.Outbound(), true},
		{Read, Group, n.ISO20022Group(), true},
		{Write, Topic, n.ISO20022Outbound(), true},
		{Read, Topic, n.ISO20022Outbound(), true},
		{Read, Topic, n.Refdata(), true},
		{Write, Topic, n.Refdata(), false},
		{Write, Topic, n.Outbound(), false},
		{Read, Topic, n.Inbound(), false},
		{Read, Topic, n.Instances(), false},
		{Read, Topic, n.CLS(), false},
		{Read, Topic, topology.Table(n.MatchGroup()), false},
		{Read, Topic, "ste.out.BRKASGSGXXX", false},
		{Read, Group, n.DeliveryGroup(), false},
		{Read, Group, n.MatchGroup(), false},
		{Create, Topic, n.ISO20022Outbound(), false},
		{Write, Topic, "other.inbound", false},
	} {
		if got := p.Allows(tc.op, tc.typ, tc.name); got != tc.want {
			t.Errorf("%s %s %s = %v, want %v", tc.op, tc.typ, tc.name, got, tc.want)
		}
	}
	found := false
	for _, q := range Principals("ste", nil) {
		found = found || q.Role == RoleISO20022
	}
	if !found {
		t.Error("Principals lacks ste iso20022's")
	}
}
