package refdata

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"filippo.io/edwards25519"
)

// smallOrderKey is a point of order 8 (the canonical encoding of a torsion
// point): with it, one signature (R = identity-like, S = 0) verifies for
// many messages.
func smallOrderKey(t *testing.T) []byte {
	b, err := hex.DecodeString("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// nonCanonicalKey encodes a point of the curve with y + p in place of y:
// crypto/ed25519 accepts it, the contract refuses it.
func nonCanonicalKey(t *testing.T) []byte {
	for y := byte(2); y < 19; y++ {
		// p + y = 2^255 - 19 + y, little endian.
		b := make([]byte, 32)
		b[0] = 0xed + y
		for i := 1; i < 31; i++ {
			b[i] = 0xff
		}
		b[31] = 0x7f
		if _, err := new(edwards25519.Point).SetBytes(b); err == nil {
			return b
		}
	}
	t.Fatal("no non-canonical point with y < 19")
	return nil
}

// mixedOrderKey is a demo key plus a point of order 8: canonical, not of
// small order, but not of order l either.
func mixedOrderKey(t *testing.T) []byte {
	a, err := new(edwards25519.Point).SetBytes(DemoPublicKey("BRKASGSGXXX"))
	if err != nil {
		t.Fatal(err)
	}
	tp, err := new(edwards25519.Point).SetBytes(smallOrderKey(t))
	if err != nil {
		t.Fatal(err)
	}
	return new(edwards25519.Point).Add(a, tp).Bytes()
}

func TestKeyProblem(t *testing.T) {
	if p := KeyProblem(DemoPublicKey("BRKASGSGXXX")); p != "" {
		t.Errorf("demo key refused: %s", p)
	}
	identity := make([]byte, 32)
	identity[0] = 1
	for name, tc := range map[string]struct {
		key  []byte
		want string
	}{
		"small order":   {smallOrderKey(t), "small order"},
		"identity":      {identity, "small order"},
		"non-canonical": {nonCanonicalKey(t), "canonical"},
		"mixed order":   {mixedOrderKey(t), "order l"},
		"short":         {make([]byte, 31), "32"},
		"off the curve": {[]byte(strings.Repeat("\x02", 32)), "curve"},
	} {
		if p := KeyProblem(tc.key); !strings.Contains(p, tc.want) {
			t.Errorf("%s: KeyProblem = %q, want it to say %q", name, p, tc.want)
		}
	}
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

func participantsFile(keys string) map[string]string {
	f := validFiles()
	f["participants.csv"] = "bic,name,roles,country,status,public_key\n" +
		"BRKASGSGXXX,Broker A,BROKER,SG,ACTIVE," + keyA + "\n" +
		"BRKBSGSGXXX,Broker B,BROKER,SG,ACTIVE," + keys + "\n"
	return f
}

func TestLoadRefusesBadKeysNamingTheRow(t *testing.T) {
	for name, keys := range map[string]string{
		"small order":        b64(smallOrderKey(t)),
		"non-canonical":      b64(nonCanonicalKey(t)),
		"mixed order":        b64(mixedOrderKey(t)),
		"second small order": keyA + ";" + b64(smallOrderKey(t)),
		"three keys":         keyA + ";" + b64(DemoPublicKey("X")) + ";" + b64(DemoPublicKey("Y")),
		"same key twice":     keyA + ";" + keyA,
		"empty second":       keyA + ";",
	} {
		_, err := Load(mapFS(participantsFile(keys)))
		var re *RowError
		if !errors.As(err, &re) || re.File != "participants.csv" || re.Line != 3 || re.Column != "public_key" {
			t.Errorf("%s: err = %v, want participants.csv:3 column public_key", name, err)
		}
	}
}

func TestTwoKeysLoadAndRoundTrip(t *testing.T) {
	k1, k2 := DemoPublicKey("BRKBSGSGXXX"), DemoPublicKey("BRKBSGSGXXX-next")
	s, err := Load(mapFS(participantsFile(b64(k1) + ";" + b64(k2))))
	if err != nil {
		t.Fatal(err)
	}
	p, _ := s.Participant("BRKBSGSGXXX")
	if len(p.Keys) != 2 || !p.HasKey(k1) || !p.HasKey(k2) {
		t.Fatalf("keys = %v", p.Keys)
	}
	msg := []byte("<Header>x</Header><Body>y</Body>")
	for i, priv := range []ed25519.PrivateKey{DemoPrivateKey("BRKBSGSGXXX"), DemoPrivateKey("BRKBSGSGXXX-next")} {
		if !p.Verifies(msg, ed25519.Sign(priv, msg)) {
			t.Errorf("a signature by key %d does not verify", i+1)
		}
	}
	if p.Verifies(msg, ed25519.Sign(DemoPrivateKey("BRKCSGSGXXX"), msg)) {
		t.Error("a signature by another key verifies")
	}
	back := NewSet()
	for _, r := range s.Records() {
		if err := back.Apply(r.Key, r.Value); err != nil {
			t.Fatal(err)
		}
	}
	if q, _ := back.Participant("BRKBSGSGXXX"); len(q.Keys) != 2 || !q.Keys[0].Equal(k1) || !q.Keys[1].Equal(k2) {
		t.Errorf("after the topic: keys = %v", q.Keys)
	}
}

func TestApplyIgnoresBadKeyOnTheTopic(t *testing.T) {
	good := b64(DemoPublicKey("BRKBSGSGXXX"))
	for name, tc := range map[string]struct {
		keys string
		kept int
	}{
		"small order alone":  {b64(smallOrderKey(t)), 0},
		"non-canonical":      {b64(nonCanonicalKey(t)), 0},
		"beside a good key":  {good + ";" + b64(mixedOrderKey(t)), 1},
		"not base64 at all":  {"%%%", 0},
		"the same key twice": {good + ";" + good, 1},
	} {
		s := NewSet()
		val := `{"bic":"BRKBSGSGXXX","name":"B","roles":"BROKER","country":"SG","status":"ACTIVE","public_key":"` + tc.keys + `"}`
		err := s.Apply([]byte("participant:BRKBSGSGXXX"), []byte(val))
		var ki *KeyIgnoredError
		if !errors.As(err, &ki) || ki.Key != "participant:BRKBSGSGXXX" {
			t.Errorf("%s: err = %v, want a KeyIgnoredError", name, err)
		}
		p, ok := s.Participant("BRKBSGSGXXX")
		if !ok || p.Status != Active || len(p.Keys) != tc.kept {
			t.Errorf("%s: participant %+v %v, want it in force with %d keys", name, p, ok, tc.kept)
		}
	}
}

func TestCheckSigner(t *testing.T) {
	s := NewSet()
	old, next := DemoPublicKey(DefaultUtilityBIC), DemoPublicKey("rotated")
	s.PutParticipant(Participant{BIC: DefaultUtilityBIC, Name: "STE", Roles: RoleUtility, Country: "SG", Status: Active, Keys: []ed25519.PublicKey{old}})
	s.PutParticipant(Participant{BIC: "BRKASGSGXXX", Name: "A", Roles: RoleBroker, Country: "SG", Status: Active, Keys: []ed25519.PublicKey{next}})
	if err := CheckSigner(s, DefaultUtilityBIC, old); err != nil {
		t.Errorf("the row's key refused: %v", err)
	}
	var se *SignerError
	if err := CheckSigner(s, DefaultUtilityBIC, next); !errors.As(err, &se) {
		t.Errorf("a key not in the row: err = %v", err)
	}
	if err := CheckSigner(s, "BRKASGSGXXX", next); !errors.As(err, &se) {
		t.Errorf("a row without the UTILITY role: err = %v", err)
	}
	if err := CheckSigner(s, "NOSUCHBICXX", old); !errors.As(err, &se) {
		t.Errorf("no row: err = %v", err)
	}
	s.PutParticipant(Participant{BIC: DefaultUtilityBIC, Name: "STE", Roles: RoleUtility, Country: "SG", Status: Active, Keys: []ed25519.PublicKey{old, next}})
	for _, k := range []ed25519.PublicKey{old, next} {
		if err := CheckSigner(s, DefaultUtilityBIC, k); err != nil {
			t.Errorf("during the overlap: %v", err)
		}
	}
}
