package signature_test

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"fmt"
	"testing"

	"github.com/hdevalence/ed25519consensus"

	"github.com/ste-utility/ste/schemas/signature"
	"github.com/ste-utility/ste/schemas/signature/sigtest"
)

func key(name string) ed25519.PrivateKey {
	seed := sha256.Sum256([]byte("ste-demo-key:" + name))
	return ed25519.NewKeyFromSeed(seed[:])
}

// The crafted vectors: where the cofactorless rule (crypto/ed25519), ZIP-215
// (ed25519consensus) and the utility's rule part ways.
func TestRuleOnCraftedVectors(t *testing.T) {
	priv := key("BRKASGSGXXX")
	pub := priv.Public().(ed25519.PublicKey)
	msg := []byte("<Header>…</Body>")
	honest := ed25519.Sign(priv, msg)
	cases := []struct {
		name                      string
		sig                       []byte
		stdlib, zip215, utilities bool
	}{
		{"honest", honest, true, true, true},
		{"R with an order-8 component", sigtest.MixedR(priv, msg), false, true, true},
		{"non-canonical R", sigtest.NonCanonicalR(priv, msg), false, true, false},
		{"S not below l", sigtest.SPlusL(honest), false, false, false},
		{"other message", ed25519.Sign(priv, []byte("other")), false, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := ed25519.Verify(pub, msg, c.sig); got != c.stdlib {
				t.Errorf("crypto/ed25519: %v, want %v (the vector is not what it claims)", got, c.stdlib)
			}
			if got := ed25519consensus.Verify(pub, msg, c.sig); got != c.zip215 {
				t.Errorf("ZIP-215: %v, want %v (the vector is not what it claims)", got, c.zip215)
			}
			if got := signature.Verify(pub, msg, c.sig); got != c.utilities {
				t.Errorf("signature.Verify: %v, want %v", got, c.utilities)
			}
			ok := []bool{false}
			new(signature.Batcher).Verify([]signature.Item{{Sender: "S", Keys: []ed25519.PublicKey{pub}, Msg: msg, Sig: c.sig}}, ok)
			if ok[0] != c.utilities {
				t.Errorf("Batcher alone: %v, want %v", ok[0], c.utilities)
			}
		})
	}
}

// Keys the rule refuses, whatever the signature.
func TestRuleRefusesBadKeys(t *testing.T) {
	msg := []byte("m")
	sig := ed25519.Sign(key("X"), msg)
	for name, k := range map[string][]byte{
		"short":       make([]byte, 31),
		"identity":    append([]byte{1}, make([]byte, 31)...),
		"not a point": append([]byte{2}, make([]byte, 31)...),
	} {
		if signature.Verify(k, msg, sig) {
			t.Errorf("%s key verified", name)
		}
	}
}

// batchCase builds n items from senders, bad marking the invalid ones; the
// invalid ones mix every kind of crafted vector.
func batchCase(n int, bad func(i int) bool) ([]signature.Item, []bool) {
	items := make([]signature.Item, n)
	want := make([]bool, n)
	for i := range items {
		sender := fmt.Sprintf("S%02d", i%7)
		priv := key(sender)
		msg := []byte(fmt.Sprintf("message %d", i))
		var sig []byte
		switch {
		case !bad(i) && i%3 == 0:
			sig = sigtest.MixedR(priv, msg) // valid, cofactored only
		case !bad(i):
			sig = ed25519.Sign(priv, msg)
		case i%3 == 0:
			sig = sigtest.NonCanonicalR(priv, msg)
		case i%3 == 1:
			sig = sigtest.SPlusL(ed25519.Sign(priv, msg))
		default:
			sig = ed25519.Sign(priv, append(msg, '!'))
		}
		items[i] = signature.Item{Sender: sender, Keys: []ed25519.PublicKey{priv.Public().(ed25519.PublicKey)}, Msg: msg, Sig: sig}
		want[i] = !bad(i)
	}
	return items, want
}

// Every item of a batch gets the verdict Verify gives it alone, whatever
// the mix of valid and invalid ones (bisection).
func TestBatchEqualsSingle(t *testing.T) {
	patterns := map[string]func(int) bool{
		"all valid":     func(int) bool { return false },
		"all invalid":   func(int) bool { return true },
		"first invalid": func(i int) bool { return i == 0 },
		"last invalid":  func(i int) bool { return i == 63 },
		"every fifth":   func(i int) bool { return i%5 == 2 },
		"a run":         func(i int) bool { return i >= 20 && i < 27 },
		"two far apart": func(i int) bool { return i == 3 || i == 50 },
	}
	for name, bad := range patterns {
		for _, n := range []int{1, 2, 3, 4, 17, 64} {
			t.Run(fmt.Sprintf("%s/%d", name, n), func(t *testing.T) {
				items, want := batchCase(n, bad)
				got := make([]bool, n)
				new(signature.Batcher).Verify(items, got)
				for i := range items {
					single := signature.Verify(items[i].Keys[0], items[i].Msg, items[i].Sig)
					if single != want[i] || got[i] != want[i] {
						t.Errorf("item %d: batch %v, single %v, want %v", i, got[i], single, want[i])
					}
				}
			})
		}
	}
}

// Two keys: valid under either, batched or not.
func TestBatchRotation(t *testing.T) {
	old, next := key("OLD"), key("NEXT")
	keys := []ed25519.PublicKey{old.Public().(ed25519.PublicKey), next.Public().(ed25519.PublicKey)}
	msg := []byte("m")
	items := []signature.Item{
		{Sender: "R", Keys: keys, Msg: msg, Sig: ed25519.Sign(old, msg)},
		{Sender: "R", Keys: keys, Msg: msg, Sig: ed25519.Sign(next, msg)},
		{Sender: "R", Keys: keys, Msg: msg, Sig: ed25519.Sign(key("OTHER"), msg)},
	}
	got := make([]bool, 3)
	new(signature.Batcher).Verify(items, got)
	if !got[0] || !got[1] || got[2] {
		t.Fatalf("got %v, want [true true false]", got)
	}
}

// A sender whose signatures fail is verified apart afterwards, so that the
// batches of the others hold.
func TestSuspectVerifiedApart(t *testing.T) {
	b := new(signature.Batcher)
	items, want := batchCase(64, func(i int) bool { return i%7 == 3 }) // all of S03's
	got := make([]bool, 64)
	b.Verify(items, got)
	b.Verify(items, got) // S03 now a suspect: the rest batch in one
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("item %d: %v, want %v", i, got[i], want[i])
		}
	}
	if !signature.Suspect(b, "S03") || signature.Suspect(b, "S01") {
		t.Fatal("S03 should be the only suspect")
	}
}

// Sign gives crypto/ed25519's bytes, for any key and message.
func TestSignIsEd25519Sign(t *testing.T) {
	for i := range 200 {
		priv := key(fmt.Sprint("K", i))
		msg := []byte(fmt.Sprint("message ", i, string(make([]byte, i*7))))
		if got, want := signature.Sign(priv, msg), ed25519.Sign(priv, msg); !bytes.Equal(got, want) {
			t.Fatalf("key %d: %x, crypto/ed25519 %x", i, got, want)
		}
	}
}
