package produce

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/lovoo/goka"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/schemas"
)

// TestSealerSignsInEmitOrder: four goroutines emit unsigned outputs to the
// two sealed topics, interleaved with records of a topic that is not
// sealed, and the producer closes at once. Every output arrives sealed,
// byte for byte what Signer.EncodeAll gives, with a signature
// crypto/ed25519 verifies, and each goroutine's in the order it emitted
// them; the other topic's records arrive as they were emitted; every
// promise completes without error.
func TestSealerSignsInEmitOrder(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(2, "out", "cls", "plain"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	pub, priv, _ := ed25519.GenerateKey(nil)
	now := time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)
	signer := &schemas.Signer{BIC: "STEXSGSGXXX", Key: priv, Now: func() time.Time { return now }}
	p, err := Builder(Options{Seal: &Seal{Signer: signer, Topics: []string{"out", "cls"}}})(c.ListenAddrs(), "seal-test", nil)
	if err != nil {
		t.Fatal(err)
	}
	const writers, each = 4, 150
	outputs := func(g int) []schemas.Output {
		var os []schemas.Output
		for i := range each {
			o := schemas.Output{Type: schemas.ACK, MsgId: fmt.Sprintf("m-%d-%03d", g, i), Receiver: fmt.Sprint("P", g),
				Key: fmt.Sprint("P", g), Body: []byte(fmt.Sprintf("<Seq>%d</Seq>", i))}
			if i%5 == 4 {
				o.Type = schemas.CLS
			}
			os = append(os, o)
		}
		return os
	}
	var (
		wg    sync.WaitGroup
		pmu   sync.Mutex
		proms []*goka.Promise
	)
	for g := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, o := range outputs(g) {
				topic := "out"
				if o.IsCLS() {
					topic = "cls"
				}
				a := p.Emit(topic, o.Key, signer.EncodeUnsigned([]schemas.Output{o})[0])
				b := p.Emit("plain", o.Key, []byte(fmt.Sprintf("plain-%d-%03d", g, i)))
				pmu.Lock()
				proms = append(proms, a, b)
				pmu.Unlock()
			}
		}()
	}
	wg.Wait()
	if err := p.Close(); err != nil { // what waits to be sealed is handed over
		t.Fatal(err)
	}
	for _, pr := range proms {
		if err := wait(pr); err != nil {
			t.Fatal(err)
		}
	}

	got := map[string][][]byte{} // by key, in partition order
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.ConsumeTopics("out", "cls", "plain"),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for n := 0; n < 2*writers*each; {
		fs := cl.PollFetches(ctx)
		if err := fs.Err0(); err != nil {
			t.Fatalf("after %d records: %v", n, err)
		}
		fs.EachRecord(func(r *kgo.Record) {
			got[r.Topic+"/"+string(r.Key)] = append(got[r.Topic+"/"+string(r.Key)], r.Value)
			n++
		})
	}
	for g := range writers {
		var sealed [][]byte
		for _, o := range outputs(g) {
			if !o.IsCLS() {
				sealed = append(sealed, signer.EncodeAll([]schemas.Output{o})[0])
			}
		}
		key := fmt.Sprint("P", g)
		if !slices.EqualFunc(got["out/"+key], sealed, bytes.Equal) {
			t.Fatalf("writer %d: the outbound records are not its outputs sealed, in emit order:\n%q", g, got["out/"+key])
		}
		for _, v := range append(got["out/"+key], got["cls/"+key]...) {
			start, end := len("<Msg>"), bytes.Index(v, []byte(`<Sig alg="ed25519">`))
			sig, err := base64.StdEncoding.DecodeString(string(v[end+len(`<Sig alg="ed25519">`) : len(v)-len("</Sig></Msg>")]))
			if err != nil || !ed25519.Verify(pub, v[start:end], sig) {
				t.Fatalf("writer %d: %q does not verify (%v)", g, v, err)
			}
		}
		if n := len(got["cls/"+key]); n != each/5 {
			t.Fatalf("writer %d: %d CLS records, want %d", g, n, each/5)
		}
		for i, v := range got["plain/"+key] {
			if want := fmt.Sprintf("plain-%d-%03d", g, i); string(v) != want {
				t.Fatalf("writer %d: plain record %d is %q, want %q", g, i, v, want)
			}
		}
	}
}
