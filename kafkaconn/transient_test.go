package kafkaconn

import (
	"context"
	"errors"
	"fmt"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
)

func TestTransient(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{fmt.Errorf("inbound: end offsets: %w", kerr.NotLeaderForPartition), true},
		{kerr.LeaderNotAvailable, true},
		{kerr.NotEnoughReplicas, true},
		{&net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}, true},
		{fmt.Errorf("list offsets: %w", context.DeadlineExceeded), true},
		{kerr.SaslAuthenticationFailed, false},
		{kerr.TopicAuthorizationFailed, false},
		{kerr.InvalidReplicationFactor, false},
		{context.Canceled, false},
		{errors.New("refdata: bad row"), false},
	} {
		if got := Transient(c.err); got != c.want {
			t.Errorf("Transient(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

func TestRetry(t *testing.T) {
	ctx := context.Background()
	tries := 0
	err := Retry(ctx, nil, "x", func() error {
		if tries++; tries < 3 {
			return kerr.NotLeaderForPartition
		}
		return nil
	})
	if err != nil || tries != 3 {
		t.Errorf("transient twice then success: %v after %d tries, want nil after 3", err, tries)
	}
	tries = 0
	err = Retry(ctx, nil, "x", func() error { tries++; return kerr.TopicAuthorizationFailed })
	if !errors.Is(err, kerr.TopicAuthorizationFailed) || tries != 1 {
		t.Errorf("a refusal: %v after %d tries, want it after 1", err, tries)
	}
	ctx, cancel := context.WithTimeout(ctx, 600*time.Millisecond)
	defer cancel()
	err = Retry(ctx, nil, "x", func() error { return kerr.LeaderNotAvailable })
	if !errors.Is(err, kerr.LeaderNotAvailable) {
		t.Errorf("transient until the context ends: %v, want the last error", err)
	}
}
