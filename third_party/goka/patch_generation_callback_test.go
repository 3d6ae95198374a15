package goka

import (
	"context"
	"testing"
	"time"

	"github.com/lovoo/goka/codec"
	"github.com/stretchr/testify/require"
)

// TestPatchGenerationCallback (PATCHES.md, patch 4): WithGenerationCallback
// is told each session's generation with its assignment, before the
// session's partitions are set up. The mock consumer group numbers its
// sessions from 1. Without the patch there is no such option.
func TestPatchGenerationCallback(t *testing.T) {
	ctrl, bm := createMockBuilder(t)
	defer ctrl.Finish()
	bm.tmgr.EXPECT().Close().Return(nil).AnyTimes()
	bm.tmgr.EXPECT().Partitions("input").Return([]int32{0}, nil).AnyTimes()
	bm.producer.EXPECT().Close().Return(nil).AnyTimes()
	groupBuilder, _ := createTestConsumerGroupBuilder(t)
	consBuilder, _ := createTestConsumerBuilder(t)
	type told struct {
		generation int32
		assignment Assignment
	}
	got := make(chan told, 1)
	graph := DefineGroup("test", Input("input", new(codec.Int64), func(Context, any) {}))
	proc, err := NewProcessor([]string{"localhost:9092"}, graph,
		append(bm.createProcessorOptions(consBuilder, groupBuilder),
			WithGenerationCallback(func(gen int32, a Assignment) { got <- told{gen, a} }))...)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- proc.Run(ctx) }()
	select {
	case g := <-got:
		require.Equal(t, int32(1), g.generation)
		require.Contains(t, g.assignment, int32(0))
	case <-ctx.Done():
		t.Fatal("the generation was never told")
	}
	cancel()
	require.NoError(t, <-done)
}
