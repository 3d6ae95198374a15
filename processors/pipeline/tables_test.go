package pipeline

import (
	"errors"
	"io"
	"log/slog"
	"testing"

	"github.com/ste-utility/ste/processors/diskstore"
	"github.com/ste-utility/ste/processors/query"
	"github.com/ste-utility/ste/processors/tablestore"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topology"
)

// TestStandbyTablesAreNotTheStages: with standbys, a partition the group
// owns opens as the stages' table (lookups, due scan, gauges reach it); one
// it does not own opens as a standby the stages never see, which goes on
// taking changelog records after its recovery — where an owned table
// refuses a write that did not go through the stages' producer.
func TestStandbyTablesAreNotTheStages(t *testing.T) {
	s := newWiring(Config{Names: topology.Names{NS: "t"}, Signer: &schemas.Signer{BIC: "STEUTLSGXXX", Key: refdata.DemoPrivateKey("STEUTLSGXXX")}}, nil)
	db, err := diskstore.Open(diskstore.Options{Dir: t.TempDir(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s.db = db
	own := &tablestore.Owned{}
	own.Set([]int32{1})
	for _, st := range []topology.Stage{topology.StageIdentity, topology.StageMatch} {
		b := s.storageChain(st, own)
		topic := st.String() + "-table"
		mine, err := b(topic, 1)
		if err != nil {
			t.Fatal(err)
		}
		standby, err := b(topic, 0)
		if err != nil {
			t.Fatal(err)
		}
		if s.tables.Get(st, 1) == nil {
			t.Errorf("%s: the owned partition is not the stages' table", st)
		}
		if s.tables.Get(st, 0) != nil {
			t.Errorf("%s: a standby is the stages' table", st)
		}
		if st == topology.StageMatch {
			if _, _, err := s.query.FindRef(query.RefQuery{Ref: "R"}, []int32{0}); err != nil {
				t.Errorf("a standby has a read side the lookups read: %v", err)
			}
			if _, _, err := s.query.FindRef(query.RefQuery{Ref: "R"}, []int32{1}); !errors.Is(err, query.ErrRecovering) {
				t.Errorf("the owned partition has no read side: %v", err)
			}
		}
		for p, tab := range map[int32]interface {
			MarkRecovered() error
			Set(string, []byte) error
			SetOffset(int64) error
		}{0: standby, 1: mine} {
			if err := tab.MarkRecovered(); err != nil {
				t.Fatal(err)
			}
			if err := tab.Set("k", []byte("v")); err != nil {
				t.Fatal(err)
			}
			err := tab.SetOffset(0)
			if p == 0 && err != nil {
				t.Errorf("%s: the standby refused a changelog record after its recovery: %v", st, err)
			}
			if p == 1 && err == nil {
				t.Errorf("%s: the owned table took a write that did not go through its producer", st)
			}
		}
	}
	// Without standbys every partition goka opens is the group's own.
	s.keep(topology.StageMatch, nil)
	if _, err := s.storageChain(topology.StageMatch, nil)("match-table2", 0); err != nil {
		t.Fatal(err)
	}
	if s.tables.Get(topology.StageMatch, 0) == nil {
		t.Error("without standbys, an opened partition is not the stages' table")
	}
}
