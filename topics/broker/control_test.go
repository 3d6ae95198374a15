package broker_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/topics/broker"
)

// Three brokers in one process: a topic of replication 3 keeps being
// written while the leader of its partition is taken away and brought back;
// below min ISR every produce is refused NOT_ENOUGH_REPLICAS until lifted;
// the controls refuse a non-loopback address.
func TestControlLeaderLossAndMinISR(t *testing.T) {
	c, err := broker.Start(broker.Options{Addr: "127.0.0.1:0", Brokers: 3})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	if n := len(strings.Split(broker.Addrs(c), ",")); n != 3 {
		t.Fatalf("Addrs %q: want 3 brokers", broker.Addrs(c))
	}
	ctl, err := broker.NewControl(c)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(ctl)
	t.Cleanup(srv.Close)
	post := func(path string) map[string]any {
		t.Helper()
		resp, err := http.Post(srv.URL+path, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var v map[string]any
		json.NewDecoder(resp.Body).Decode(&v)
		if resp.StatusCode != 200 {
			t.Fatalf("POST %s: %d %v", path, resp.StatusCode, v)
		}
		return v
	}

	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(broker.Addrs(c), ",")...), kgo.DefaultProduceTopic("t"),
		kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.MetadataMinAge(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := kadm.NewClient(cl).CreateTopic(ctx, 1, 3, map[string]*string{"min.insync.replicas": kadm.StringPtr("2")}, "t")
	if err == nil {
		err = res.Err
	}
	if err != nil {
		t.Fatal(err)
	}
	produce := func(ctx context.Context) error {
		return cl.ProduceSync(ctx, &kgo.Record{Partition: 0, Value: []byte("v")}).FirstErr()
	}
	if err := produce(ctx); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		before := c.LeaderFor("t", 0)
		node := int32(post("/v1/leader-loss?topic=t&partition=0")["node"].(float64))
		if node != before || c.LeaderFor("t", 0) == before {
			t.Fatalf("leader %d removed as %d, leader now %d", before, node, c.LeaderFor("t", 0))
		}
		if err := produce(ctx); err != nil {
			t.Fatalf("produce after the leader's loss: %v", err)
		}
		post("/v1/node-back?node=" + strconv.Itoa(int(node)))
		if err := produce(ctx); err != nil {
			t.Fatalf("produce after the node's return: %v", err)
		}
	}
	if len(c.ListenAddrs()) != 3 {
		t.Fatalf("%d brokers after the losses and returns", len(c.ListenAddrs()))
	}

	post("/v1/min-isr?below=true")
	short, cancelShort := context.WithTimeout(ctx, 2*time.Second)
	err = produce(short)
	cancelShort()
	if !errors.Is(err, kerr.NotEnoughReplicas) && !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("produce below min ISR: %v, want NOT_ENOUGH_REPLICAS (retried until the deadline)", err)
	}
	post("/v1/min-isr?below=false")
	if err := produce(ctx); err != nil {
		t.Fatalf("produce once replicas are back: %v", err)
	}
	o, _ := kadm.NewClient(cl).ListEndOffsets(ctx, "t")
	if end := o["t"][0].Offset; end != 8 {
		t.Fatalf("partition end %d: want the 8 acknowledged records, none from the refused produce", end)
	}

	if _, err := broker.ListenControl("0.0.0.0:0"); err == nil {
		t.Fatal("controls served beyond loopback")
	}
}

// Issue 45, finding 9: the switchboard as served refuses what a page in a
// browser sends — another site's Origin or Sec-Fetch-Site, a rebound Host
// — and still answers a command-line client.
func TestControlRefusesBrowsers(t *testing.T) {
	c, err := broker.Start(broker.Options{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	ctl, err := broker.NewControl(c)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(broker.ControlHandler(ctl))
	t.Cleanup(srv.Close)
	for name, mod := range map[string]func(*http.Request){
		"Origin":         func(r *http.Request) { r.Header.Set("Origin", "https://evil.example") },
		"Sec-Fetch-Site": func(r *http.Request) { r.Header.Set("Sec-Fetch-Site", "cross-site") },
		"rebound Host":   func(r *http.Request) { r.Host = "evil.example:80" },
		"none":           nil,
	} {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/shuffle-leaders", nil)
		if mod != nil {
			mod(req)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if want := map[bool]int{true: 200, false: 403}[mod == nil]; resp.StatusCode != want {
			t.Errorf("%s: %d, want %d", name, resp.StatusCode, want)
		}
	}
}

// Issue 45, finding 13: `ste broker --data DIR` keeps the log the running
// user's alone: the directory 0700, every file 0600, every directory 0700.
func TestBrokerDataIsPrivate(t *testing.T) {
	old := syscall.Umask(0o022) // as a login shell's; Run sets the broker process's own
	t.Cleanup(func() { syscall.Umask(old) })
	dir := filepath.Join(t.TempDir(), "data")
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- broker.Run(ctx, broker.Options{Addr: "127.0.0.1:0", DataDir: dir}, "", pw, slog.New(slog.NewTextHandler(io.Discard, nil)))
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.TrimSpace(line)), kgo.AllowAutoTopicCreation())
	if err != nil {
		t.Fatal(err)
	}
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "private", Value: []byte("a participant's message")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	cl.Close()
	cancel()
	go io.Copy(io.Discard, pr)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	files := 0
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, _ := d.Info()
		want := fs.FileMode(0o600)
		if d.IsDir() {
			want = 0o700
		} else {
			files++
		}
		if info.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", p, info.Mode().Perm(), want)
		}
		return nil
	})
	if files == 0 {
		t.Fatal("the broker wrote no file")
	}
}
