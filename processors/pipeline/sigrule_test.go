package pipeline

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"regexp"
	"slices"
	"testing"

	"github.com/ste-utility/ste/processors/offline"
	"github.com/ste-utility/ste/processors/validation"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/msgset"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/schemas/signature/sigtest"
	"github.com/ste-utility/ste/workload"
)

var senderRe = regexp.MustCompile(`<Sender>([A-Z0-9]+)</Sender>`)

// One verification rule on every path (docs/spec/messages.md §2): records
// whose signatures the cofactorless and cofactored equations judge apart
// get the same verdict from the Kafka path's validate stage as from ste
// match — the cofactored one.
func TestOneSignatureRuleOnBothPaths(t *testing.T) {
	recs := generated(t, workload.Options{Trades: 4})
	crafts := []func(ed25519.PrivateKey, []byte) []byte{
		sigtest.MixedR, // valid: cofactored only
		func(k ed25519.PrivateKey, m []byte) []byte { return ed25519.Sign(k, m) },
		sigtest.NonCanonicalR, // invalid: R not canonical (ZIP-215 would accept)
		func(k ed25519.PrivateKey, m []byte) []byte { return sigtest.SPlusL(ed25519.Sign(k, m)) },
	}
	wantRejected := 0
	for i, r := range recs {
		sender := string(senderRe.FindSubmatch(r)[1])
		c := i % len(crafts)
		recs[i] = sigtest.Resign(r, refdata.DemoPrivateKey(sender), crafts[c])
		if c >= 2 {
			wantRejected++
		}
	}

	// The Kafka path.
	g := newGraph(t)
	for _, r := range recs {
		g.send("any", r)
	}
	kafkaExc := g.drain(g.names.Exceptions())
	kafkaCLS := g.drain(g.names.CLS())

	// ste match.
	src, err := msgset.NewReader(bytes.NewReader(append(bytes.Join(recs, []byte("\n")), '\n')), "set.xml")
	if err != nil {
		t.Fatal(err)
	}
	var offExc, offCLS [][]byte
	keep := func(dst *[][]byte) func([]byte) error {
		return func(b []byte) error { *dst = append(*dst, append([]byte(nil), b...)); return nil }
	}
	signer := &schemas.Signer{BIC: "STEUTLSGXXX", Key: refdata.DemoPrivateKey("STEUTLSGXXX")}
	if _, _, err := offline.Run(context.Background(), src, offline.Sinks{CLS: keep(&offCLS), Outbound: func([]byte) error { return nil },
		Exceptions: keep(&offExc)}, offline.Options{Validator: validation.New(refdata.Default()), Signer: signer}); err != nil {
		t.Fatal(err)
	}

	rejected := func(excs [][]byte) []string {
		var ids []string
		for _, e := range excs {
			if !bytes.Contains(e, []byte(`"reason":"SIGNATURE"`)) {
				t.Errorf("exception other than SIGNATURE: %s", e)
			}
			ids = append(ids, string(regexp.MustCompile(`"msg_id":"([^"]*)"`).FindSubmatch(e)[1]))
		}
		slices.Sort(ids)
		return ids
	}
	k, o := rejected(kafkaExc), rejected(offExc)
	if len(k) != wantRejected || !slices.Equal(k, o) {
		t.Fatalf("SIGNATURE rejections: Kafka path %v, ste match %v, want %d", k, o, wantRejected)
	}
	if len(kafkaCLS) != len(offCLS) {
		t.Fatalf("CLS: Kafka path %d, ste match %d", len(kafkaCLS), len(offCLS))
	}
}
