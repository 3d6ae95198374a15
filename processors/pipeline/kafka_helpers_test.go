package pipeline_test

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/ste-utility/ste/internal/testing/brokertest"
	"github.com/ste-utility/ste/processors/pipeline"
	"github.com/ste-utility/ste/processors/validation"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topology"
)

// runPipeline runs the three stages of namespace ns on env's broker (Run,
// the demo reference data and signer; tables on disk under tableDir, or in
// memory when it is empty) until they are ready, and returns what stops
// them and waits for Run to return.
func runPipeline(ctx context.Context, t *testing.T, env brokertest.Env, ns, tableDir string) (stop func()) {
	t.Helper()
	pctx, cancel := context.WithCancel(ctx)
	ready, done := make(chan struct{}), make(chan error, 1)
	signer := &schemas.Signer{BIC: "STEUTLSGXXX", Key: refdata.DemoPrivateKey("STEUTLSGXXX")}
	go func() {
		done <- pipeline.Run(pctx, pipeline.Options{Kafka: env.Conn, Ready: ready, TableDir: tableDir,
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
			Config: pipeline.Config{Names: topology.Names{NS: ns}, Validator: validation.New(refdata.Default()), Signer: signer}})
	}()
	select {
	case <-ready:
	case err := <-done:
		cancel()
		t.Fatalf("processors stopped: %v", err)
	case <-ctx.Done():
		cancel()
		t.Fatal("processors not ready")
	}
	return func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("processors: %v", err)
		}
	}
}
