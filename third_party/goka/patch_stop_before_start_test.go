package goka

import (
	"testing"

	"github.com/lovoo/goka/codec"
)

// TestPatchStopBeforeStart (PATCHES.md, patch 3): a partition processor
// stopped before it was started stops without error. Without the patch
// Stop dereferences the runner group Start makes, as an STE instance did
// in the cluster chaos suite (its group's session ended while its
// partition processors were being set up) and exited.
func TestPatchStopBeforeStart(t *testing.T) {
	graph := DefineGroup("group", Input("input", new(codec.String), func(Context, any) {}))
	opts := new(poptions)
	opts.partitionChannelSize = 1
	pp := newPartitionProcessor(0, graph, func(*message, string) {}, defaultLogger, opts, runModeActive, nil, nil, nil, nil, nil, 0)
	if err := pp.Stop(); err != nil {
		t.Fatalf("stopping a partition processor never started: %v", err)
	}
}
