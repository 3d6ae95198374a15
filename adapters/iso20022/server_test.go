package iso20022

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/adapters"
	"github.com/ste-utility/ste/gateway"
	"github.com/ste-utility/ste/internal/testing/brokertest"
	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topology"
)

// notEnabled is a custodian whose signers do not list STEUTLSGISO.
const notEnabled = "NOTISOSGXXX"

type rig struct {
	t       *testing.T
	url     string
	metrics string // GET /metrics
	ns      string
	names   topology.Names
	cl      *kgo.Client
	conn    kafkaconn.Config
}

// startRig runs an embedded broker, the namespace's topics, the default
// reference data (with one custodian not enabled) and one instance.
func startRig(t *testing.T) *rig {
	t.Helper()
	addr, dial := brokertest.Start(t)
	cl := brokertest.Client(t, dial)
	ns := fmt.Sprintf("iso%d", time.Now().UnixNano()%1e6)
	ctx := t.Context()
	if _, err := topics.Create(ctx, kadm.NewClient(cl), ns, topics.Options{Partitions: 2, Replication: 1}); err != nil {
		t.Fatal(err)
	}
	set := refdata.Default().Clone()
	p, _ := set.Participant(cust)
	p.BIC, p.Signers, p.Keys = notEnabled, []string{refdata.FIXSignerBIC}, nil
	p.Keys = append(p.Keys, refdata.DemoPublicKey(notEnabled))
	set.PutParticipant(p)
	if _, err := topics.PublishRefdata(ctx, cl, ns, set); err != nil {
		t.Fatal(err)
	}
	r := &rig{t: t, ns: ns, names: topology.Names{NS: ns}, cl: cl, conn: kafkaconn.Plaintext(addr)}
	r.start(ctx)
	return r
}

func (r *rig) start(ctx context.Context) string {
	urls := make(chan string, 1)
	sctx, cancel := context.WithCancel(ctx)
	r.t.Cleanup(cancel)
	free, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		r.t.Fatal(err)
	}
	maddr := free.Addr().String()
	free.Close()
	r.metrics = "http://" + maddr + "/metrics"
	go Serve(sctx, Options{Kafka: r.conn, Namespace: r.ns, Addr: "127.0.0.1:0", MetricsAddr: maddr, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Signer: &adapters.Signer{BIC: refdata.ISOSignerBIC, Key: refdata.DemoPrivateKey(refdata.ISOSignerBIC), Demo: true}},
		func(u string) { urls <- u })
	u := <-urls
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(u + "/v1/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			r.t.Fatal("not ready in 30 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	r.url = u
	return u
}

type answer struct {
	status int
	ctype  string
	body   string
}

func (r *rig) do(method, path, bic string, body []byte, ctype string) answer {
	r.t.Helper()
	req, _ := http.NewRequest(method, r.url+path, bytes.NewReader(body))
	for k, v := range gateway.SignedHeaders(method, r.url+path, body, bic, refdata.DemoPrivateKey(bic), time.Now()) {
		req.Header[k] = v
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, resp.Header.Get("Content-Type"), string(b)}
}

func (r *rig) post(bic string, body []byte) answer {
	return r.do("POST", "/v1/iso20022/messages", bic, body, "application/xml")
}

// count is the number of records on topic now.
func (r *rig) count(topic string) int64 {
	ends, err := kadm.NewClient(r.cl).ListEndOffsets(r.t.Context(), topic)
	if err != nil {
		r.t.Fatal(err)
	}
	var n int64
	ends.Each(func(o kadm.ListedOffset) { n += o.Offset })
	return n
}

func (r *rig) published() [3]int64 {
	return [3]int64{r.count(r.names.Inbound()), r.count(r.names.AdaptersOrigin()), r.count(r.names.AdaptersJournal())}
}

func (r *rig) records(topic string) []*kgo.Record {
	var out []*kgo.Record
	_, err := topics.Dump(r.t.Context(), r.conn, topic, func(rec *kgo.Record) error { out = append(out, rec); return nil })
	if err != nil {
		r.t.Fatal(err)
	}
	return out
}

func header(rec *kgo.Record, k string) string {
	for _, h := range rec.Headers {
		if h.Key == k {
			return string(h.Value)
		}
	}
	return ""
}

// mutate is the worked example's sese.023 with old replaced by new.
func mutate(t *testing.T, pairs ...string) []byte {
	b := string(exampleDoc(t, "sese.023-in-SET-NEW.xml"))
	for i := 0; i < len(pairs); i += 2 {
		if !strings.Contains(b, pairs[i]) {
			t.Fatalf("%q not in the example", pairs[i])
		}
		b = strings.Replace(b, pairs[i], pairs[i+1], 1)
	}
	return []byte(b)
}

func TestServer(t *testing.T) {
	r := startRig(t)

	t.Run("refuses to start when the signer's row lacks the key's public half", func(t *testing.T) {
		errc := make(chan error, 1)
		go func() {
			errc <- Serve(t.Context(), Options{Kafka: r.conn, Namespace: r.ns, Addr: "127.0.0.1:0", Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
				Signer: &adapters.Signer{BIC: refdata.ISOSignerBIC, Key: refdata.DemoPrivateKey("SOMEONEELSE")}}, nil)
		}()
		select {
		case err := <-errc:
			if err == nil || !strings.Contains(err.Error(), "signer STEUTLSGISO") {
				t.Fatalf("%v", err)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("still running after 30 s")
		}
	})
	ex := exampleDoc(t, "sese.023-in-SET-NEW.xml")

	t.Run("worked example byte for byte (§5.4)", func(t *testing.T) {
		before := r.published()
		a := r.post(cust, ex)
		if a.status != 202 {
			t.Fatalf("%d %s", a.status, a.body)
		}
		var acc Accepted
		if err := json.Unmarshal([]byte(a.body), &acc); err != nil || len(acc.Accepted) != 1 || len(acc.MsgIds) != 1 || acc.MsgIds[0] != "S1:CUST_2F2026_2F000123" {
			t.Fatalf("202 body %s", a.body)
		}
		after := r.published()
		if after[0]-before[0] != 1 || after[1]-before[1] != 1 || after[2]-before[2] != 1 {
			t.Fatalf("inbound, origin, journal records: %v -> %v", before, after)
		}
		var rec *kgo.Record
		for _, x := range r.records(r.names.Inbound()) {
			if x.Partition == acc.Accepted[0].Partition && x.Offset == acc.Accepted[0].Offset {
				rec = x
			}
		}
		if rec == nil {
			t.Fatal("the 202's record is not on inbound")
		}
		if s := sha256.Sum256(rec.Value); hex.EncodeToString(s[:]) != "2a761ecda0d5f7fb0b1420db48fc0a5d612de6c4fa3e238d017ccb7ddc40c5ed" {
			t.Fatalf("record %s", rec.Value)
		}
		osum := sha256.Sum256(ex)
		if string(rec.Key) != cust || header(rec, "ste-participant") != cust || header(rec, "ste-adapter") != "iso20022" ||
			header(rec, "ste-origin-sha256") != hex.EncodeToString(osum[:]) || !regexp.MustCompile(`^AFKZSGSGXXX:[A-Za-z0-9_-]+$`).MatchString(header(rec, "ste-origin-ref")) ||
			header(rec, "ste-origin-possdup") != "" {
			t.Fatalf("key %s headers %v", rec.Key, rec.Headers)
		}
		found := false
		for _, o := range r.records(r.names.AdaptersOrigin()) {
			found = found || string(o.Key) == hex.EncodeToString(osum[:]) && bytes.Equal(o.Value, ex)
		}
		if !found {
			t.Fatal("the original bytes are not on the origin topic")
		}
		// The same body again (signed anew): an exact duplicate.
		if a := r.post(cust, ex); a.status != 202 {
			t.Fatalf("resend: %d %s", a.status, a.body)
		}
		var last *kgo.Record
		for _, x := range r.records(r.names.Inbound()) {
			last = x
		}
		if !bytes.Equal(last.Value, rec.Value) {
			t.Fatal("a resend gave other bytes")
		}
	})

	t.Run("bad input answered as the contract names, nothing published", func(t *testing.T) {
		deep := `<?xml version="1.0"?><Document xmlns="` + NSSese023 + `"><SctiesSttlmTxInstr><TxId>T1</TxId>` +
			strings.Repeat("<a>", 63) + strings.Repeat("</a>", 63) + `</SctiesSttlmTxInstr></Document>`
		big := (mutate(t, "</SctiesSttlmTxInstr>", "<SplmtryData>"+strings.Repeat("x", MaxBody)+"</SplmtryData></SctiesSttlmTxInstr>"))
		for _, c := range []struct {
			name, ctype, bic string
			body             []byte
			status           int
			want             string
		}{
			{"oversize", "application/xml", cust, big, 413, `{"error":"too_large"}`},
			{"media type", "text/plain", cust, ex, 415, `{"error":"unsupported_media_type"}`},
			{"no media type", "", cust, ex, 415, `{"error":"unsupported_media_type"}`},
			{"not well-formed", "application/xml", cust, ex[:len(ex)-20], 400, `{"error":"malformed"}`},
			{"DOCTYPE", "application/xml", cust, []byte(`<?xml version="1.0"?><!DOCTYPE Document [<!ENTITY x "y">]>` + string(ex[strings.Index(string(ex), "<Document"):])), 400, `{"error":"malformed"}`},
			{"deep nesting", "application/xml", cust, []byte(deep), 400, `{"error":"malformed"}`},
			{"root not Document", "application/xml", cust, []byte(strings.ReplaceAll(string(ex), "Document", "Doc")), 400, `{"error":"malformed"}`},
			{"two children", "application/xml", cust, mutate(t, "</Document>", "<SctiesSttlmTxInstr/></Document>"), 400, `{"error":"malformed"}`},
			{"another version", "application/xml", cust, mutate(t, "sese.023.001.11", "sese.023.001.10"), 400, `{"error":"unsupported_message"}`},
			{"another message", "application/xml", cust, mutate(t, "sese.023.001.11", "sese.030.001.09"), 400, `{"error":"unsupported_message"}`},
			{"no namespace", "application/xml", cust, mutate(t, ` xmlns="urn:iso:std:iso:20022:tech:xsd:sese.023.001.11"`, ""), 400, `{"error":"unsupported_message"}`},
			{"missing TxId", "application/xml", cust, mutate(t, "<TxId>CUST/2026/000123</TxId>", ""), 400, `{"error":"malformed"}`},
			{"empty TxId", "application/xml", cust, mutate(t, "<TxId>CUST/2026/000123</TxId>", "<TxId></TxId>"), 400, `{"error":"malformed"}`},
			{"TxId of 36", "application/xml", cust, mutate(t, "CUST/2026/000123", strings.Repeat("T", 36)), 400, `{"error":"malformed"}`},
			{"not enabled", "application/xml", notEnabled, ex, 403, `{"error":"not_enabled"}`},
		} {
			before := r.published()
			a := r.do("POST", "/v1/iso20022/messages", c.bic, c.body, c.ctype)
			if a.status != c.status || strings.TrimSpace(a.body) != c.want {
				t.Errorf("%s: %d %s, want %d %s", c.name, a.status, a.body, c.status, c.want)
			}
			if after := r.published(); after != before {
				t.Errorf("%s: published %v -> %v", c.name, before, after)
			}
		}
		// A TxId of 35 characters is fine (escaped past 64: the hash form).
		if a := r.post(cust, mutate(t, "CUST/2026/000123", strings.Repeat("/", 35))); a.status != 202 || !strings.Contains(a.body, `"S1::`) {
			t.Errorf("35 characters: %d %s", a.status, a.body)
		}
		// Routed before authenticated: 404 and 405 without a signature; then 401.
		for _, c := range []struct {
			method, path string
			status       int
		}{{"GET", "/v1/iso20022/nope", 404}, {"GET", "/v1/iso20022/messages", 405}, {"POST", "/v1/iso20022/outputs", 405}, {"POST", "/v1/iso20022/messages", 401}} {
			resp, err := http.Post(r.url+c.path, "application/xml", bytes.NewReader(ex))
			if c.method == "GET" {
				resp, err = http.Get(r.url + c.path)
			}
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != c.status {
				t.Errorf("%s %s: %d, want %d", c.method, c.path, resp.StatusCode, c.status)
			}
		}
	})

	t.Run("no byte of a stranger's body is read", func(t *testing.T) {
		// Headers signed by another key, a body declared and never sent:
		// the answer comes without waiting for it.
		target := r.url + "/v1/iso20022/messages"
		h := gateway.SignedHeaders("POST", target, ex, cust, refdata.DemoPrivateKey("SOMEONEELSE"), time.Now())
		conn, err := net.Dial("tcp", strings.TrimPrefix(r.url, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		req := "POST /v1/iso20022/messages HTTP/1.1\r\nHost: " + strings.TrimPrefix(r.url, "http://") +
			"\r\nContent-Type: application/xml\r\nContent-Length: " + fmt.Sprint(len(ex)) + "\r\n"
		for k, v := range h {
			req += k + ": " + v[0] + "\r\n"
		}
		fmt.Fprint(conn, req+"\r\n")
		conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		line, err := bufio.NewReader(conn).ReadString('\n')
		if err != nil || !strings.HasPrefix(line, "HTTP/1.1 401") {
			t.Fatalf("%q %v", line, err)
		}
	})

	t.Run("a nonce used at the gateway's nonce space is replayed here", func(t *testing.T) {
		path := "/v1/iso20022/outputs"
		h := gateway.SignedHeaders("GET", r.url+path, nil, cust, refdata.DemoPrivateKey(cust), time.Now())
		for i, want := range []int{200, 401} {
			req, _ := http.NewRequest("GET", r.url+path, nil)
			for k, v := range h {
				req.Header[k] = v
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != want || i == 1 && !strings.Contains(string(b), `"replayed"`) {
				t.Errorf("use %d: %d %s", i+1, resp.StatusCode, b)
			}
		}
	})

	t.Run("profile rows (§5.3): one 422 per broken row, nothing published", func(t *testing.T) {
		for _, c := range []struct {
			row   string
			body  []byte
			codes []string
		}{
			{"P1", mutate(t, "<TradId>BT-20261127-0001</TradId>", ""), []string{"OTHR TradDtls/TradId"}},
			{"P2 DtCd", mutate(t, "<TradDt><Dt><Dt>2026-11-27</Dt></Dt></TradDt>", "<TradDt><DtCd><Cd>VARI</Cd></DtCd></TradDt>"), []string{"DTRD TradDtls/TradDt/Dt"}},
			{"P2 form", mutate(t, "<Dt>2026-11-27</Dt>", "<Dt>27/11/2026</Dt>"), []string{"DTRD TradDtls/TradDt/Dt"}},
			{"P3", mutate(t, "<SttlmDt><Dt><Dt>2026-11-30</Dt></Dt></SttlmDt>", ""), []string{"DDAT TradDtls/SttlmDt/Dt"}},
			{"P4", mutate(t, "<FinInstrmId><ISIN>SG1A01315179</ISIN></FinInstrmId>", "<FinInstrmId><OthrId><Id>X</Id></OthrId></FinInstrmId>"), []string{"DSEC FinInstrmId/ISIN"}},
			{"P5 FaceAmt", mutate(t, "<Qty><Unit>6000</Unit></Qty>", "<Qty><FaceAmt>6000</FaceAmt></Qty>"), []string{"DQUA QtyAndAcctDtls/SttlmQty/Qty/Unit"}},
			{"P5 not a number", mutate(t, "<Unit>6000</Unit>", "<Unit>6e3</Unit>"), []string{"DQUA QtyAndAcctDtls/SttlmQty/Qty/Unit"}},
			{"P6 FREE", mutate(t, "<Pmt>APMT</Pmt>", "<Pmt>FREE</Pmt>"), []string{"DMON SttlmTpAndAddtlParams/Pmt"}},
			{"P6 direction", mutate(t, "<CdtDbtInd>DBIT</CdtDbtInd>", "<CdtDbtInd>CRDT</CdtDbtInd>"), []string{"DMON SttlmTpAndAddtlParams/Pmt"}},
			{"P6 no Ccy", mutate(t, `<Amt Ccy="SGD">`, `<Amt>`), []string{"DMON SttlmTpAndAddtlParams/Pmt"}},
			{"P7", mutate(t, "<Cd>TRAD</Cd>", "<Cd>REPU</Cd>"), []string{"SETR SttlmParams/SctiesTxTp/Cd"}},
			{"P8", mutate(t, "<AcctOwnr><Id><AnyBIC>AQGOSGSG</AnyBIC></Id></AcctOwnr>", ""), []string{"OTHR QtyAndAcctDtls/AcctOwnr/Id/AnyBIC"}},
			{"P9", mutate(t, "<Brkr><Id><AnyBIC>AMPFSGSGMHX</AnyBIC></Id></Brkr>", ""), []string{"OTHR OthrBizPties/Brkr/Id/AnyBIC"}},
			{"P10 two", mutate(t, "<Invstr>", "<Invstr><Id><PrtryId><Id>ACC2</Id><Issr>X</Issr></PrtryId></Id></Invstr><Invstr>"), []string{"OTHR OthrBizPties/Invstr"}},
			{"P10 no PrtryId", mutate(t, "<PrtryId><Id>ACC1</Id><Issr>AQGOSGSG</Issr></PrtryId>", "<AnyBIC>AQGOSGSG</AnyBIC>"), []string{"OTHR OthrBizPties/Invstr"}},
			{"P11", mutate(t, "<SfkpgAcct><Id>SAFE-778899</Id></SfkpgAcct>", ""), []string{"SAFE QtyAndAcctDtls/SfkpgAcct/Id"}},
			{"P12", mutate(t, "<CshAcct><Prtry>CASH-112233</Prtry></CshAcct>", ""), []string{"CASH QtyAndAcctDtls/CshAcct"}},
			{"P13 none", mutate(t, "<Dpstry><Id><AnyBIC>CDPLSGSGXXX</AnyBIC></Id></Dpstry>", ""), []string{"DEPT Dpstry/Id/AnyBIC"}},
			{"P13 differ", mutate(t, "</DlvrgSttlmPties>", "</DlvrgSttlmPties><RcvgSttlmPties><Dpstry><Id><AnyBIC>CDPLSGSGYYY</AnyBIC></Id></Dpstry></RcvgSttlmPties>"), []string{"DEPT Dpstry/Id/AnyBIC"}},
			{"P14", mutate(t, "<Id>ACC1</Id>", "<Id>"+strings.Repeat(">", 17000)+"</Id>"), []string{"OTHR TOO_LARGE"}},
			{"P15", mutate(t, "<SctiesMvmntTp>RECE</SctiesMvmntTp>", "<SctiesMvmntTp>XXXX</SctiesMvmntTp>"), []string{"OTHR SttlmTpAndAddtlParams/SctiesMvmntTp"}},
			{"P7 and P11 (the 422 example's rows, in table order)", mutate(t, "<Cd>TRAD</Cd>", "<Cd>REPU</Cd>", "<SfkpgAcct><Id>SAFE-778899</Id></SfkpgAcct>", ""),
				[]string{"SETR SttlmParams/SctiesTxTp/Cd", "SAFE QtyAndAcctDtls/SfkpgAcct/Id"}},
		} {
			before := r.published()
			a := r.post(cust, c.body)
			if a.status != 422 || a.ctype != "application/xml" {
				t.Errorf("%s: %d %s %s", c.row, a.status, a.ctype, a.body)
				continue
			}
			var got []string
			for _, m := range regexp.MustCompile(`<Rsn><Cd><Cd>(\w+)</Cd></Cd><AddtlRsnInf>([^<]*)</AddtlRsnInf></Rsn>`).FindAllStringSubmatch(a.body, -1) {
				got = append(got, m[1]+" "+m[2])
			}
			if strings.Join(got, "|") != strings.Join(c.codes, "|") || !strings.Contains(a.body, "<TxId><AcctOwnrTxId>CUST/2026/000123</AcctOwnrTxId></TxId><PrcgSts><Rjctd>") {
				t.Errorf("%s: reasons %v, want %v\n%s", c.row, got, c.codes, a.body)
			}
			keep(a.body)
			if after := r.published(); after != before {
				t.Errorf("%s: published %v -> %v", c.row, before, after)
			}
		}
		// The 422 example itself (CUST/2026/000124 with P7 and P11 broken).
		a := r.post(cust, mutate(t, "CUST/2026/000123", "CUST/2026/000124", "<Cd>TRAD</Cd>", "<Cd>REPU</Cd>", "<SfkpgAcct><Id>SAFE-778899</Id></SfkpgAcct>", ""))
		if a.body != example(t, "sese.024-out-REJECT-422.xml") {
			t.Errorf("422 example: %s", a.body)
		}
		// A DtTm with an offset: Created in UTC, TradeDate the local date.
		if a := r.post(cust, mutate(t, "CUST/2026/000123", "CUST/DTTM/1", "<Dt><Dt>2026-11-27</Dt></Dt></TradDt>", "<Dt><DtTm>2026-11-27T07:15:00.123456+08:00</DtTm></Dt></TradDt>")); a.status != 202 {
			t.Fatalf("DtTm: %d %s", a.status, a.body)
		}
		recs := r.records(r.names.Inbound())
		last := string(recs[len(recs)-1].Value)
		if !strings.Contains(last, "<Created>2026-11-26T23:15:00.123Z</Created>") || !strings.Contains(last, "<TradeDate>2026-11-27</TradeDate>") {
			t.Errorf("DtTm record %s", last)
		}
	})

	t.Run("sese.020: unknown TxId 422, known TxId a SET CANCEL", func(t *testing.T) {
		cx := exampleDoc(t, "sese.020-in-SET-CANCEL.xml")
		before := r.published()
		a := r.post(cust, []byte(strings.ReplaceAll(string(cx), "CUST/2026/000123", "CUST/2026/000999")))
		if a.status != 422 || a.body != example(t, "sese.027-out-CANCEL-REJECT.xml") {
			t.Fatalf("unknown TxId: %d %s", a.status, a.body)
		}
		keep(a.body)
		// Another participant's TxId is unknown too.
		if a := r.post("AQGOSGSG", cx); a.status != 422 {
			t.Errorf("another participant's TxId: %d %s", a.status, a.body)
		}
		if after := r.published(); after != before {
			t.Fatalf("published %v -> %v", before, after)
		}
		a = r.post(cust, cx)
		if a.status != 202 || !strings.Contains(a.body, `"msg_ids":["X1:CUST_2F2026_2F000123"]`) {
			t.Fatalf("cancel: %d %s", a.status, a.body)
		}
		recs := r.records(r.names.Inbound())
		const want = `<Msg><Header><MsgId>X1:CUST_2F2026_2F000123</MsgId><MsgType>SET</MsgType><Function>CANCEL</Function><Sender>AFKZSGSGXXX</Sender><Signer>STEUTLSGISO</Signer><Created>2026-11-27T00:00:00.000Z</Created><RelatedMsgId>S1:CUST_2F2026_2F000123</RelatedMsgId></Header><Body><TradeRef>BT-20261127-0001</TradeRef><TradeDate>2026-11-27</TradeDate><ISIN>SG1A01315179</ISIN><Side>BUY</Side><Broker>AMPFSGSGMHX</Broker><InvMgr>AQGOSGSG</InvMgr><Custodian>AFKZSGSGXXX</Custodian></Body><Sig alg="ed25519">`
		if got := string(recs[len(recs)-1].Value); !strings.HasPrefix(got, want) {
			t.Fatalf("CANCEL record %s", got)
		}
	})

	t.Run("outputs: STE's answers come back as ISO documents by cursor", func(t *testing.T) {
		// The utility's outputs for the example's SET, as ste process writes
		// them (constructed here; the e2e suite runs the real pipeline).
		ack := answerOut("ACK", "ACK:"+cust+":S1:CUST_2F2026_2F000123", "S1:CUST_2F2026_2F000123", "")
		st := stOut("MATCHED", "")
		other := []byte(strings.ReplaceAll(string(stOut("MATCHED", "")), cust, "AQGOSGSG"))
		for _, v := range [][]byte{ack, other, st} {
			key := cust
			if bytes.Equal(v, other) {
				key = "AQGOSGSG"
			}
			if err := r.cl.ProduceSync(t.Context(), &kgo.Record{Topic: r.names.Outbound(), Key: []byte(key), Value: v}).FirstErr(); err != nil {
				t.Fatal(err)
			}
		}
		var got []OutputJSON
		cursor := ""
		poll := func(wait string) {
			q := "/v1/iso20022/outputs?wait=" + wait
			if cursor != "" {
				q += "&after=" + cursor
			}
			a := r.do("GET", q, cust, nil, "")
			if a.status != 200 {
				t.Fatalf("%d %s", a.status, a.body)
			}
			var page struct {
				Outputs []OutputJSON `json:"outputs"`
				Next    string       `json:"next"`
			}
			if err := json.Unmarshal([]byte(a.body), &page); err != nil || page.Next == "" {
				t.Fatalf("%v %s", err, a.body)
			}
			got, cursor = append(got, page.Outputs...), page.Next
		}
		deadline := time.Now().Add(30 * time.Second)
		// The MATCHED goes to each current ISO-origin SET NEW of the
		// custodian in the trade, in MsgId byte order: the hash-form one and
		// the DtTm one posted above (same key fields), not the example's,
		// which the sese.020 above cancelled (its CANCEL stands, §1).
		for len(got) < 3 && time.Now().Before(deadline) {
			poll("5")
		}
		poll("2")
		var txids []string
		for _, o := range got {
			txids = append(txids, o.TxId)
		}
		if want := []string{"CUST/2026/000123", strings.Repeat("/", 35), "CUST/DTTM/1"}; strings.Join(txids, "|") != strings.Join(want, "|") {
			t.Fatalf("outputs for %v, want %v", txids, want)
		}
		if got[0].XML != example(t, "sese.024-out-ACK.xml") || got[0].MsgDef != DefSese024 || got[0].SourceMsgId != "ACK:"+cust+":S1:CUST_2F2026_2F000123" {
			t.Fatalf("ACK %+v", got[0])
		}
		if strings.Contains(got[1].XML, "<AcctSvcrTxId>") || !strings.Contains(got[2].XML, "<AcctSvcrTxId>S1:CUST_2FDTTM_2F1</AcctSvcrTxId><MktInfrstrctrTxId>"+tk+"</MktInfrstrctrTxId></TxId><MtchgSts><Mtchd/></MtchgSts>") {
			t.Fatalf("MATCHED %+v", got[1:])
		}
		// Another participant reading gets nothing of AFKZSGSGXXX's.
		a := r.do("GET", "/v1/iso20022/outputs", "AQGOSGSG", nil, "")
		if a.status != 200 || strings.Contains(a.body, cust) {
			t.Errorf("isolation: %d %s", a.status, a.body)
		}
		for _, o := range got {
			keep(o.XML)
		}
	})

	t.Run("/metrics counts requests, documents and outputs, and names no participant", func(t *testing.T) {
		resp, err := http.Get(r.metrics)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		body := string(b)
		value := func(series string) float64 {
			m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` (\S+)$`).FindStringSubmatch(body)
			if m == nil {
				t.Errorf("no series %s", series)
				return 0
			}
			var v float64
			fmt.Sscan(m[1], &v)
			return v
		}
		// What the subtests above did: the worked example accepted twice,
		// a sese.020 accepted, profile rows refused, outputs translated.
		if v := value(`ste_iso20022_documents_total{msg_def="sese.023",outcome="accepted"}`); v < 2 {
			t.Errorf("sese.023 accepted %v, want ≥ 2", v)
		}
		if v := value(`ste_iso20022_documents_total{msg_def="sese.023",outcome="rejected"}`); v < 1 {
			t.Errorf("sese.023 rejected %v, want ≥ 1", v)
		}
		if v := value(`ste_iso20022_documents_total{msg_def="sese.020",outcome="accepted"}`); v < 1 {
			t.Errorf("sese.020 accepted %v, want ≥ 1", v)
		}
		if v := value(`ste_iso20022_requests_total{code="202",route="messages"}`); v < 3 {
			t.Errorf("202s %v", v)
		}
		if v := value(`ste_iso20022_requests_total{code="401",route="messages"}`); v < 1 {
			t.Errorf("401s %v", v)
		}
		if v := value(`ste_iso20022_outputs_total{msg_def="sese.024"}`); v < 3 {
			t.Errorf("sese.024 outputs %v, want ≥ 3", v)
		}
		if v := value(`ste_iso20022_publish_seconds_count`); v < 3 {
			t.Errorf("publish observations %v", v)
		}
		if value(`ste_iso20022_ready`) != 1 || value(`ste_iso20022_records_published_total`) < 3 {
			t.Error("ready or published wrong")
		}
		if strings.Contains(body, cust) || strings.Contains(body, "SGSG") {
			t.Error("a participant named in the metrics")
		}
	})
}
