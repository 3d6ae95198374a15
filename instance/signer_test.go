package instance_test

import (
	"context"
	"crypto/ed25519"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/ste-utility/ste/instance"
	"github.com/ste-utility/ste/internal/testing/brokertest"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/refdata"
)

// TestRefusesAKeyTheUtilityRowDoesNotList: an instance whose signing key's
// public half is not among the keys of the utility's row stops before it
// consumes anything, with a *refdata.SignerError; once the row lists the key
// beside the old one (a rotation's overlap), it starts.
func TestRefusesAKeyTheUtilityRowDoesNotList(t *testing.T) {
	const ns = "signer"
	ctx, env := brokertest.Namespace(t, ns, 1, time.Minute)
	brokers := env.Conn
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
	env.Refdata(t, ctx, ref)
	var se *refdata.SignerError
	if err := run(rotated); !errors.As(err, &se) {
		t.Fatalf("a key the row does not list: err = %v, want a *refdata.SignerError", err)
	}
	u, _ := ref.Participant(refdata.DefaultUtilityBIC)
	u.Keys = []ed25519.PublicKey{u.Keys[0], newKey.Public().(ed25519.PublicKey)}
	ref = ref.Clone()
	ref.PutParticipant(u)
	env.Refdata(t, ctx, ref)
	if err := run(rotated); err != nil {
		t.Fatalf("the new key beside the old: %v", err)
	}
	if err := run(&schemas.Signer{BIC: refdata.DefaultUtilityBIC, Key: refdata.DemoPrivateKey(refdata.DefaultUtilityBIC)}); err != nil {
		t.Fatalf("the old key beside the new: %v", err)
	}
}
