package e2e

import (
	"bufio"
	"fmt"
	"net"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestGatewayStrangersHoldNothing is issue 45's finding 2 tried from
// outside, on a `ste gateway` process: 40 connections each declare an
// unsigned 8 MiB POST and send its body one byte a second, 40 more send
// 4 MiB of unsigned body as fast as the gateway takes it. Before the fix
// the gateway buffered each declared body before the signature check
// (RSS 61 → 385 MB, the slow bodies held past 45 s); now a request without
// a signature is refused on its headers. The gateway's resident memory
// with all 80 connected stays within 20 MB of what it was idle, and every
// connection is answered or closed by the gateway.
func TestGatewayStrangersHoldNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a broker and a gateway")
	}
	brokers := embeddedBroker(t)
	ns := fmt.Sprintf("gws%d", time.Now().UnixNano()%1e6)
	env := []string{"STE_BROKERS=" + brokers, "STE_NAMESPACE=" + ns}
	ste(t, env, "topics", "create")
	l := startLines(t, env, "gateway", "--addr", "127.0.0.1:0", "--metrics-addr", "")
	re := regexp.MustCompile(`STE gateway for namespace \S+: (\S+)\n`)
	base := re.FindStringSubmatch(l.waitFor(t, re, 30*time.Second))[1]
	waitHealthy(t, base)
	u, err := url.Parse(base)
	must(t, err)
	if u.Scheme != "http" {
		t.Fatalf("the gateway serves %s: this test speaks plain HTTP on loopback", base)
	}
	pid := l.cmd.Process.Pid
	idle := rssKB(t, pid)

	const slow, fast = 40, 40
	var wg sync.WaitGroup
	answered := make(chan string, slow+fast)
	request := func(declared int) string {
		return fmt.Sprintf("POST /v1/messages HTTP/1.1\r\nHost: %s\r\nContent-Type: application/xml\r\nContent-Length: %d\r\n\r\n", u.Host, declared)
	}
	var conns []net.Conn
	var mu sync.Mutex
	dial := func() net.Conn {
		c, err := net.DialTimeout("tcp", u.Host, 5*time.Second)
		must(t, err)
		mu.Lock()
		conns = append(conns, c)
		mu.Unlock()
		return c
	}
	t.Cleanup(func() {
		for _, c := range conns {
			c.Close()
		}
	})
	// What the gateway answers on a connection, read until it answers or
	// closes it (the status line, or "closed").
	readAnswer := func(c net.Conn) string {
		c.SetReadDeadline(time.Now().Add(60 * time.Second))
		line, err := bufio.NewReader(c).ReadString('\n')
		if err != nil {
			return "closed"
		}
		return strings.TrimSpace(line)
	}
	for i := 0; i < slow; i++ {
		c := dial()
		wg.Add(2)
		go func() { // one byte a second while the gateway keeps the connection
			defer wg.Done()
			if _, err := c.Write([]byte(request(8 << 20))); err != nil {
				return
			}
			for j := 0; j < 15; j++ {
				if _, err := c.Write([]byte("<")); err != nil {
					return
				}
				time.Sleep(time.Second)
			}
		}()
		go func() { defer wg.Done(); answered <- readAnswer(c) }()
	}
	body := []byte(strings.Repeat("<x/>", (4<<20)/4))
	for i := 0; i < fast; i++ {
		c := dial()
		wg.Add(2)
		go func() {
			defer wg.Done()
			c.Write(append([]byte(request(len(body))), body...))
		}()
		go func() { defer wg.Done(); answered <- readAnswer(c) }()
	}
	// The peak while every connection is open and the slow ones still
	// sending: sampled each half second for 10 s.
	peak := idle
	for i := 0; i < 20; i++ {
		time.Sleep(500 * time.Millisecond)
		peak = max(peak, rssKB(t, pid))
	}
	wg.Wait()
	close(answered)
	counts := map[string]int{}
	for a := range answered {
		counts[a]++
	}
	t.Logf("RESULT gateway RSS idle %d KB, peak with %d unsigned connections %d KB (+%.1f MB); answers %v",
		idle, slow+fast, peak, float64(peak-idle)/1024, counts)
	if peak-idle > 20*1024 {
		t.Errorf("the gateway's RSS grew %.1f MB with %d unsigned connections (at most 20 MB)", float64(peak-idle)/1024, slow+fast)
	}
	for a, n := range counts {
		if a != "closed" && !strings.HasPrefix(a, "HTTP/1.1 4") {
			t.Errorf("%d unsigned requests answered %q, want a 4xx or the connection closed", n, a)
		}
	}
}

// rssKB is a process's resident set from /proc, in KB.
func rssKB(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	must(t, err)
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			n, err := strconv.Atoi(f[1])
			must(t, err)
			return n
		}
	}
	t.Fatalf("no VmRSS in /proc/%d/status", pid)
	return 0
}
