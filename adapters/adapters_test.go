package adapters_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/adapters"
	"github.com/ste-utility/ste/adapters/journal"
	"github.com/ste-utility/ste/adapters/stexml"
	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topics/broker"
	"github.com/ste-utility/ste/topology"
)

// The ack point (adapters.md §1, §4.4, §5.2): the original bytes and the
// journal entry are on their topics, read back through the journal, before
// the STE record is on <ns>.inbound with the headers of §2; with the
// brokers gone, Publish answers ErrUnavailable within its timeout.
func TestPublishAckPoint(t *testing.T) {
	c, err := broker.Start(broker.Options{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	conn := kafkaconn.Plaintext(broker.Addr(c))
	cl, err := topics.Client(conn, kgo.ProducerLinger(0))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	names := topology.Names{NS: "pub"}
	if _, err := topics.Create(ctx, kadm.NewClient(cl), names.NS, topics.Options{Partitions: 2, Replication: 1}); err != nil {
		t.Fatal(err)
	}
	j := journal.Open(ctx, conn, names.AdaptersJournal(), cl, slog.New(slog.NewTextHandler(io.Discard, nil)))
	s, err := adapters.LoadSigner(refdata.ISOSignerBIC, "", true, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Check(refdata.Default()); err != nil {
		t.Fatalf("the default reference data's signer row: %v", err)
	}
	h := stexml.Header{MsgId: "S1:T1", MsgType: "SET", Function: "NEW", Sender: "AFKZSGSGXXX", Created: "2026-11-27T00:00:00.000Z"}
	body := []stexml.Field{stexml.F("TradeRef", "R1"), stexml.F("Account", "A1")}
	rec, err := s.Build(h, body)
	if err != nil {
		t.Fatal(err)
	}
	origin := adapters.Origin{Bytes: []byte("<Document/>"), Ref: "AFKZSGSGXXX:n1", PossDup: true}
	tr := adapters.Translation(journal.ISO20022, "AFKZSGSGXXX", rec, h, body, []string{"T1"}, origin)
	p := &adapters.Publisher{Names: names, Client: cl, Journal: j, Timeout: 2 * time.Second}
	pubs, err := p.Publish(ctx, adapters.Submission{Adapter: journal.ISO20022, Participant: "AFKZSGSGXXX", Origin: origin,
		Journal: []journal.Entry{{Translation: tr}}, Records: []*stexml.Record{rec}})
	if err != nil || len(pubs) != 1 {
		t.Fatalf("%v %v", pubs, err)
	}
	if err := j.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if ts := j.Translations("AFKZSGSGXXX", "S1:T1"); len(ts) != 1 || ts[0].OriginSHA256 != origin.SHA256() {
		t.Fatalf("journal %+v", ts)
	}
	var in, orig *kgo.Record
	topics.Dump(ctx, conn, names.Inbound(), func(r *kgo.Record) error { in = r; return nil })
	topics.Dump(ctx, conn, names.AdaptersOrigin(), func(r *kgo.Record) error { orig = r; return nil })
	sum := sha256.Sum256(origin.Bytes)
	if orig == nil || string(orig.Key) != hex.EncodeToString(sum[:]) || string(orig.Value) != "<Document/>" {
		t.Fatalf("origin record %+v", orig)
	}
	want := map[string]string{adapters.HeaderParticipant: "AFKZSGSGXXX", adapters.HeaderAdapter: "iso20022",
		adapters.HeaderOriginSHA: hex.EncodeToString(sum[:]), adapters.HeaderOriginRef: "AFKZSGSGXXX:n1", adapters.HeaderPossDup: "Y"}
	got := map[string]string{}
	for _, hd := range in.Headers {
		got[hd.Key] = string(hd.Value)
	}
	if in == nil || string(in.Key) != "AFKZSGSGXXX" || string(in.Value) != string(rec.Bytes) || len(got) != len(want) {
		t.Fatalf("inbound record %+v", in)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("header %s = %q, want %q", k, got[k], v)
		}
	}
	// The brokers gone: no acknowledgement, ErrUnavailable past the timeout.
	c.Close()
	start := time.Now()
	_, err = p.Publish(ctx, adapters.Submission{Adapter: journal.ISO20022, Participant: "AFKZSGSGXXX", Origin: origin,
		Journal: []journal.Entry{{Translation: tr}}, Records: []*stexml.Record{rec}})
	if !errors.Is(err, adapters.ErrUnavailable) || time.Since(start) > 10*time.Second {
		t.Fatalf("%v after %v", err, time.Since(start))
	}
}

func TestLoadSignerFlags(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if _, err := adapters.LoadSigner("STEUTLSGISO", "", false, log); err == nil {
		t.Error("no key and no --demo-key")
	}
	if _, err := adapters.LoadSigner("STEUTLSGISO", "k.pem", true, log); err == nil {
		t.Error("--signer-key and --demo-key together")
	}
	if _, err := adapters.LoadSigner("STEUTLSGISO", t.TempDir()+"/none", false, log); err == nil {
		t.Error("a key file that is not there")
	}
	s, _ := adapters.LoadSigner("STEUTLSGISO", "", true, log)
	if err := s.Check(refdata.Default()); err != nil {
		t.Error(err)
	}
	other, _ := adapters.LoadSigner("STEUTLSGFIX", "", true, log)
	other.BIC = "STEUTLSGISO"
	if err := other.Check(refdata.Default()); err == nil {
		t.Error("another key passed the signer row's check")
	}
}
