package conformance

// The adversarial suite, record half (issue 15): hostile inbound records —
// hostile XML, signature attacks, replays, amplification, impossible dates —
// each ending with the contract's code, nothing lost, and valid trades still
// matching afterwards. The same probes go through `ste match` here and
// through the broker in adversarial_broker_test.go.

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// probe is one hostile record and the code it must end with ("" = ACKed;
// "DUP" = an exact duplicate: ACKed again, no exception).
type probe struct {
	name, line, reason string
}

// nested wraps an empty element in n levels of <X>.
func nested(n int) string {
	return strings.Repeat("<X>", n) + strings.Repeat("</X>", n)
}

// nonCanonicalB64 flips padding bits of a padded base64 string: standard
// decoders that are not strict accept it, the contract's base64 does not.
func nonCanonicalB64(s string) string {
	const alpha = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	i := strings.IndexByte(s, '=') - 1
	v := strings.IndexByte(alpha, s[i])
	return s[:i] + string(alpha[v|1]) + s[i+1:]
}

// hostileRecords returns the probes, each on its own trade (prefix p keeps
// runs apart), then a valid trade's messages that must still match.
func hostileRecords(p string) (probes []probe, valid *Trade) {
	tr := func(ref string) *Trade { return oneAllocTrade(p + ref) }
	add := func(name, reason string, m *Msg) { probes = append(probes, probe{name, m.Line(), reason}) }
	addLine := func(name, reason, line string) { probes = append(probes, probe{name, line, reason}) }

	// ---- hostile XML
	laughs := `<!DOCTYPE Msg [<!ENTITY a "aaaaaaaaaa">` +
		`<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">` +
		`<!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;"><!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;">]>`
	m := tr("LAUGHS").NOE().SetRaw("TradeRef", "&e;")
	m.Pre = laughs
	add("entity expansion (billion laughs)", "MALFORMED", m)
	m = tr("XXE").NOE().SetRaw("TradeRef", "&x;")
	m.Pre = `<!DOCTYPE Msg [<!ENTITY x SYSTEM "file:///etc/passwd">]>`
	add("external entity", "MALFORMED", m)
	m = tr("PARAM").NOE()
	m.Pre = `<!DOCTYPE Msg [<!ENTITY % p SYSTEM "http://127.0.0.1:1/x.dtd"> %p;]>`
	add("external parameter entity", "MALFORMED", m)
	m = tr("DOCTYPE").NOE()
	m.Pre = `<!DOCTYPE Msg>`
	add("bare DOCTYPE", "MALFORMED", m)
	m = tr("DEPTH64").NOE()
	m.Tail = nested(63) // <Msg> is level 1: 64 levels in all
	add("nesting of exactly 64 levels", "", m)
	m = tr("DEPTH65").NOE()
	m.Tail = nested(64)
	add("nesting of 65 levels", "MALFORMED", m)
	m = tr("DEPTHBODY").NOE()
	m.Body = append(m.Body, F{N: "!deep", V: nested(63)}) // Body is level 2: 65 levels
	add("nesting of 65 levels inside the signed Body", "MALFORMED", m)
	m = tr("DEEP").NOE()
	m.Tail = nested(8000)
	add("nesting of 8000 levels", "MALFORMED", m)
	m = tr("UTF8").NOE().SetRaw("TradeRef", "T\xff\xfe1")
	add("invalid UTF-8", "MALFORMED", m)
	m = tr("NUL").NOE().SetRaw("TradeRef", "T\x001")
	add("NUL byte", "MALFORMED", m)
	m = tr("NULREF").NOE().SetRaw("TradeRef", "T&#0;1")
	add("NUL character reference", "MALFORMED", m)
	var attrs strings.Builder
	for i := 0; i < 5000; i++ {
		fmt.Fprintf(&attrs, ` a%d="%d"`, i, i)
	}
	m = tr("ATTRS").NOE()
	m.Tail = "<Ext" + attrs.String() + "/>"
	add("5000 attributes on an unknown element", "", m)
	m = tr("DUPATTR").NOE()
	m.Tail = `<Ext a="1" a="2"/>`
	add("duplicate attribute", "MALFORMED", m)
	m = tr("BIG").NOE()
	m.Tail = "<Pad>" + strings.Repeat("x", 100<<10) + "</Pad>"
	add("100 KiB record", "TOO_LARGE", m)

	// ---- signature attacks
	m = tr("RESIGN").NOE()
	m.SignAs = BRK8
	add("re-signed with another participant's key", "SIGNATURE", m)
	orig := tr("ALTER").NOE()
	sig := signB64(BRK, []byte(orig.SignedRegion()))
	m = orig.Clone().Set("Created", ts(baseTime.Add(-time.Hour)))
	m.SigText = &sig
	add("header altered after signing", "SIGNATURE", m)
	orig = tr("WRAP").NOE()
	sig = signB64(BRK, []byte(orig.SignedRegion()))
	m = orig.Clone().Set("Quantity", "999999")
	m.Head = "<Wrap>" + orig.SignedRegion() + "</Wrap>"
	m.SigText = &sig
	add("signed range wrapped in an unknown element, other content outside", "SIGNATURE", m)
	line := tr("COMMENT").NOE().Line()
	addLine("comment inserted into the signed range", "SIGNATURE", strings.Replace(line, "<Header>", "<Header><!-- x -->", 1))
	m = tr("B64").NOE()
	good := signB64(BRK, []byte(m.SignedRegion()))
	nc := nonCanonicalB64(good)
	m.SigText = &nc
	add("non-canonical base64 signature", "SIGNATURE", m)
	m = tr("B64URL").NOE()
	url := strings.NewReplacer("+", "-", "/", "_").Replace(signB64(BRK, []byte(m.SignedRegion())))
	if !strings.ContainsAny(url, "-_") {
		url = "-" + url[1:] // make sure it is not also standard base64
	}
	m.SigText = &url
	add("base64url signature", "SIGNATURE", m)
	m = tr("ALGNONE").NOE()
	m.SigAlg, m.SigText = sp("none"), sp("")
	add(`alg="none" and no signature`, "SIGNATURE", m)

	// ---- replays of another sender's message under another key
	victim := tr("REPLAY").NOE()
	stolen := victim.Clone().Set("Sender", BRK8)
	stolen.SigText = sp(signB64(BRK, []byte(victim.SignedRegion())))
	add("another sender's message, its signature kept", "SIGNATURE", stolen)
	stolen = victim.Clone().Set("Sender", BRK8)
	add("another sender's message re-signed by the new sender", "NOT_AUTHORISED", stolen)
	add("the victim's message itself", "", victim)
	add("the victim's message replayed", "DUP", victim)

	// ---- amplification and impossible dates
	long := tr("AMP").NOE().Set("MsgId", strings.Repeat("M", 63<<10))
	add("63 KiB MsgId", "SCHEMA", long)
	long = tr("AMPU").NOE().Set("MsgId", strings.Repeat("é", 20<<10))
	add("20 Ki two-byte characters of MsgId", "SCHEMA", long)
	m = tr("AMPALG").NOE()
	m.SigAlg = sp(strings.Repeat("z", 60<<10))
	add("60 KiB signature algorithm", "SIGNATURE", m)
	addLine("60 KiB root element name", "MALFORMED", "<"+strings.Repeat("R", 60<<10)+"/>")
	add("Created in 9999", "BAD_DATE", tr("Y9999").NOE().Set("Created", "9999-12-31T23:59:59Z"))
	add("Created one second past 2262-04-11T23:47:16Z", "BAD_DATE", tr("Y2262").NOE().Set("Created", "2262-04-11T23:47:17Z"))
	add("Created in year 1", "BAD_DATE", tr("Y0001").NOE().Set("Created", "0001-01-01T00:00:00Z"))

	return probes, stdTrade(p + "VALID")
}

// TestAdversarial_HostileRecords_Match sends every probe through ste match.
func TestAdversarial_HostileRecords_Match(t *testing.T) {
	probes, valid := hostileRecords("ADVM-")
	var in []string
	for _, p := range probes {
		in = append(in, p.line)
	}
	in = append(in, lines(valid.All()...)...)
	r := runMatch(t, in)
	for i, p := range probes {
		got := r.Reason(i + 1)
		want := p.reason
		if want == "DUP" {
			want = ""
		}
		if got != want {
			t.Errorf("%s: code %q, want %q", p.name, got, want)
		}
	}
	if len(r.CLSFor(valid.Key())) != 1 {
		t.Errorf("the valid trade after the probes did not match:\n%s", r.dump())
	}
	checkBoundedEchoes(t, r.ExcRaw, r.OutRaw)
}

// checkBoundedEchoes holds exceptions and outputs to docs/spec/messages.md §6: values
// echoed from a record are cut to 128 characters, so nothing amplifies it.
func checkBoundedEchoes(t *testing.T, excs, outs string) {
	t.Helper()
	for _, l := range splitLines(excs) {
		var e map[string]any
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("exception is not JSON: %.200s", l)
		}
		for _, k := range []string{"msg_id", "sender"} {
			if s, _ := e[k].(string); utf8.RuneCountInString(s) > 128 || !utf8.ValidString(s) {
				t.Errorf("exception %v: %s of %d characters, want at most 128", e["id"], k, utf8.RuneCountInString(s))
			}
		}
		if d, _ := e["detail"].(string); utf8.RuneCountInString(d) > 128+400 || !utf8.ValidString(d) {
			t.Errorf("exception %v: detail of %d characters: %.300s", e["id"], utf8.RuneCountInString(d), d)
		}
		p, _ := e["payload"].(string)
		if rest := len(l) - len(p); rest > 2048 {
			t.Errorf("exception %v: %d bytes besides the payload, want a bounded record", e["id"], rest)
		}
		raw, _ := base64.StdEncoding.DecodeString(p)
		if mid, _ := e["msg_id"].(string); strings.HasPrefix(string(raw), "<Msg><Header><MsgId>") && utf8.RuneCountInString(mid) == 128 &&
			!strings.HasPrefix(string(raw), "<Msg><Header><MsgId>"+mid) {
			t.Errorf("exception %v: msg_id is not the first 128 characters of the MsgId", e["id"])
		}
	}
	for _, l := range splitLines(outs) {
		if len(l) > 4096 {
			t.Errorf("output of %d bytes: %.300s", len(l), l)
		}
		if !utf8.ValidString(l) {
			t.Errorf("output is not valid UTF-8: %.300s", l)
		}
	}
}
