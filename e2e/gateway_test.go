package e2e

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/tls"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/kafkaconn/testca"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/outcome"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/testgate"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topics/lag"
)

// TestGateway drives `ste gateway` (docs/spec/gateway.md) with an independent RFC 9421
// client: e2e/gateway/gateway_suite.py, signing with the requests-http-signature
// and http-message-signatures packages, in the virtual environment the
// Makefile keeps ($STE_GATEWAY_PYTHON). Two gateway instances over one
// embedded broker and one `ste process`; a third is killed with -9 during a
// long poll.
func TestGateway(t *testing.T) {
	py := os.Getenv("STE_GATEWAY_PYTHON")
	if py == "" {
		testgate.Need(t, "the gateway suite's Python client (STE_GATEWAY_PYTHON: make test installs it)", errors.New("STE_GATEWAY_PYTHON is not set"))
	}
	brokers := embeddedBroker(t)
	ns := fmt.Sprintf("gw%d", time.Now().UnixNano()%1e6)
	env := []string{"STE_BROKERS=" + brokers, "STE_NAMESPACE=" + ns}
	conn := kafkaconn.Plaintext(brokers)
	dir := t.TempDir()
	ref, full, set := filepath.Join(dir, "ref"), filepath.Join(dir, "full.xml"), filepath.Join(dir, "set.xml")
	ste(t, nil, "refdata", "gen", "--out", ref, "--seed", "3")
	ste(t, nil, "gen", "--trades", "120", "--mix", "realistic", "--seed", "5", "--created-day", "2026-11-02", "--refdata", ref, "--out", full)
	// A participant rotating its key holds two (docs/spec/messages.md §8): it may sign
	// with either.
	rot, rotSeed := rotateKey(t, ref)
	rd, err := refdata.LoadDir(ref)
	must(t, err)
	msgs := submittable(t, full, rd)
	must(t, os.WriteFile(set, []byte(strings.Join(msgs, "\n")+"\n"), 0o644))
	match := filepath.Join(dir, "match")
	ste(t, nil, "match", "--in", set, "--refdata", ref, "--out", match)

	ste(t, env, "topics", "create")
	ste(t, env, "refdata", "load", "--dir", ref)
	startProcess(t, env, "--http", "127.0.0.1:0")
	gw := func(extra ...string) (*lines, string, string) {
		l := startLines(t, env, append([]string{"gateway", "--addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0"}, extra...)...)
		out := l.waitFor(t, regexp.MustCompile(`STE gateway for namespace \S+: (\S+)\n`), 30*time.Second)
		u := regexp.MustCompile(`STE gateway for namespace \S+: (\S+)\n`).FindStringSubmatch(out)[1]
		m := regexp.MustCompile(`"metrics":"([^"]+)"`).FindStringSubmatch(l.waitFor(t, regexp.MustCompile(`"metrics":"[^"]+"`), 10*time.Second))
		waitHealthy(t, u)
		return l, u, m[1]
	}
	g1, gw1, metrics1 := gw()
	_, gw2, _ := gw()
	g3, gw3, metrics3 := gw()
	ca, err := testca.Write(filepath.Join(dir, "tls"), "gateway")
	must(t, err)
	_, gw4, _ := gw("--tls-cert", ca.ServerCert, "--tls-key", ca.ServerKey, "--rate-limit", "0.01", "--rate-burst", "3")
	const public = "https://gateway.example.com"
	_, gw5, _ := gw("--public-url", public)

	// The participants of the suite: BIC, and OTHER_BIC, the Broker of a
	// trade BIC is no party to.
	bic, other, theirKey, theirRef := pickParties(t, msgs, rd)
	var inactive string
	for _, p := range rd.Participants() {
		if p.Status != refdata.Active {
			inactive = p.BIC
			break
		}
	}
	var bics []string
	for _, p := range rd.Participants() {
		if p.Status == refdata.Active {
			bics = append(bics, p.BIC)
		}
	}
	bicsFile, outFile := filepath.Join(dir, "bics.txt"), filepath.Join(dir, "gateway-outbound.xml")
	must(t, os.WriteFile(bicsFile, []byte(strings.Join(bics, "\n")), 0o644))
	pyEnv := []string{"GW1=" + gw1, "GW2=" + gw2, "GW3=" + gw3, "GW3_PID=" + fmt.Sprint(g3.cmd.Process.Pid), "GW3_METRICS=" + metrics3,
		"BIC=" + bic, "OTHER_BIC=" + other, "INACTIVE_BIC=" + inactive, "UTILITY_BIC=STEUTLSGXXX",
		"SET=" + set, "BICS=" + bicsFile, "OUT=" + outFile, "THEIR_TRADE_KEY=" + theirKey, "THEIR_TRADE_REF=" + theirRef,
		"THEIR_PARTY=" + other, "ROT_BIC=" + rot, "ROT_SEED=" + hex.EncodeToString(rotSeed),
		"GW4=" + gw4, "CA=" + ca.CA, "GW5=" + gw5, "GW5_PUBLIC=" + public}
	phase := func(t *testing.T, name string, facts any) {
		t.Helper()
		out := runPhase(t, py, pyEnv, name, nil)
		if facts != nil {
			must(t, json.Unmarshal([]byte(out), facts))
		}
	}

	t.Run("refusals", func(t *testing.T) { phase(t, "auth", nil) })

	var sub struct {
		Submitted     int      `json:"submitted"`
		ForeignMsgIds []string `json:"foreign_msg_ids"`
	}
	phase(t, "submit", &sub)
	if sub.Submitted != len(msgs) {
		t.Fatalf("submitted %d of %d messages", sub.Submitted, len(msgs))
	}
	// The test's own context, not a deadline: the subtests below use it
	// minutes later on a loaded machine (a shared 3-minute deadline once
	// expired before the kill -9 subtest resent its messages). Each wait
	// bounds itself.
	ctx := t.Context()
	cl, err := topics.Connect(ctx, conn)
	must(t, err)
	defer cl.Close()
	lctx, lcancel := context.WithTimeout(ctx, 3*time.Minute)
	_, err = lag.WaitZero(lctx, kadm.NewClient(cl), lag.Groups(ns), lag.WaitOptions{})
	lcancel()
	must(t, err)

	t.Run("a batch with one foreign Sender publishes nothing", func(t *testing.T) {
		n := 0
		_, err := topics.Dump(ctx, conn, ns+".inbound", func(r *kgo.Record) error {
			for _, id := range sub.ForeignMsgIds {
				if bytes.Contains(r.Value, []byte("<MsgId>"+id+"</MsgId>")) {
					n++
				}
			}
			if h := header(r, "ste-participant"); h != "" && h != schemas.Echo(string(r.Key)) {
				t.Errorf("record keyed %s with ste-participant %s", r.Key, h)
			}
			return nil
		})
		must(t, err)
		if n != 0 {
			t.Fatalf("%d records of the refused batch reached %s.inbound", n, ns)
		}
	})

	t.Run("outputs through the gateways equal ste match", func(t *testing.T) {
		phase(t, "collect", nil)
		want, got := outcome.New(), outcome.New()
		addLines(t, filepath.Join(match, "outbound.xml"), want)
		addLines(t, outFile, got)
		d := outcome.Compare(want, got, outcome.Options{A: "ste match", B: "gateway"})
		if !d.Equal() {
			t.Fatalf("outputs through the gateway differ from ste match: %s", d.Report(5))
		}
		if c := got.Counts(); c.ACKs == 0 {
			t.Fatalf("no ACK through the gateway: %+v", c)
		}
	})

	t.Run("isolation", func(t *testing.T) { phase(t, "isolation", nil) })

	// gateway.md v2 §4c: the work queue of the busiest broker, investment
	// manager and custodian of the set, checked against their trade views.
	t.Run("work queue of a broker, an investment manager and a custodian", func(t *testing.T) {
		qb, qi, qc := busiest(t, msgs, rd)
		// What the set lacks for the filters: trades of theirs that owe
		// messages (copies under another TradeRef without their NPRs and
		// SETs) and one the InvMgr affirms (its AFF of the CNF ste match
		// sent it).
		var extra []string
		extra = append(extra, owedCopy(t, msgs, func(k schemas.Key, _ []string) bool { return k.Broker == qb }, "-OWB")...)
		extra = append(extra, owedCopy(t, msgs, func(_ schemas.Key, cs []string) bool { return slices.Contains(cs, qc) }, "-OWC")...)
		extra = append(extra, affirmation(t, filepath.Join(match, "outbound.xml"), qi))
		file := filepath.Join(dir, "queue-extra.xml")
		must(t, os.WriteFile(file, []byte(strings.Join(extra, "\n")+"\n"), 0o644))
		out := runPhase(t, py, append(pyEnv, "QB="+qb, "QI="+qi, "QC="+qc, "EXTRA="+file), "queue", nil)
		t.Logf("%s", out)
	})

	// Three participants of a set sent in a shuffled order find no record
	// of another party (issue 46); then a custodian that is no party sends
	// a SET naming itself (issue 45, item 3).
	iso := filepath.Join(dir, "iso.xml")
	ste(t, nil, "gen", "--trades", "16", "--mix", "standard", "--seed", "9", "--refdata", ref, "--created-day", "2026-11-05", "--out", iso)
	isoLines := submittable(t, iso, rd)
	seed := time.Now().UnixNano() // logged; STE_ISO_SEED replays an order
	if v, err := strconv.ParseInt(os.Getenv("STE_ISO_SEED"), 10, 64); err == nil {
		seed = v
	}
	rand.New(rand.NewPCG(uint64(seed), 1)).Shuffle(len(isoLines), func(i, j int) { isoLines[i], isoLines[j] = isoLines[j], isoLines[i] })
	shuffled := filepath.Join(dir, "iso-shuffled.xml")
	must(t, os.WriteFile(shuffled, []byte(strings.Join(isoLines, "\n")+"\n"), 0o644))
	t.Run("isolation of three participants, shuffled order", func(t *testing.T) {
		t.Logf("order seed %d", seed)
		out := runPhase(t, py, append(pyEnv, "ISO_SET="+shuffled), "isolation3", nil)
		t.Logf("%s", out)
	})
	t.Run("a rogue custodian's SET: 404, not in its queue, held", func(t *testing.T) {
		rogue := filepath.Join(dir, "rogue.xml")
		must(t, os.WriteFile(rogue, rogueSET(t, isoLines, rd), 0o644))
		runPhase(t, py, append(pyEnv, "ROGUE_SET="+rogue), "rogue", nil)
	})

	t.Run("two instances shown one nonce accept it once", func(t *testing.T) {
		var f struct{ Winners []int }
		phase(t, "nonce", &f)
		t.Logf("winners (0 = GW1, 1 = GW2): %v", f.Winners)
	})

	t.Run("kill -9 during a long poll loses no output", func(t *testing.T) {
		mine, ids := []string{}, []string{}
		for _, l := range msgs {
			if m, _ := (&schemas.Decoder{}).Decode([]byte(l)); m != nil && m.Sender == bic {
				mine, ids = append(mine, l), append(ids, m.MsgId)
			}
		}
		var got struct {
			AfterKill []string `json:"after_kill"`
		}
		out := runPhase(t, py, append(pyEnv, "MSGIDS="+strings.Join(ids, ",")), "killwalk", func(w io.Writer) {
			// The walk printed its cursor and the gateway answering it is
			// dead: the same messages again (exact duplicates re-emit their
			// ACKs), then the walk resumes at another instance.
			recs := []*kgo.Record{}
			for _, l := range mine {
				recs = append(recs, &kgo.Record{Topic: ns + ".inbound", Key: []byte(bic), Value: []byte(l)})
			}
			pctx, cancel := context.WithTimeout(ctx, time.Minute)
			defer cancel()
			must(t, cl.ProduceSync(pctx, recs...).FirstErr())
			fmt.Fprintln(w)
		})
		must(t, json.Unmarshal([]byte(out), &got))
		for _, l := range mine {
			m, _ := (&schemas.Decoder{}).Decode([]byte(l))
			if id := "ACK:" + bic + ":" + m.MsgId; m != nil && !slices.Contains(got.AfterKill, id) && !isNACKed(got.AfterKill, bic, m.MsgId) {
				t.Errorf("%s not among the outputs walked after the kill: %v", id, got.AfterKill)
			}
		}
	})

	t.Run("TLS and rate limits", func(t *testing.T) { phase(t, "tls_limits", nil) })
	t.Run("public URL", func(t *testing.T) { phase(t, "public_url", nil) })

	t.Run("reference data changes apply without a restart", func(t *testing.T) {
		// ROT_BIC suspended: its requests are refused within 30 s.
		sus := filepath.Join(dir, "ref-suspended")
		ste(t, nil, "refdata", "gen", "--out", sus, "--seed", "3")
		b, err := os.ReadFile(filepath.Join(ref, "participants.csv"))
		must(t, err)
		rows := strings.Split(string(b), "\n")
		for i, r := range rows {
			if strings.HasPrefix(r, rot+",") {
				rows[i] = strings.Replace(r, ",ACTIVE,", ",SUSPENDED,", 1)
			}
		}
		must(t, os.WriteFile(filepath.Join(sus, "participants.csv"), []byte(strings.Join(rows, "\n")), 0o644))
		ste(t, env, "refdata", "load", "--dir", sus)
		var f struct{ Seconds float64 }
		phase(t, "suspended", &f)
		t.Logf("refused %.1f s after the load", f.Seconds)
	})

	t.Run("health while the brokers are away; no plain HTTP beyond loopback", func(t *testing.T) {
		l := startLines(t, []string{"STE_BROKERS=127.0.0.1:1", "STE_NAMESPACE=" + ns}, "gateway", "--addr", "127.0.0.1:0", "--metrics-addr", "")
		out := l.waitFor(t, regexp.MustCompile(`STE gateway for namespace \S+: (\S+)\n`), 30*time.Second)
		u := regexp.MustCompile(`STE gateway for namespace \S+: (\S+)\n`).FindStringSubmatch(out)[1]
		time.Sleep(time.Second)
		r, err := http.Get(u + "/v1/health")
		must(t, err)
		b, _ := io.ReadAll(r.Body)
		r.Body.Close()
		if r.StatusCode != http.StatusServiceUnavailable || strings.TrimSpace(string(b)) != `{"status":"starting"}` {
			t.Errorf("health without brokers: %d %s", r.StatusCode, b)
		}
		cmd := exec.Command(steBin, "gateway", "--addr", "192.0.2.1:8443")
		cmd.Env = append(os.Environ(), env...)
		msg, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(msg), "loopback") || strings.Count(strings.TrimSpace(string(msg)), "\n") > 0 {
			t.Errorf("ste gateway beyond loopback without TLS: %v, %q", err, msg)
		}
	})

	t.Run("an expired cursor", func(t *testing.T) {
		var c struct{ Cursor string }
		phase(t, "cursor", &c)
		// Retention deletes BIC's partition up to its end.
		topic := ns + ".outbound"
		p := topics.PartitionOf(bic, 8)
		adm := kadm.NewClient(cl)
		ends, err := adm.ListEndOffsets(ctx, topic)
		must(t, err)
		end, _ := ends.Lookup(topic, p)
		offs := kadm.Offsets{}
		offs.Add(kadm.Offset{Topic: topic, Partition: p, At: end.Offset})
		res, err := adm.DeleteRecords(ctx, offs)
		must(t, err)
		must(t, res.Error())
		runPhase(t, py, append(pyEnv, "CURSOR="+c.Cursor), "expired", nil)
	})

	t.Run("access log, no bodies or signatures in logs", func(t *testing.T) {
		log := g1.out()
		for _, want := range []string{`"msg":"access","what":"outputs","participant":"` + bic + `"`, `"what":"trade","participant":"` + bic + `","trade_key":"` + theirKey + `"`} {
			if !strings.Contains(log, want) {
				t.Errorf("the gateway's log has no %s", want)
			}
		}
		for _, never := range []string{"<Msg>", "<Sender>", "Signature", "sig1=", "pyhms="} {
			if strings.Contains(log, never) {
				t.Errorf("the gateway's log holds %q", never)
			}
		}
	})

	t.Run("metrics", func(t *testing.T) {
		body := scrape(t, metrics1)
		for _, want := range []string{`ste_gateway_auth_refusals_total{reason="replayed"}`, `ste_gateway_requests_total{code="202",route="messages"}`,
			"ste_gateway_long_polls", "ste_gateway_submit_seconds_bucket"} {
			if !strings.Contains(body, want) {
				t.Errorf("/metrics has no %s", want)
			}
		}
		for _, r := range []string{"missing_signature", "malformed", "components", "unknown_participant", "stale", "bad_signature", "digest_mismatch", "replayed"} {
			if regexp.MustCompile(`ste_gateway_auth_refusals_total\{reason="` + r + `"\} 0\n`).MatchString(body) {
				t.Errorf("no refusal counted as %s", r)
			}
		}
	})
}

// rotateKey gives the last ACTIVE participant of the reference data a new
// key beside its demo key, and returns it and the new key's seed.
func rotateKey(t *testing.T, dir string) (string, []byte) {
	path := filepath.Join(dir, "participants.csv")
	b, err := os.ReadFile(path)
	must(t, err)
	rows := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	for i := len(rows) - 1; i > 0; i-- {
		if !strings.Contains(rows[i], ",ACTIVE,") {
			continue
		}
		bic := rows[i][:strings.IndexByte(rows[i], ',')]
		seed := sha256.Sum256([]byte("rotated:" + bic))
		pub := ed25519.NewKeyFromSeed(seed[:]).Public().(ed25519.PublicKey)
		// The public_key column (version 3 added signers after it).
		col := slices.Index(strings.Split(rows[0], ","), "public_key")
		cells := strings.Split(rows[i], ",")
		cells[col] = base64.StdEncoding.EncodeToString(pub) + ";" + cells[col]
		rows[i] = strings.Join(cells, ",")
		must(t, os.WriteFile(path, []byte(strings.Join(rows, "\n")+"\n"), 0o644))
		return bic, seed[:]
	}
	t.Fatal("no ACTIVE participant")
	return "", nil
}

func isNACKed(ids []string, bic, msgID string) bool {
	for _, id := range ids {
		if strings.HasPrefix(id, "NACK:"+bic+":"+msgID+":") {
			return true
		}
	}
	return false
}

// runPhase runs one phase of the Python suite and returns the JSON it
// printed last; mid, when set, is called after its first line of output with
// its standard input.
func runPhase(t *testing.T, py string, env []string, name string, mid func(w io.Writer)) string {
	t.Helper()
	cmd := exec.Command(py, "gateway/gateway_suite.py", name)
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	must(t, cmd.Start())
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<20)
	var last string
	first := true
	for sc.Scan() {
		last = sc.Text()
		if first && mid != nil {
			mid(stdin)
		}
		first = false
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("gateway suite phase %s: %v\n%s", name, err, stderr.String())
	}
	return last
}

// submittable keeps the messages of a set a participant can submit through
// the gateway: well-formed, one Header and Sender, its Sender ACTIVE.
func submittable(t *testing.T, path string, rd *refdata.Set) []string {
	b, err := os.ReadFile(path)
	must(t, err)
	var out []string
	d := &schemas.Decoder{}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(l) == "" || strings.Count(l, "<Header>") != 1 || strings.Count(l, "<Sender>") != 1 {
			continue
		}
		m, rej := d.Decode([]byte(l))
		if m == nil || rej != nil && (rej.Reason == schemas.Malformed || rej.Reason == schemas.TooLarge) {
			continue
		}
		if p, ok := rd.Participant(m.Sender); ok && p.Status == refdata.Active {
			out = append(out, l)
		}
	}
	if len(out) < 100 {
		t.Fatalf("only %d submittable messages", len(out))
	}
	return out
}

// pickParties picks BIC and OTHER_BIC (the Broker of a trade BIC is no party
// to, whose key and TradeRef it returns), both senders of the set.
func pickParties(t *testing.T, lines []string, rd *refdata.Set) (bic, other, key, ref string) {
	type trade struct {
		parties map[string]bool
		k       schemas.Key
	}
	trades := map[schemas.TradeKey]*trade{}
	senders := map[string]int{}
	d := &schemas.Decoder{}
	for _, l := range lines {
		m, rej := d.Decode([]byte(l))
		if rej != nil {
			continue
		}
		senders[m.Sender]++
		tk := m.Key.TradeKey()
		tr := trades[tk]
		if tr == nil {
			tr = &trade{parties: map[string]bool{m.Key.Broker: true, m.Key.InvMgr: true}, k: m.Key}
			trades[tk] = tr
		}
		if m.Custodian != "" {
			tr.parties[m.Custodian] = true
		}
	}
	var keys []schemas.TradeKey
	for k := range trades {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	for _, k := range keys {
		tr := trades[k]
		if senders[tr.k.Broker] < 2 {
			continue
		}
		for _, s := range sortedSenders(senders) {
			if !tr.parties[s] && senders[s] >= 3 && s != tr.k.Broker {
				return s, tr.k.Broker, k.String(), tr.k.TradeRef
			}
		}
	}
	t.Fatal("no two suitable participants in the set")
	return
}

func sortedSenders(m map[string]int) []string {
	var s []string
	for k := range m {
		s = append(s, k)
	}
	sort.Strings(s)
	return s
}

func addLines(t *testing.T, path string, s *outcome.Set) {
	b, err := os.ReadFile(path)
	must(t, err)
	for _, l := range strings.Split(string(b), "\n") {
		if l != "" {
			must(t, s.AddOutput([]byte(l)))
		}
	}
}

func header(r *kgo.Record, k string) string {
	for _, h := range r.Headers {
		if h.Key == k {
			return string(h.Value)
		}
	}
	return ""
}

func waitHealthy(t *testing.T, base string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		// Readiness only: the Python phase checks the certificate with its CA.
		c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
		if r, err := c.Get(base + "/v1/health"); err == nil {
			r.Body.Close()
			if r.StatusCode == http.StatusOK {
				return
			}
		}
	}
	t.Fatalf("%s/v1/health not 200 within 30 s", base)
}

// busiest are the ACTIVE broker, investment manager and custodian with the
// most trades of a set (custodians by the ALCs naming them).
func busiest(t *testing.T, lines []string, rd *refdata.Set) (broker, invMgr, custodian string) {
	type count map[string]map[schemas.TradeKey]bool
	by := [3]count{{}, {}, {}}
	add := func(c count, bic string, k schemas.TradeKey) {
		if p, ok := rd.Participant(bic); !ok || p.Status != refdata.Active {
			return
		}
		if c[bic] == nil {
			c[bic] = map[schemas.TradeKey]bool{}
		}
		c[bic][k] = true
	}
	d := &schemas.Decoder{}
	for _, l := range lines {
		m, rej := d.Decode([]byte(l))
		if rej != nil {
			continue
		}
		k := m.Key.TradeKey()
		add(by[0], m.Key.Broker, k)
		add(by[1], m.Key.InvMgr, k)
		if m.Type == schemas.ALC {
			add(by[2], m.Custodian, k)
		}
	}
	var out [3]string
	for i, c := range by {
		for bic, ks := range c {
			if len(ks) > len(c[out[i]]) || len(ks) == len(c[out[i]]) && bic < out[i] {
				out[i] = bic
			}
		}
		if out[i] == "" {
			t.Fatal("no participant of that role in the set")
		}
	}
	return out[0], out[1], out[2]
}

// rogueSET is a SET of the first line's trade from an ACTIVE custodian that
// is none of its parties, naming itself (signed with its demo key).
func rogueSET(t *testing.T, lines []string, rd *refdata.Set) []byte {
	d := &schemas.Decoder{}
	first, rej := d.Decode([]byte(lines[0]))
	if rej != nil {
		t.Fatal(rej)
	}
	parties := map[string]bool{first.Key.Broker: true, first.Key.InvMgr: true}
	var set string
	for _, l := range lines {
		m, rej := d.Decode([]byte(l))
		if rej != nil || m.Key.TradeKey() != first.Key.TradeKey() {
			continue
		}
		if m.Type == schemas.ALC {
			parties[m.Custodian] = true
		}
		if m.Type == schemas.SET {
			set = l
		}
	}
	var rogue string
	for _, p := range rd.Participants() {
		if p.Roles.Has(refdata.RoleCustodian) && p.Status == refdata.Active && !parties[p.BIC] && (rogue == "" || p.BIC < rogue) {
			rogue = p.BIC
		}
	}
	if set == "" || rogue == "" {
		t.Fatal("no SET or no custodian for the rogue")
	}
	body := regexp.MustCompile(`<Body>(.*)</Body>`).FindStringSubmatch(set)[1]
	dr := &schemas.Draft{MsgId: "ROGUE-SET-1", MsgType: "SET", Function: "NEW", Sender: rogue,
		Created: regexp.MustCompile(`<Created>([^<]*)</Created>`).FindStringSubmatch(set)[1]}
	for _, el := range regexp.MustCompile(`<(\w+)>([^<]*)</\w+>`).FindAllStringSubmatch(body, -1) {
		v := html.UnescapeString(el[2])
		if el[1] == "Custodian" {
			v = rogue
		}
		dr.Body = append(dr.Body, schemas.Pair{Name: el[1], Value: v})
	}
	return append(dr.AppendSigned(nil, refdata.DemoPrivateKey(rogue)), '\n')
}

// redraft reads a message line back into a draft (header and body fields,
// in order), to be changed and signed again.
func redraft(t *testing.T, line string) *schemas.Draft {
	hdr := func(name string) string {
		if m := regexp.MustCompile(`<` + name + `>([^<]*)</` + name + `>`).FindStringSubmatch(line); m != nil {
			return html.UnescapeString(m[1])
		}
		return ""
	}
	d := &schemas.Draft{MsgId: hdr("MsgId"), MsgType: hdr("MsgType"), Function: hdr("Function"), Sender: hdr("Sender"),
		Created: hdr("Created"), RelatedMsgId: hdr("RelatedMsgId")}
	body := regexp.MustCompile(`<Body>(.*)</Body>`).FindStringSubmatch(line)
	if body == nil {
		t.Fatalf("no body: %.200s", line)
	}
	for _, el := range regexp.MustCompile(`<(\w+)>([^<]*)</\w+>`).FindAllStringSubmatch(body[1], -1) {
		d.Body = append(d.Body, schemas.Pair{Name: el[1], Value: html.UnescapeString(el[2])})
	}
	return d
}

func signedLine(d *schemas.Draft) string {
	return string(d.AppendSigned(nil, refdata.DemoPrivateKey(d.Sender)))
}

// owedCopy copies the first trade of the set that pick takes (given its
// key fields and its ALCs' custodians), under its TradeRef and MsgIds with
// suffix, without its NPRs and SETs: its Broker owes the NPRs, its
// custodians the SETs.
func owedCopy(t *testing.T, lines []string, pick func(schemas.Key, []string) bool, suffix string) []string {
	d := &schemas.Decoder{}
	custodians := map[schemas.TradeKey][]string{}
	var order []schemas.TradeKey
	keys := map[schemas.TradeKey]schemas.Key{}
	for _, l := range lines {
		m, rej := d.Decode([]byte(l))
		if rej != nil {
			continue
		}
		k := m.Key.TradeKey()
		if _, ok := keys[k]; !ok {
			order = append(order, k)
			keys[k] = m.Key
		}
		if m.Type == schemas.ALC {
			custodians[k] = append(custodians[k], m.Custodian)
		}
	}
	for _, k := range order {
		if !pick(keys[k], custodians[k]) || len(custodians[k]) == 0 {
			continue
		}
		var out []string
		for _, l := range lines {
			m, rej := d.Decode([]byte(l))
			if rej != nil || m.Key.TradeKey() != k || m.Type == schemas.NPR || m.Type == schemas.SET || !m.Type.IsContent() {
				continue
			}
			dr := redraft(t, l)
			dr.MsgId += suffix
			if dr.RelatedMsgId != "" {
				dr.RelatedMsgId += suffix
			}
			dr.Set("TradeRef", dr.Get("TradeRef")+suffix)
			out = append(out, signedLine(dr))
		}
		return out
	}
	t.Fatalf("no trade for the copy %s", suffix)
	return nil
}

// affirmation is invMgr's AFF of the last confirmation ste match sent it
// (outbound.xml): its MatchDigest and Messages.
func affirmation(t *testing.T, outbound string, invMgr string) string {
	b, err := os.ReadFile(outbound)
	must(t, err)
	// The last CNF to invMgr of each trade; one whose last is a NEW stands.
	last := map[string]string{}
	var order []string
	key := regexp.MustCompile(`<TradeKey>([^<]*)</TradeKey>`)
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, "<MsgType>CNF</MsgType>") && strings.Contains(l, "<Receiver>"+invMgr+"</Receiver>") {
			k := key.FindStringSubmatch(l)[1]
			if _, ok := last[k]; !ok {
				order = append(order, k)
			}
			last[k] = l
		}
	}
	var cnf string
	for _, k := range order {
		if l := last[k]; strings.Contains(l, "<Function>NEW</Function>") && strings.Contains(l, "<InvMgr>"+invMgr+"</InvMgr>") {
			cnf = l
		}
	}
	if cnf == "" {
		t.Fatalf("no standing CNF to %s", invMgr)
	}
	c := redraft(t, cnf)
	d := &schemas.Draft{MsgId: "AFF-" + c.Get("TradeKey"), MsgType: "AFF", Function: "NEW", Sender: invMgr,
		Created: "2026-11-02T12:00:00.000Z"}
	for _, f := range []string{"TradeRef", "TradeDate", "ISIN", "Side", "Broker", "InvMgr"} {
		d.Body = append(d.Body, schemas.Pair{Name: f, Value: c.Get(f)})
	}
	d.Body = append(d.Body, schemas.Pair{Name: "Decision", Value: "AFFIRM"}, schemas.Pair{Name: "MatchDigest", Value: c.Get("MatchDigest")},
		schemas.Pair{Name: "Affirms", Value: c.Get("Messages")})
	return signedLine(d)
}
