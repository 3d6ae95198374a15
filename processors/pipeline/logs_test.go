package pipeline_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/processors/gokaconf"
	"github.com/ste-utility/ste/processors/pipeline"
	"github.com/ste-utility/ste/processors/supervise"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/topology"
)

// A cluster that refuses goka's login: Run fails (no hang), and sarama's
// report of the refusal reaches the log at warn or above — without the
// password. goka's topic manager is on franz-go (gokaconf.TopicManagerBuilder)
// and is the group's first contact with the cluster, so sarama's report is
// checked on a sarama client of the same configuration, routed as Run routes
// them (kfake closes a refused login's connection, which franz-go reports
// as EOF and retries for the topic manager's 10 s: real Kafka answers
// SASL_AUTHENTICATION_FAILED, a permanent error, at once).
func TestSaramaProblemsReachTheLog(t *testing.T) {
	const password = "right-password-never-logged"
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.EnableSASL(), kfake.Superuser(kafkaconn.ScramSHA256, "ste", password))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	k, err := kafkaconn.Load(kafkaconn.Settings{Brokers: c.ListenAddrs()[0], Mechanism: kafkaconn.ScramSHA256,
		Username: "ste", Password: "wrong-" + password})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo}))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	start := time.Now()
	// A group that never starts is retried for Backoff.Start before Run gives
	// up (25 s by default, to ride out a broker restart): 2 s here.
	err = pipeline.Run(ctx, pipeline.Options{Kafka: k, Logger: log, Stages: []topology.Stage{topology.StageValidate},
		Config:  pipeline.Config{Names: topology.Names{NS: "logs"}, Signer: &schemas.Signer{BIC: "STEUTLSGXXX"}},
		Restart: supervise.Backoff{Base: 200 * time.Millisecond, Max: time.Second, Reset: time.Minute, Start: 2 * time.Second}})
	if err == nil {
		t.Fatal("Run succeeded with a wrong password")
	}
	if d := time.Since(start); d > 45*time.Second {
		t.Fatalf("refusal took %v", d)
	}
	cfg := gokaconf.Sarama(k)
	cfg.Metadata.Retry.Max = 0 // the first refusal is enough here
	if _, err := sarama.NewClient(k.Brokers, cfg); err == nil {
		t.Fatal("a sarama client logged in with a wrong password")
	}
	var warned []string
	for _, line := range bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n")) {
		var rec struct{ Level, Msg, From string }
		if json.Unmarshal(line, &rec) == nil && rec.From == "sarama" && (rec.Level == "WARN" || rec.Level == "ERROR") {
			warned = append(warned, rec.Msg)
			if strings.Contains(rec.Msg, "Deprecation") {
				t.Errorf("sarama warns about STE's configuration: %s", rec.Msg)
			}
		}
	}
	if !slices.ContainsFunc(warned, func(m string) bool { return strings.Contains(m, "SASL") }) {
		t.Fatalf("no sarama problem logged at warn or error; log:\n%s\nerr: %v", buf.String(), err)
	}
	if strings.Contains(buf.String()+err.Error(), password) {
		t.Fatal("the password reached the log or the error")
	}
	t.Logf("err: %v; sarama warned: %q", err, warned)
}
