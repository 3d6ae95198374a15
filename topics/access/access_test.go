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
		n.Inbound():                    {RoleProcessors, RoleConsole, RoleGateway, RoleFIXGateway, RoleParticipant},
		n.AdaptersOrigin():             {RoleFIXGateway},
		n.AdaptersJournal():            {RoleFIXGateway},
		n.Outbound():                   {RoleProcessors},
		n.CLS():                        {RoleProcessors},
		n.Exceptions():                 {RoleProcessors},
		n.Audit():                      {RoleProcessors},
		"ste.out.BRKASGSGXXX":          {RoleProcessors},
		n.ExceptionStates():            {RoleConsole},
		n.Nonces():                     {RoleGateway},
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
