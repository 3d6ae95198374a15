package instance_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/instance"
	"github.com/ste-utility/ste/internal/testing/brokertest"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/msgset"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topics/lag"
	"github.com/ste-utility/ste/topology"
	"github.com/ste-utility/ste/workload"
)

// resign signs rec's <Header>…</Body> range with key instead.
func resign(t *testing.T, rec []byte, key ed25519.PrivateKey) []byte {
	i, j := bytes.Index(rec, []byte("<Header>")), bytes.Index(rec, []byte("</Body>"))
	k, l := bytes.Index(rec, []byte(`<Sig alg="ed25519">`)), bytes.Index(rec, []byte("</Sig>"))
	if i < 0 || j < 0 || k < 0 || l < 0 {
		t.Fatalf("not a signed message: %.80s", rec)
	}
	sig := base64.StdEncoding.EncodeToString(ed25519.Sign(key, rec[i:j+len("</Body>")]))
	out := append([]byte(nil), rec[:k+len(`<Sig alg="ed25519">`)]...)
	out = append(out, sig...)
	return append(out, rec[l:]...)
}

// TestKeyRotationWhileDriven: a participant and the utility each hold two
// keys (the overlap of a rotation); half the set is driven to an instance
// signing with the utility's old key, half to one signing with its new key,
// and every other message of one broker is signed with its new key. No
// message is NACKed SIGNATURE, and every output verifies with one of the
// utility's listed keys. With the second key of either row ignored, the
// broker's new-key messages are NACKed or the second instance does not start.
func TestKeyRotationWhileDriven(t *testing.T) {
	const ns = "rot"
	ctx, env := brokertest.Namespace(t, ns, 2, 3*time.Minute)
	brokers, cl, adm := env.Conn, env.Client, env.Admin
	ref := refdata.Default()
	var buf bytes.Buffer
	if _, err := workload.Generate(workload.Options{Trades: 40, Ref: ref}, func(b []byte) error {
		buf.Write(b)
		return buf.WriteByte('\n')
	}, nil); err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n"))
	var dec schemas.Decoder
	m, _ := dec.Decode(lines[0])
	rotating := m.Sender
	newKey := refdata.DemoPrivateKey(rotating + " next")
	oldU, newU := refdata.DemoPrivateKey(refdata.DefaultUtilityBIC), refdata.DemoPrivateKey("utility next")

	// The overlap: both rows hold their old and their new key.
	ref = ref.Clone()
	for bic, k := range map[string]ed25519.PrivateKey{rotating: newKey, refdata.DefaultUtilityBIC: newU} {
		p, _ := ref.Participant(bic)
		p.Keys = []ed25519.PublicKey{p.Keys[0], k.Public().(ed25519.PublicKey)}
		ref.PutParticipant(p)
	}
	env.Refdata(t, ctx, ref)
	resigned := 0
	for i, line := range lines {
		if m, rej := dec.Decode(line); rej == nil && m.Sender == rotating && i%2 == 0 {
			lines[i] = resign(t, line, newKey)
			resigned++
		}
	}
	if resigned == 0 {
		t.Fatal("no message re-signed")
	}

	run := func(key ed25519.PrivateKey, part [][]byte) {
		ictx, stop := context.WithCancel(ctx)
		ready := make(chan struct{})
		done := make(chan error, 1)
		go func() {
			done <- instance.Run(ictx, instance.Options{Kafka: brokers, Namespace: ns, Verify: true,
				Signer: &schemas.Signer{BIC: refdata.DefaultUtilityBIC, Key: key},
				Tables: instance.TablesMemory, Home: t.TempDir(), Ready: ready, LeaveOnStop: true,
				Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		}()
		select {
		case <-ready:
		case err := <-done:
			t.Fatalf("instance stopped: %v", err)
		}
		src, _ := msgset.NewReader(bytes.NewReader(append(bytes.Join(part, []byte("\n")), '\n')), "part")
		if _, err := topics.Drive(ctx, cl, ns, src, topics.DriveOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := lag.WaitZero(ctx, adm, lag.Groups(ns), lag.WaitOptions{}); err != nil {
			t.Fatal(err)
		}
		stop()
		<-done
	}
	half := len(lines) / 2
	run(oldU, lines[:half])
	run(newU, lines[half:]) // the utility switched its signer

	listed := []ed25519.PublicKey{oldU.Public().(ed25519.PublicKey), newU.Public().(ed25519.PublicKey)}
	bySigner := map[int]int{}
	for _, topic := range []string{topology.Names{NS: ns}.Outbound(), topology.Names{NS: ns}.CLS()} {
		if _, err := topics.Dump(ctx, brokers, topic, func(r *kgo.Record) error {
			v := r.Value
			i, j := bytes.Index(v, []byte("<Header>")), bytes.Index(v, []byte("</Body>"))
			k, l := bytes.Index(v, []byte(`<Sig alg="ed25519">`)), bytes.Index(v, []byte("</Sig>"))
			if i < 0 || j < 0 || k < 0 || l < 0 {
				t.Fatalf("output not signed: %.100s", v)
			}
			sig, err := base64.StdEncoding.DecodeString(string(v[k+len(`<Sig alg="ed25519">`) : l]))
			if err != nil {
				t.Fatal(err)
			}
			signedBy := -1
			for n, key := range listed {
				if ed25519.Verify(key, v[i:j+len("</Body>")], sig) {
					signedBy = n
				}
			}
			if signedBy < 0 {
				t.Fatalf("output verifies with neither listed key: %.100s", v)
			}
			bySigner[signedBy]++
			if bytes.Contains(v, []byte("<MsgType>NACK</MsgType>")) {
				t.Errorf("NACK during the overlap: %s", v)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	if bySigner[0] == 0 || bySigner[1] == 0 {
		t.Fatalf("outputs by key: %v, want both keys to have signed some", bySigner)
	}
}
