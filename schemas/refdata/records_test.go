package refdata

import (
	"crypto/ed25519"
	"strings"
	"testing"
)

func TestRecordsRoundTrip(t *testing.T) {
	s := Default()
	recs := s.Records()
	n := len(s.Currencies()) + len(s.Countries()) + len(s.Securities()) + len(s.Participants()) + len(s.Holidays()) + len(s.Tolerances()) + len(s.Cutoffs())
	if len(recs) != n {
		t.Fatalf("%d records for %d rows", len(recs), n)
	}
	back := NewSet()
	for _, r := range recs {
		if err := back.Apply(r.Key, r.Value); err != nil {
			t.Fatalf("%s: %v", r.Key, err)
		}
	}
	assertEqualSets(t, s, back)
}

func TestRecordFormat(t *testing.T) {
	s := NewSet()
	s.PutCurrency(Currency{"SGD", 2})
	s.PutCountry(Country{"KR", `Korea, "Republic" of`})
	s.PutSecurity(Security{"SG1L01001701", "DBS Group Holdings Ltd", "SGD", "SG", Active})
	s.PutParticipant(Participant{BIC: "BRKASGSGXXX", Name: "Broker A & Co", Roles: RoleBroker | RoleCustodian, Country: "SG", Status: Suspended, Keys: []ed25519.PublicKey{DemoPublicKey("BRKASGSGXXX")}})
	s.PutParticipant(Participant{BIC: "BRKBSGSGXXX", Name: "B", Roles: RoleBroker, Country: "SG", Status: Active,
		Keys: []ed25519.PublicKey{DemoPublicKey("BRKASGSGXXX")}, Signers: []string{FIXSignerBIC, "SIGNSGSG"}})
	s.PutParticipant(Participant{BIC: "BRKCSGSGXXX", Name: "C", Roles: RoleBroker, Country: "SG", Status: Active,
		Keys: []ed25519.PublicKey{DemoPublicKey("BRKASGSGXXX")}, KeepSigners: true})
	s.PutParticipant(Participant{BIC: FIXSignerBIC, Name: "FIX", Roles: RoleSigner, Country: "SG", Status: Active,
		Keys: []ed25519.PublicKey{DemoPublicKey("BRKASGSGXXX")}})
	s.PutAffirmation(Affirmation{"INVMSGSGXXX", AffirmAuto})
	s.PutHoliday("SG", mustDate("2026-12-25"))
	var got []string
	for _, r := range s.Records() {
		got = append(got, string(r.Key)+" "+string(r.Value))
	}
	want := []string{
		`currency:SGD {"code":"SGD","minor_units":2}`,
		`country:KR {"code":"KR","name":"Korea, \"Republic\" of"}`,
		`security:SG1L01001701 {"isin":"SG1L01001701","name":"DBS Group Holdings Ltd","currency":"SGD","country":"SG","status":"ACTIVE"}`,
		`participant:BRKASGSGXXX {"bic":"BRKASGSGXXX","name":"Broker A \u0026 Co","roles":"BROKER;CUSTODIAN","country":"SG","status":"SUSPENDED","public_key":"` + keyA + `","signers":""}`,
		`participant:BRKBSGSGXXX {"bic":"BRKBSGSGXXX","name":"B","roles":"BROKER","country":"SG","status":"ACTIVE","public_key":"` + keyA + `","signers":"STEUTLSGFIX;SIGNSGSG"}`,
		`participant:BRKCSGSGXXX {"bic":"BRKCSGSGXXX","name":"C","roles":"BROKER","country":"SG","status":"ACTIVE","public_key":"` + keyA + `"}`,
		`participant:STEUTLSGFIX {"bic":"STEUTLSGFIX","name":"FIX","roles":"SIGNER","country":"SG","status":"ACTIVE","public_key":"` + keyA + `","signers":""}`,
		`holiday:SG:2026-12-25 {"country":"SG","date":"2026-12-25"}`,
		`affirmation:INVMSGSGXXX {"invmgr":"INVMSGSGXXX","mode":"AUTO"}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestApplyUpserts(t *testing.T) {
	s := NewSet()
	must := func(k, v string) {
		t.Helper()
		if err := s.Apply([]byte(k), []byte(v)); err != nil {
			t.Fatal(err)
		}
	}
	must("security:SG1L01001701", `{"isin":"SG1L01001701","name":"DBS","currency":"SGD","country":"SG","status":"ACTIVE"}`)
	must("security:SG1L01001701", `{"status":"SUSPENDED","isin":"SG1L01001701","name":"DBS","currency":"SGD","country":"SG","extra":true}`)
	if x, _ := s.Security("SG1L01001701"); x.Status != Suspended {
		t.Errorf("upsert lost: %+v", x)
	}
	must("currency:JPY", `{"code":"JPY","minor_units":"0"}`) // a number given as a string is fine
	if c, ok := s.Currency("JPY"); !ok || c.MinorUnits != 0 {
		t.Errorf("JPY %+v", c)
	}
}

func TestApplyErrors(t *testing.T) {
	tests := []struct{ key, value, want string }{
		{"bond:X", `{}`, `refdata record "bond:X": unknown kind "bond"`},
		{"currency", `{}`, `refdata record "currency": unknown kind "currency"`},
		{"currency:SGD", ``, `refdata record "currency:SGD": empty value`},
		{"currency:SGD", `[1]`, `refdata record "currency:SGD": value is not a JSON object`},
		{"currency:SGD", `{"code":"SGD"}`, `refdata record "currency:SGD": column "minor_units": missing`},
		{"currency:SGD", `{"code":"SGD","minor_units":2.5}`, `column "minor_units": bad minor_units "2.5"`},
		{"currency:SGD", `{"code":"SGD","minor_units":null}`, `column "minor_units": not a string or a number`},
		{"currency:SGD", `{"code":"JPY","minor_units":0}`, `refdata record "currency:SGD": value is for currency:JPY, not for its key`},
		{"security:SG1L01001701", `{"isin":"SG1L01001701","name":"DBS","currency":"SGD","country":"SG","status":"LISTED"}`, `column "status": bad status "LISTED"`},
		{"participant:BRKASGSGXXX", `{"bic":"BRKASGSGXXX","name":"A","roles":"TRADER","country":"SG","status":"ACTIVE","public_key":"` + keyA + `"}`, `column "roles": unknown role "TRADER"`},
		{"holiday:SG:2026-12-25", `{"country":"SG","date":"2026-12-24"}`, `value is for holiday:SG:2026-12-24, not for its key`},
		{"holiday:SG:2026-02-30", `{"country":"SG","date":"2026-02-30"}`, `column "date": bad date "2026-02-30"`},
	}
	for _, tc := range tests {
		s := NewSet()
		s.PutCurrency(Currency{"SGD", 2})
		err := s.Apply([]byte(tc.key), []byte(tc.value))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Apply(%s, %s) = %v, want %q", tc.key, tc.value, err, tc.want)
		}
		if len(s.Records()) != 1 {
			t.Errorf("Apply(%s) changed the set after an error", tc.key)
		}
		if c, _ := s.Currency("SGD"); c.MinorUnits != 2 {
			t.Errorf("Apply(%s) changed SGD", tc.key)
		}
	}
}
