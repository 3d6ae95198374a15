package instance_test

import (
	"context"
	"crypto/ed25519"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/ste-utility/ste/instance"
	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topics/broker"
)

// TestRefusesAKeyTheUtilityRowDoesNotList: an instance whose signing key's
// public half is not among the keys of the utility's row stops before it
// consumes anything, with a *refdata.SignerError; once the row lists the key
// beside the old one (a rotation's overlap), it starts.
func TestRefusesAKeyTheUtilityRowDoesNotList(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a broker")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := broker.Start(broker.Options{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	brokers := kafkaconn.Plaintext(broker.Addr(c))
	const ns = "signer"
	cl, err := topics.Connect(ctx, brokers)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if _, err := topics.Create(ctx, kadm.NewClient(cl), ns, topics.Options{Partitions: 1}); err != nil {
		t.Fatal(err)
	}
	run := func(signer *schemas.Signer) error {
		ictx, stop := context.WithCancel(ctx)
		defer stop()
		ready := make(chan struct{})
		done := make(chan error, 1)
		go func() {
			done <- instance.Run(ictx, instance.Options{Kafka: brokers, Namespace: ns, Signer: signer, Verify: true,
				Tables: instance.TablesMemory, Home: t.TempDir(), Ready: ready,
				Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		}()
		select {
		case <-ready:
			stop()
			<-done
			return nil
		case err := <-done:
			return err
		}
	}
	newKey := refdata.DemoPrivateKey("rotated utility key")
	rotated := &schemas.Signer{BIC: refdata.DefaultUtilityBIC, Key: newKey}

	if err := run(rotated); err == nil {
		t.Fatal("started on an empty reference data topic")
	}
	ref := refdata.Default()
	if _, err := topics.PublishRefdata(ctx, cl, ns, ref); err != nil {
		t.Fatal(err)
	}
	var se *refdata.SignerError
	if err := run(rotated); !errors.As(err, &se) {
		t.Fatalf("a key the row does not list: err = %v, want a *refdata.SignerError", err)
	}
	u, _ := ref.Participant(refdata.DefaultUtilityBIC)
	u.Keys = []ed25519.PublicKey{u.Keys[0], newKey.Public().(ed25519.PublicKey)}
	ref = ref.Clone()
	ref.PutParticipant(u)
	if _, err := topics.PublishRefdata(ctx, cl, ns, ref); err != nil {
		t.Fatal(err)
	}
	if err := run(rotated); err != nil {
		t.Fatalf("the new key beside the old: %v", err)
	}
	if err := run(&schemas.Signer{BIC: refdata.DefaultUtilityBIC, Key: refdata.DemoPrivateKey(refdata.DefaultUtilityBIC)}); err != nil {
		t.Fatalf("the old key beside the new: %v", err)
	}
}
