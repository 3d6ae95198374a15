package goka

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestPatchSetupCancelled (PATCHES.md, patch 2): a partition table whose
// setup was cancelled before its storage opened has no storage; catching it
// up (what a hot standby's partition processor does next) answers an error
// instead of dereferencing nil. Without the patch this test panics in
// PartitionTable.load, as an STE instance did when a rebalance cancelled
// its standbys' setup.
func TestPatchSetupCancelled(t *testing.T) {
	pt := newPartitionTable("table", 0, nil, nil, nil, nil, defaultLogger, NewSimpleBackoff(time.Millisecond, time.Millisecond), time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := pt.CatchupForever(ctx, false); !errors.Is(err, errTableNotSetUp) {
		t.Fatalf("catching up a table that was never set up: %v, want errTableNotSetUp", err)
	}
}
