package goka

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/lovoo/goka/codec"
	"github.com/stretchr/testify/require"
)

// endingConsumerGroup is a consumer group whose every session ends at once,
// as a rebalance ends it, counting the joins.
type endingConsumerGroup struct {
	*MockConsumerGroup
	joins atomic.Int64
}

func (cg *endingConsumerGroup) Consume(ctx context.Context, topics []string, handler sarama.ConsumerGroupHandler) error {
	cg.joins.Add(1)
	return nil
}

// TestPatchRejoinWait (PATCHES.md, patch 1): after a session ends the
// processor joins again once WithRejoinWait has passed, not after a fixed 5
// seconds. With a 100 ms wait it joins many times within 3 seconds; with the
// fixed wait it would have joined once.
func TestPatchRejoinWait(t *testing.T) {
	ctrl, bm := createMockBuilder(t)
	defer ctrl.Finish()
	bm.tmgr.EXPECT().Close().Return(nil).AnyTimes()
	bm.tmgr.EXPECT().Partitions("input").Return([]int32{0}, nil).AnyTimes()
	bm.producer.EXPECT().Close().Return(nil).AnyTimes()
	cg := &endingConsumerGroup{MockConsumerGroup: NewMockConsumerGroup(t)}
	consBuilder, _ := createTestConsumerBuilder(t)
	graph := DefineGroup("test", Input("input", new(codec.Int64), func(Context, any) {}))
	proc, err := NewProcessor([]string{"localhost:9092"}, graph,
		append(bm.createProcessorOptions(consBuilder, func([]string, string, string) (sarama.ConsumerGroup, error) {
			return cg, nil
		}), WithRejoinWait(100*time.Millisecond))...)
	require.NoError(t, err)

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	require.NoError(t, proc.Run(ctx))
	require.Greater(t, cg.joins.Load(), int64(2), "joins within 3 s with a 100 ms rejoin wait")
}

// TestPatchRejoinWaitDefault: without the option the wait stays upstream's
// 5 seconds; a negative wait is none. (applyOptions also reports the
// builders this test does not set; only the wait is looked at.)
func TestPatchRejoinWaitDefault(t *testing.T) {
	graph := DefineGroup("test", Input("input", new(codec.Int64), func(Context, any) {}))
	var o poptions
	_ = o.applyOptions(graph)
	require.Equal(t, 5*time.Second, o.rejoinWait)
	_ = o.applyOptions(graph, WithRejoinWait(-time.Second))
	require.Equal(t, time.Duration(0), o.rejoinWait)
}
