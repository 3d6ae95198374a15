package e2e

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/processors/changelog"
	"github.com/ste-utility/ste/processors/diskstore"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topology"
)

// TestDiskTablesKillLoop runs STE's stages with their tables on disk and
// kills the instance (kill -9) three times mid-stream. The outcomes must be
// ste match's, and afterwards its local tables must hold exactly what the
// changelogs hold: what an instance with an empty $STE_HOME rebuilds.
func TestDiskTablesKillLoop(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end suite: brokers and processes (drop -short to run)")
	}
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { diskTablesKillLoop(t, b) })
	}
}

func diskTablesKillLoop(t *testing.T, b backend) {
	f := newFixture(t, b, 300)
	home := t.TempDir()
	env := append(slices.Clone(f.env), "STE_TABLES=disk", "STE_HOME="+home, "STE_INSTANCE_ID=disk-e2e")
	p := startProcess(t, env)
	driven := make(chan struct{})
	go func() { defer close(driven); f.drive(600) }()
	for _, share := range []float64{0.2, 0.45, 0.7} {
		f.waitProgress(share, p)
		p.stop(t, syscall.SIGKILL)
		p = startProcess(t, env)
	}
	<-driven
	f.check(f.waitComplete(3 * time.Minute))
	if err := p.stop(t, syscall.SIGTERM); err != nil {
		t.Fatalf("SIGTERM: %v\n%s", err, p.log)
	}
	dir := filepath.Join(home, "instances", "ids", "disk-e2e", "tables", f.ns)
	for _, g := range topology.Describe(f.ns).Groups {
		if g.Table == "" {
			continue
		}
		local, cl := localTable(t, dir, g.Table), changelogTable(t, f.conn, g.Table, g.Stage)
		if len(cl) == 0 {
			t.Fatalf("%s: empty changelog", g.Table)
		}
		for k, v := range cl {
			if !bytes.Equal(local[k], v) {
				t.Errorf("%s: key %q: local %x, changelog %x", g.Table, k, local[k], v)
			}
		}
		for k := range local {
			if _, ok := cl[k]; !ok {
				t.Errorf("%s: key %q is local only", g.Table, k)
			}
		}
		t.Logf("%s: %d keys, local and changelog agree", g.Table, len(cl))
	}
}

// localTable reads every partition of a table from an instance's disk
// tables.
func localTable(t *testing.T, dir, table string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	if err := diskstore.Dump(dir, table, topics.DefaultPartitions, func(_ int32, k, v []byte) error {
		out[string(k)] = bytes.Clone(v)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// changelogTable is the table of stage st as its changelog says: the last
// value per key, a batch record's writes each under its own.
func changelogTable(t *testing.T, conn kafkaconn.Config, table string, st topology.Stage) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	if _, err := topics.Dump(context.Background(), conn, table, func(r *kgo.Record) error {
		return changelog.EachValue(st, string(r.Key), r.Value, func(k string, v []byte) {
			if v == nil {
				delete(out, k)
			} else {
				out[k] = v
			}
		})
	}); err != nil {
		t.Fatal(fmt.Errorf("%s: %w", table, err))
	}
	return out
}
