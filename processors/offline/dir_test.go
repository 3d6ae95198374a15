package offline

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/ste-utility/ste/processors/validation"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/msgset"
	"github.com/ste-utility/ste/schemas/outcome"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/workload"
)

// RunToDir writes what outcome.FromMatchDir reads back: the same outputs
// as the sinks of Run, compressed when a name says so.
func TestRunToDirIsWhatFromMatchDirReads(t *testing.T) {
	recs, _, _ := generate(t, 40, workload.Realistic, 3)
	want := run(t, recs)
	src, err := msgset.NewReader(bytes.NewReader(append(bytes.Join(recs, []byte("\n")), '\n')), "set.xml")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "out")
	signer := &schemas.Signer{BIC: refdata.DefaultUtilityBIC, Key: refdata.DemoPrivateKey(refdata.DefaultUtilityBIC)}
	sum, err := RunToDir(context.Background(), src, dir, Options{Validator: validation.New(refdata.Default()), Signer: signer})
	if err != nil {
		t.Fatal(err)
	}
	set, err := outcome.FromMatchDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	c := set.Counts()
	if sum.CLS != want.sum.CLS || c.Exceptions != len(want.excs) || c.Outputs+c.Repeats != len(want.cls)+len(want.out) || c.Conflicts != 0 {
		t.Fatalf("RunToDir %+v, read back %+v; Run gave %d CLS, %d outbound, %d exceptions", sum, c, len(want.cls), len(want.out), len(want.excs))
	}
}
