package produce

import (
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// The pipeline's producer finds a moved or lost partition leader within a
// second of the move: its metadata may be refreshed every 250 ms (franz-go's
// default 5 s held a lost leader's outputs up to 5 s after Kafka had
// elected another: the 15 s produce stalls per leader loss on Kafka 4) and
// its retries back off to 1 s at most (franz-go's default reaches 5 s).
func TestProducerFindsAMovedLeaderWithinASecond(t *testing.T) {
	gp, err := Builder(Options{})([]string{"127.0.0.1:1"}, "moved-test", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer gp.Close()
	cl := gp.(*producer).cl
	if got := cl.OptValue(kgo.MetadataMinAge); got != 250*time.Millisecond {
		t.Errorf("MetadataMinAge %v, want 250ms", got)
	}
	backoff, ok := cl.OptValue(kgo.RetryBackoffFn).(func(int) time.Duration)
	if !ok {
		t.Fatalf("RetryBackoffFn is %T", cl.OptValue(kgo.RetryBackoffFn))
	}
	for n := 1; n <= 30; n++ {
		if d := backoff(n); d > 1200*time.Millisecond || d < 200*time.Millisecond {
			t.Errorf("retry %d waits %v, want 250 ms to 1 s (±20 %%)", n, d)
		}
	}
}
