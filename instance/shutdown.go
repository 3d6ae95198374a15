package instance

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"regexp"
	goruntime "runtime"
	"slices"
	"strings"
	"time"
)

// ShutdownBound is how long a command may take to stop once it was told to
// (SIGTERM, SIGINT). Kubernetes waits 30 s before its SIGKILL; 15 s leaves
// room for the group leave and the last commits, and is well beyond what a
// clean stop takes (under a second), so the bound only acts when something
// waits on a broker that is gone.
const ShutdownBound = 15 * time.Second

// BoundShutdown makes a stop finite whatever the broker does. Once stopping
// is closed (the command was told to stop) the process has bound to exit;
// past it, BoundShutdown writes to w what it gave up on — the functions the
// goroutines still running are blocked in, e.g. a produce never acknowledged
// — and calls exit(1). Each part of the command bounds its own stop where it
// can (the registry's removal, producers' flushes); this is the guarantee
// behind them, so that no part forgotten can hang a rolling restart.
//
// The returned function cancels the watch (call it when the command
// returned). exit is os.Exit outside tests.
func BoundShutdown(stopping <-chan struct{}, bound time.Duration, w io.Writer, exit func(int)) (cancel func()) {
	return boundShutdown(stopping, bound, time.After, w, exit)
}

// boundShutdown is BoundShutdown on the clock after (tests fire it
// themselves). A stop that ended by the time the bound is reached is left
// alone, whichever the goroutine sees first.
func boundShutdown(stopping <-chan struct{}, bound time.Duration, after func(time.Duration) <-chan time.Time,
	w io.Writer, exit func(int)) (cancel func()) {
	done := make(chan struct{})
	go func() {
		select {
		case <-done:
			return
		case <-stopping:
		}
		select {
		case <-done:
		case <-after(bound):
			select {
			case <-done:
				return
			default:
			}
			fmt.Fprintf(w, "shutdown: gave up after %v; still waiting in: %s\n", bound, strings.Join(blockedIn(), "; "))
			exit(1)
		}
	}()
	var once bool
	return func() {
		if !once {
			once = true
			close(done)
		}
	}
}

// BoundShutdownOf watches ctx: the usual call, for a command's signal context.
func BoundShutdownOf(ctx context.Context, w io.Writer) (cancel func()) {
	bound := ShutdownBound
	if d, err := time.ParseDuration(os.Getenv("STE_SHUTDOWN_BOUND")); err == nil && d > 0 {
		bound = d
	}
	return BoundShutdown(ctx.Done(), bound, w, os.Exit)
}

var frameRe = regexp.MustCompile(`(?m)^([\w./%-]+\.(?:\(\*?\w+\)\.)?\w+)\(`)

// blockedIn names, for each goroutine, the first function of this module in
// its stack (where it waits from STE's point of view), counted, most frequent
// first; goroutines with no frame of the module are left out.
func blockedIn() []string {
	buf := make([]byte, 1<<20)
	buf = buf[:goruntime.Stack(buf, true)]
	counts := map[string]int{}
	for _, g := range bytes.Split(buf, []byte("\n\n")) {
		for _, m := range frameRe.FindAllSubmatch(g, -1) {
			fn := string(m[1])
			if strings.HasPrefix(fn, "github.com/ste-utility/ste/") && !strings.Contains(fn, "instance.BoundShutdown") &&
				!strings.Contains(fn, "instance.blockedIn") {
				counts[strings.TrimPrefix(fn, "github.com/ste-utility/ste/")]++
				break
			}
		}
	}
	var out []string
	for fn, n := range counts {
		out = append(out, fmt.Sprintf("%s ×%d", fn, n))
	}
	slices.SortFunc(out, func(a, b string) int { return strings.Compare(a, b) })
	if len(out) == 0 {
		out = []string{"(no goroutine of ste)"}
	}
	return out
}
