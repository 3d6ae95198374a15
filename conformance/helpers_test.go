package conformance

// Helpers: building the binary, writing reference data, building and signing
// inbound messages, running `ste match`, parsing its outputs and checking the
// invariants that hold for every run (signatures, one MsgId one content,
// exception record shape, nothing dropped silently, NACK rules).

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"hash/fnv"
	"io"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// ---------------------------------------------------------------------------
// Binary and global fixtures

var (
	steBin  string // path of the built ste binary
	refDir  string // the suite's own reference data directory (stdRefdata)
	tmpRoot string
)

const utilityBIC = "STEUTLSGXXX"

func TestMain(m *testing.M) {
	var err error
	tmpRoot, err = os.MkdirTemp("", "ste-conformance-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	steBin = os.Getenv("STE_CONF_BIN")
	if steBin == "" {
		steBin = filepath.Join(tmpRoot, "ste")
		var lastErr error
		for attempt := 0; attempt < 3; attempt++ {
			cmd := exec.Command("go", "build", "-o", steBin, "./cmd/ste")
			cmd.Dir = ".." // the module root
			out, e := cmd.CombinedOutput()
			if e == nil {
				lastErr = nil
				break
			}
			lastErr = fmt.Errorf("go build ./cmd/ste: %v\n%s", e, out)
			fmt.Fprintln(os.Stderr, lastErr, "\n(retrying in 30 s: other engineers may be mid-edit)")
			time.Sleep(30 * time.Second)
		}
		if lastErr != nil {
			fmt.Fprintln(os.Stderr, lastErr)
			os.Exit(2)
		}
	}
	refDir = filepath.Join(tmpRoot, "refdata")
	if err := writeRefdata(refDir, stdRefdata()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	code := m.Run()
	os.RemoveAll(tmpRoot)
	os.Exit(code)
}

// ---------------------------------------------------------------------------
// Keys (section 2 demo-key rule, implemented independently)

var (
	keyMu    sync.Mutex
	keyCache = map[string]ed25519.PrivateKey{}
)

func demoKey(bic string) ed25519.PrivateKey {
	keyMu.Lock()
	defer keyMu.Unlock()
	if k, ok := keyCache[bic]; ok {
		return k
	}
	seed := sha256.Sum256([]byte("ste-demo-key:" + bic))
	k := ed25519.NewKeyFromSeed(seed[:])
	keyCache[bic] = k
	return k
}

func demoPub(bic string) ed25519.PublicKey { return demoKey(bic).Public().(ed25519.PublicKey) }

func signB64(bic string, data []byte) string {
	return base64.StdEncoding.EncodeToString(ed25519.Sign(demoKey(bic), data))
}

// signedRegion returns the bytes from the '<' of the first "<Header" through the
// '>' of the first "</Body>" after it.
func signedRegion(s string) (string, bool) {
	i := strings.Index(s, "<Header>")
	if i < 0 {
		return "", false
	}
	j := strings.Index(s[i:], "</Body>")
	if j < 0 {
		return "", false
	}
	return s[i : i+j+len("</Body>")], true
}

// ---------------------------------------------------------------------------
// Trade key (section 5) and NACK hash (section 6)

func tradeKey(ref, tdate, isin, side, broker, invmgr string) string {
	h := fnv.New64a()
	io.WriteString(h, strings.Join([]string{
		strings.TrimSpace(ref), strings.TrimSpace(tdate), strings.TrimSpace(isin),
		strings.TrimSpace(side), strings.TrimSpace(broker), strings.TrimSpace(invmgr)}, "|"))
	return fmt.Sprintf("%016x", h.Sum64())
}

func nackHash(record string) string {
	s := sha256.Sum256([]byte(record))
	return hex.EncodeToString(s[:])[:16]
}

// ---------------------------------------------------------------------------
// ISIN check digit (Luhn over the letter-expanded digits)

func isinCheckDigit(prefix11 string) byte {
	var digits []int
	for _, c := range prefix11 {
		if c >= '0' && c <= '9' {
			digits = append(digits, int(c-'0'))
		} else {
			v := int(c-'A') + 10
			digits = append(digits, v/10, v%10)
		}
	}
	sum := 0
	double := true
	for i := len(digits) - 1; i >= 0; i-- {
		d := digits[i]
		if double {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return byte('0' + (10-sum%10)%10)
}

func mkISIN(prefix11 string) string { return prefix11 + string(isinCheckDigit(prefix11)) }

func badCheckISIN(prefix11 string) string {
	c := isinCheckDigit(prefix11)
	return prefix11 + string('0'+(c-'0'+5)%10)
}

// ---------------------------------------------------------------------------
// Reference data

const (
	BRK    = "BRKASGSGXXX" // BROKER ACTIVE
	BRK8   = "BRKBSGSG"    // BROKER ACTIVE, 8-character BIC
	BRKI   = "BRKISGSGXXX" // BROKER INACTIVE
	BRKS   = "BRKSSGSGXXX" // BROKER SUSPENDED
	INV    = "INVMSGSGXXX" // INVMGR ACTIVE
	INVI   = "INVISGSGXXX" // INVMGR INACTIVE
	CUSA   = "CUSASGSGXXX" // CUSTODIAN ACTIVE
	CUSB   = "CUSBSGSGXXX" // CUSTODIAN ACTIVE
	CUSC   = "CUSCSGSGXXX" // BROKER;CUSTODIAN ACTIVE
	CUSI   = "CUSISGSGXXX" // CUSTODIAN INACTIVE
	CSD    = "CDPLSGSGXXX" // CSD ACTIVE
	CSD2   = "CDPMSGSGXXX" // CSD ACTIVE
	CSDI   = "CDPISGSGXXX" // CSD INACTIVE
	NOBODY = "ZZZZSGSGXXX" // well-formed BIC, not a participant
)

var (
	isinSG      = mkISIN("SG000000001") // SGD, SG, ACTIVE
	isinSG2     = mkISIN("SG000000002") // SGD, SG, ACTIVE
	isinSUSP    = mkISIN("SG000000003") // SGD, SG, SUSPENDED
	isinBADCHK  = badCheckISIN("SG000000004")
	isinUNKNOWN = mkISIN("SG000000005") // valid check digit, not in data
	isinJP      = mkISIN("JP000000001") // JPY, JP, ACTIVE
	isinUS      = mkISIN("US000000001") // USD, US, ACTIVE
)

// Calendar of the suite (2026): 2026-03-02 is a Monday.
const (
	dMon    = "2026-03-02"
	dTue    = "2026-03-03" // SG holiday in stdRefdata
	dWed    = "2026-03-04"
	dThu    = "2026-03-05" // JP holiday in stdRefdata
	dFri    = "2026-03-06"
	dSat    = "2026-03-07"
	dSun    = "2026-03-08"
	dPrevFr = "2026-02-27"
	dPrevSa = "2026-02-28"
)

// Participant is a row of participants.csv; Signers (version 3) is the
// signers cell, written only when some participant has one.
type Participant struct{ BIC, Name, Roles, Country, Status, PubKey, Signers string }
type Security struct{ ISIN, Name, Ccy, Country, Status string }

type RefData struct {
	Currencies   [][2]string
	Countries    [][2]string
	Securities   []Security
	Participants []Participant
	Holidays     [][2]string
	// Affirmation (version 3): rows of affirmation.csv (invmgr, mode);
	// nil writes no file.
	Affirmation [][2]string
}

func stdRefdata() *RefData {
	p := func(bic, roles, status string) Participant {
		return Participant{BIC: bic, Name: "Test " + bic, Roles: roles, Country: "SG", Status: status}
	}
	return &RefData{
		Currencies: [][2]string{{"SGD", "2"}, {"JPY", "0"}, {"USD", "2"}, {"BHD", "3"}, {"EUR", "2"}},
		Countries:  [][2]string{{"SG", "Singapore"}, {"JP", "Japan"}, {"US", "United States"}},
		Securities: []Security{
			{isinSG, "Suite Alpha Ltd", "SGD", "SG", "ACTIVE"},
			{isinSG2, "Suite Beta Ltd", "SGD", "SG", "ACTIVE"},
			{isinSUSP, "Suite Suspended Ltd", "SGD", "SG", "SUSPENDED"},
			{isinBADCHK, "Suite Badcheck Ltd", "SGD", "SG", "ACTIVE"},
			{isinJP, "Suite Kabushiki", "JPY", "JP", "ACTIVE"},
			{isinUS, "Suite Inc", "USD", "US", "ACTIVE"},
		},
		Participants: []Participant{
			p(BRK, "BROKER", "ACTIVE"),
			p(BRK8, "BROKER", "ACTIVE"),
			p(BRKI, "BROKER", "INACTIVE"),
			p(BRKS, "BROKER", "SUSPENDED"),
			p(INV, "INVMGR", "ACTIVE"),
			p(INVI, "INVMGR", "INACTIVE"),
			p(CUSA, "CUSTODIAN", "ACTIVE"),
			p(CUSB, "CUSTODIAN", "ACTIVE"),
			p(CUSC, "BROKER;CUSTODIAN", "ACTIVE"),
			p(CUSI, "CUSTODIAN", "INACTIVE"),
			p(CSD, "CSD", "ACTIVE"),
			p(CSD2, "CSD", "ACTIVE"),
			p(CSDI, "CSD", "INACTIVE"),
			p(utilityBIC, "UTILITY", "ACTIVE"),
		},
		Holidays: [][2]string{{"SG", dTue}, {"JP", dThu}, {"SG", "2026-12-25"}},
	}
}

func writeRefdata(dir string, rd *RefData) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	write := func(name string, header []string, rows [][]string) error {
		var buf bytes.Buffer
		w := csv.NewWriter(&buf)
		w.Write(header)
		w.WriteAll(rows)
		w.Flush()
		return os.WriteFile(filepath.Join(dir, name), buf.Bytes(), 0o644)
	}
	var rows [][]string
	for _, c := range rd.Currencies {
		rows = append(rows, []string{c[0], c[1]})
	}
	if err := write("currencies.csv", []string{"code", "minor_units"}, rows); err != nil {
		return err
	}
	rows = nil
	for _, c := range rd.Countries {
		rows = append(rows, []string{c[0], c[1]})
	}
	if err := write("countries.csv", []string{"code", "name"}, rows); err != nil {
		return err
	}
	rows = nil
	for _, s := range rd.Securities {
		rows = append(rows, []string{s.ISIN, s.Name, s.Ccy, s.Country, s.Status})
	}
	if err := write("securities.csv", []string{"isin", "name", "currency", "country", "status"}, rows); err != nil {
		return err
	}
	rows = nil
	signers := false
	for _, p := range rd.Participants {
		signers = signers || p.Signers != ""
	}
	for _, p := range rd.Participants {
		pk := p.PubKey
		if pk == "" {
			pk = base64.StdEncoding.EncodeToString(demoPub(p.BIC))
		}
		row := []string{p.BIC, p.Name, p.Roles, p.Country, p.Status, pk}
		if signers {
			row = append(row, p.Signers)
		}
		rows = append(rows, row)
	}
	header := []string{"bic", "name", "roles", "country", "status", "public_key"}
	if signers {
		header = append(header, "signers")
	}
	if err := write("participants.csv", header, rows); err != nil {
		return err
	}
	if rd.Affirmation != nil {
		rows = nil
		for _, a := range rd.Affirmation {
			rows = append(rows, []string{a[0], a[1]})
		}
		if err := write("affirmation.csv", []string{"invmgr", "mode"}, rows); err != nil {
			return err
		}
	}
	rows = nil
	for _, h := range rd.Holidays {
		rows = append(rows, []string{h[0], h[1]})
	}
	return write("holidays.csv", []string{"country", "date"}, rows)
}

// participantsIn reads participants.csv of a refdata dir: BIC -> status.
func participantsIn(dir string) map[string]string {
	f, err := os.Open(filepath.Join(dir, "participants.csv"))
	if err != nil {
		return nil
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil
	}
	m := map[string]string{}
	for i, r := range recs {
		if i == 0 || len(r) < 5 {
			continue
		}
		m[r[0]] = r[4]
	}
	return m
}

// ---------------------------------------------------------------------------
// Inbound message builder

// F is one element. Raw: V is inserted without escaping (CDATA, references).
// A name starting with "!" inserts V verbatim as an XML fragment.
type F struct {
	N, V string
	Raw  bool
}

var headerNames = map[string]bool{"MsgId": true, "MsgType": true, "Function": true, "Sender": true, "Created": true, "RelatedMsgId": true,
	"Signer": true}

type Msg struct {
	Hdr, Body []F
	SignAs    string  // BIC whose demo key signs; default the Sender
	SigAlg    *string // nil: alg="ed25519"; "" : no alg attribute
	SigText   *string // overrides the signature text
	NoSig     bool
	Pre       string // before <Msg> (e.g. an XML declaration)
	Head      string // right after <Msg>
	Tail      string // right before </Msg>
	Sep       string // whitespace inserted between all elements
}

func (m *Msg) Clone() *Msg {
	c := *m
	c.Hdr = append([]F(nil), m.Hdr...)
	c.Body = append([]F(nil), m.Body...)
	return &c
}

func (m *Msg) list(n string) *[]F {
	if headerNames[n] {
		return &m.Hdr
	}
	return &m.Body
}

// Set replaces the first element named n (header or body by name) or appends it.
func (m *Msg) Set(n, v string) *Msg {
	l := m.list(n)
	for i := range *l {
		if (*l)[i].N == n {
			(*l)[i] = F{N: n, V: v}
			return m
		}
	}
	*l = append(*l, F{N: n, V: v})
	return m
}

func (m *Msg) SetRaw(n, v string) *Msg {
	m.Set(n, v)
	l := m.list(n)
	for i := range *l {
		if (*l)[i].N == n {
			(*l)[i].Raw = true
		}
	}
	return m
}

func (m *Msg) Del(n string) *Msg {
	l := m.list(n)
	var out []F
	for _, f := range *l {
		if f.N != n {
			out = append(out, f)
		}
	}
	*l = out
	return m
}

func (m *Msg) Get(n string) string {
	for _, f := range *m.list(n) {
		if f.N == n {
			return f.V
		}
	}
	return ""
}

func (m *Msg) ID() string     { return m.Get("MsgId") }
func (m *Msg) Sender() string { return m.Get("Sender") }

func xmlEsc(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

func renderFields(fs []F, sep string) string {
	var b strings.Builder
	for i, f := range fs {
		if i > 0 {
			b.WriteString(sep)
		}
		if strings.HasPrefix(f.N, "!") {
			b.WriteString(f.V)
			continue
		}
		b.WriteString("<" + f.N + ">")
		if f.Raw {
			b.WriteString(f.V)
		} else {
			b.WriteString(xmlEsc(f.V))
		}
		b.WriteString("</" + f.N + ">")
	}
	return b.String()
}

func (m *Msg) SignedRegion() string {
	sep := m.Sep
	return "<Header>" + sep + renderFields(m.Hdr, sep) + sep + "</Header>" + sep + "<Body>" + sep + renderFields(m.Body, sep) + sep + "</Body>"
}

func (m *Msg) Line() string {
	hb := m.SignedRegion()
	var sig string
	if m.SigText != nil {
		sig = *m.SigText
	} else {
		signer := m.SignAs
		if signer == "" {
			signer = strings.TrimSpace(m.Sender())
		}
		sig = signB64(signer, []byte(hb))
	}
	s := m.Pre + "<Msg>" + m.Sep + m.Head + hb + m.Sep
	if !m.NoSig {
		alg := ` alg="ed25519"`
		if m.SigAlg != nil {
			if *m.SigAlg == "" {
				alg = ""
			} else {
				alg = ` alg="` + *m.SigAlg + `"`
			}
		}
		s += "<Sig" + alg + ">" + sig + "</Sig>"
	}
	return s + m.Sep + m.Tail + "</Msg>"
}

func sp(s string) *string { return &s }

// ---------------------------------------------------------------------------
// Trade builder

type Alloc struct {
	Acct       string
	Qty        int64
	Cust, PSET string
	Comm, Fees string // amounts in the trade currency
}

type Trade struct {
	Ref, TDate, ISIN, Side, Broker, InvMgr string
	IDPrefix                               string
	Price, Ccy, Settle                     string
	Minor                                  int
	Allocs                                 []Alloc
	Base                                   time.Time
}

var baseTime = time.Date(2026, 3, 2, 9, 30, 0, 0, time.UTC)

func ts(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// stdTrade: SG security, SGD, BUY, 1500 @ 12.345 in two allocations.
func stdTrade(ref string) *Trade {
	return &Trade{
		Ref: ref, TDate: dMon, ISIN: isinSG, Side: "BUY", Broker: BRK, InvMgr: INV,
		Price: "12.345", Ccy: "SGD", Settle: dWed, Minor: 2,
		Allocs: []Alloc{
			{Acct: "ACCA001", Qty: 1000, Cust: CUSA, PSET: CSD, Comm: "10.00", Fees: "1.50"},
			{Acct: "ACCB002", Qty: 500, Cust: CUSB, PSET: CSD, Comm: "5.00", Fees: "0.75"},
		},
		Base: baseTime,
	}
}

// oneAllocTrade: AllocCount 1.
func oneAllocTrade(ref string) *Trade {
	t := stdTrade(ref)
	t.Allocs = t.Allocs[:1]
	return t
}

func (t *Trade) prefix() string {
	if t.IDPrefix != "" {
		return t.IDPrefix
	}
	return t.Ref
}

func (t *Trade) Key() string { return tradeKey(t.Ref, t.TDate, t.ISIN, t.Side, t.Broker, t.InvMgr) }

func (t *Trade) BlockQty() int64 {
	var s int64
	for _, a := range t.Allocs {
		s += a.Qty
	}
	return s
}

func (t *Trade) keyFields() []F {
	return []F{{N: "TradeRef", V: t.Ref}, {N: "TradeDate", V: t.TDate}, {N: "ISIN", V: t.ISIN},
		{N: "Side", V: t.Side}, {N: "Broker", V: t.Broker}, {N: "InvMgr", V: t.InvMgr}}
}

func (t *Trade) header(id, typ, sender string, created time.Time) []F {
	return []F{{N: "MsgId", V: id}, {N: "MsgType", V: typ}, {N: "Function", V: "NEW"},
		{N: "Sender", V: sender}, {N: "Created", V: ts(created)}}
}

func (t *Trade) NOE() *Msg {
	m := &Msg{Hdr: t.header(t.prefix()+"-NOE", "NOE", t.Broker, t.Base)}
	m.Body = append(t.keyFields(),
		F{N: "Quantity", V: strconv.FormatInt(t.BlockQty(), 10)}, F{N: "Price", V: t.Price},
		F{N: "TradeCcy", V: t.Ccy}, F{N: "SettleDate", V: t.Settle}, F{N: "Market", V: "XSES"},
		F{N: "ExecTime", V: ts(t.Base.Add(-2 * time.Minute))})
	return m
}

func (t *Trade) ALC(i int) *Msg {
	a := t.Allocs[i]
	m := &Msg{Hdr: t.header(fmt.Sprintf("%s-ALC%d", t.prefix(), i+1), "ALC", t.InvMgr, t.Base.Add(time.Duration(1+i)*time.Minute))}
	m.Body = append(t.keyFields(),
		F{N: "AllocCount", V: strconv.Itoa(len(t.Allocs))}, F{N: "Account", V: a.Acct},
		F{N: "Quantity", V: strconv.FormatInt(a.Qty, 10)}, F{N: "Price", V: t.Price},
		F{N: "TradeCcy", V: t.Ccy}, F{N: "Custodian", V: a.Cust}, F{N: "PSET", V: a.PSET})
	return m
}

func (t *Trade) Gross(i int) string {
	return mulRound(t.Allocs[i].Qty, t.Price, t.Minor)
}

func (t *Trade) Net(i int) string {
	a := t.Allocs[i]
	g := rat(t.Gross(i))
	c, f := rat(a.Comm), rat(a.Fees)
	n := new(big.Rat)
	if t.Side == "BUY" {
		n.Add(g, c).Add(n, f)
	} else {
		n.Sub(g, c).Sub(n, f)
	}
	return n.FloatString(t.Minor)
}

func (t *Trade) NPR(i int) *Msg {
	a := t.Allocs[i]
	m := &Msg{Hdr: t.header(fmt.Sprintf("%s-NPR%d", t.prefix(), i+1), "NPR", t.Broker, t.Base.Add(time.Duration(10+i)*time.Minute))}
	m.Body = append(t.keyFields(),
		F{N: "Account", V: a.Acct}, F{N: "Quantity", V: strconv.FormatInt(a.Qty, 10)}, F{N: "Price", V: t.Price},
		F{N: "TradeCcy", V: t.Ccy}, F{N: "GrossAmount", V: t.Gross(i)}, F{N: "Commission", V: a.Comm},
		F{N: "Fees", V: a.Fees}, F{N: "NetAmount", V: t.Net(i)}, F{N: "SettleCcy", V: t.Ccy},
		F{N: "SettleDate", V: t.Settle})
	return m
}

func (t *Trade) SET(i int) *Msg {
	a := t.Allocs[i]
	m := &Msg{Hdr: t.header(fmt.Sprintf("%s-SET%d", t.prefix(), i+1), "SET", a.Cust, t.Base.Add(time.Duration(20+i)*time.Minute))}
	m.Body = append(t.keyFields(),
		F{N: "Account", V: a.Acct}, F{N: "Quantity", V: strconv.FormatInt(a.Qty, 10)},
		F{N: "SettleDate", V: t.Settle}, F{N: "SettleCcy", V: t.Ccy}, F{N: "NetAmount", V: t.Net(i)},
		F{N: "Custodian", V: a.Cust}, F{N: "PSET", V: a.PSET},
		F{N: "SafekeepingAccount", V: "SK-" + a.Acct}, F{N: "CashAccount", V: "CA-" + a.Acct})
	return m
}

// All returns NOE, ALCs, NPRs, SETs.
func (t *Trade) All() []*Msg {
	out := []*Msg{t.NOE()}
	for i := range t.Allocs {
		out = append(out, t.ALC(i))
	}
	for i := range t.Allocs {
		out = append(out, t.NPR(i))
	}
	for i := range t.Allocs {
		out = append(out, t.SET(i))
	}
	return out
}

// LatestCreated is the MatchedAt of the trade's standard messages.
func (t *Trade) LatestCreated() string {
	return ts(t.Base.Add(time.Duration(20+len(t.Allocs)-1) * time.Minute))
}

// Cancel builds a CANCEL of orig (same Sender and MsgType), carrying the key
// fields (and Custodian for SET).
func Cancel(orig *Msg, id string, created time.Time) *Msg {
	m := &Msg{Hdr: []F{{N: "MsgId", V: id}, {N: "MsgType", V: orig.Get("MsgType")}, {N: "Function", V: "CANCEL"},
		{N: "Sender", V: orig.Sender()}, {N: "Created", V: ts(created)}, {N: "RelatedMsgId", V: orig.ID()}}}
	for _, n := range []string{"TradeRef", "TradeDate", "ISIN", "Side", "Broker", "InvMgr"} {
		m.Body = append(m.Body, F{N: n, V: orig.Get(n)})
	}
	if orig.Get("MsgType") == "SET" {
		m.Body = append(m.Body, F{N: "Custodian", V: orig.Get("Custodian")})
	}
	return m
}

// Replace builds a REPLACE of orig with a full body (orig's, then mods).
func Replace(orig *Msg, id string, created time.Time, mods ...string) *Msg {
	m := orig.Clone()
	m.Set("MsgId", id).Set("Function", "REPLACE").Set("Created", ts(created)).Set("RelatedMsgId", orig.ID())
	for i := 0; i+1 < len(mods); i += 2 {
		m.Set(mods[i], mods[i+1])
	}
	return m
}

func lines(ms ...*Msg) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Line()
	}
	return out
}

// ---------------------------------------------------------------------------
// Decimals

func rat(s string) *big.Rat {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		panic("bad decimal " + s)
	}
	return r
}

// mulRound = qty × price rounded half away from zero to minor decimals.
func mulRound(qty int64, price string, minor int) string {
	p := rat(price)
	v := new(big.Rat).Mul(p, new(big.Rat).SetInt64(qty))
	scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(minor)), nil)
	v.Mul(v, new(big.Rat).SetInt(scale))
	// half away from zero (values here are positive)
	num, den := v.Num(), v.Denom()
	q, r := new(big.Int).QuoRem(num, den, new(big.Int))
	if new(big.Int).Mul(r, big.NewInt(2)).CmpAbs(den) >= 0 {
		if num.Sign() >= 0 {
			q.Add(q, big.NewInt(1))
		} else {
			q.Sub(q, big.NewInt(1))
		}
	}
	return new(big.Rat).SetFrac(q, scale).FloatString(minor)
}

// ---------------------------------------------------------------------------
// Output parsing

type Node struct {
	Name string
	Attr map[string]string
	Text string
	Kids []*Node
}

func parseTree(s string) (*Node, error) {
	d := xml.NewDecoder(strings.NewReader(s))
	var stack []*Node
	var root *Node
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			n := &Node{Name: t.Name.Local, Attr: map[string]string{}}
			for _, a := range t.Attr {
				n.Attr[a.Name.Local] = a.Value
			}
			if len(stack) > 0 {
				p := stack[len(stack)-1]
				p.Kids = append(p.Kids, n)
			} else if root == nil {
				root = n
			}
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				stack[len(stack)-1].Text += string(t)
			}
		}
	}
	if root == nil {
		return nil, fmt.Errorf("no root")
	}
	return root, nil
}

func (n *Node) Kid(name string) *Node {
	if n == nil {
		return nil
	}
	for _, k := range n.Kids {
		if k.Name == name {
			return k
		}
	}
	return nil
}

func (n *Node) KidsNamed(name string) []*Node {
	var out []*Node
	if n == nil {
		return nil
	}
	for _, k := range n.Kids {
		if k.Name == name {
			out = append(out, k)
		}
	}
	return out
}

func (n *Node) T(name string) string {
	k := n.Kid(name)
	if k == nil {
		return ""
	}
	return strings.TrimSpace(k.Text)
}

type OutMsg struct {
	id      string
	Raw     string
	Root    *Node
	Hdr     *Node
	Body    *Node
	RawBody string
}

func (o *OutMsg) H(n string) string { return o.Hdr.T(n) }
func (o *OutMsg) B(n string) string { return o.Body.T(n) }
func (o *OutMsg) ID() string        { return o.id }

func parseOut(line string) (*OutMsg, error) {
	root, err := parseTree(line)
	if err != nil {
		return nil, err
	}
	o := &OutMsg{Raw: line, Root: root, Hdr: root.Kid("Header"), Body: root.Kid("Body")}
	o.id = o.Hdr.T("MsgId")
	if i := strings.Index(line, "<Body>"); i >= 0 {
		if j := strings.Index(line, "</Body>"); j > i {
			o.RawBody = line[i : j+len("</Body>")]
		}
	}
	return o, nil
}

// ---------------------------------------------------------------------------
// Running ste match

type Run struct {
	t       *testing.T
	Lines   []string
	RefDir  string
	Code    int
	Stdout  string
	Stderr  string
	Summary map[string]any
	// Out holds the version 2 records of outbound.xml (ACK, NACK, STATUS),
	// in file order: a version 2 set keeps them byte for byte under version
	// 3 (messages.md, "Versions"), which adds V3 (CNF, BLK, ALG) beside
	// them; All is every record of the file.
	Out, CLS []*OutMsg
	V3, All  []*OutMsg
	OutRaw   string
	CLSRaw   string
	Exc      []map[string]any
	ExcRaw   string
	byID     map[string][]*OutMsg
	byKey    map[string][]*OutMsg
}

type runOpt struct {
	refDir    string // "" = suite refdata; "-" = the product default (no --refdata)
	retention string
	extra     []string
}

func runMatch(t *testing.T, in []string, opts ...func(*runOpt)) *Run {
	t.Helper()
	o := runOpt{}
	for _, f := range opts {
		f(&o)
	}
	dir := t.TempDir()
	inPath := filepath.Join(dir, "in.txt")
	var b strings.Builder
	for _, l := range in {
		b.WriteString(l)
		b.WriteString("\n")
	}
	if err := os.WriteFile(inPath, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	outDir := filepath.Join(dir, "out")
	args := []string{"match", "--in", inPath, "--out", outDir}
	rd := refDir
	switch o.refDir {
	case "":
		args = append(args, "--refdata", refDir)
	case "-":
		rd = filepath.Join("..", "schemas", "refdata", "default")
	default:
		rd = o.refDir
		args = append(args, "--refdata", o.refDir)
	}
	if o.retention != "" {
		args = append(args, "--retention", o.retention)
	}
	args = append(args, o.extra...)
	r := execSte(t, args...)
	run := &Run{t: t, Lines: in, RefDir: rd, Code: r.code, Stdout: r.stdout, Stderr: r.stderr}
	if r.code != 0 {
		t.Fatalf("ste %s: exit %d\nstderr: %s", strings.Join(args, " "), r.code, r.stderr)
	}
	// summary: the last non-empty stdout line
	var last string
	for _, l := range strings.Split(r.stdout, "\n") {
		if strings.TrimSpace(l) != "" {
			last = l
		}
	}
	if n := len(splitLines(strings.TrimSpace(r.stdout))); n != 1 {
		t.Errorf("[cli] ste match printed %d lines on stdout, want a one-line JSON summary:\n%s", n, r.stdout)
	}
	if err := json.Unmarshal([]byte(last), &run.Summary); err != nil {
		t.Fatalf("summary line is not JSON: %q (%v)", r.stdout, err)
	}
	run.OutRaw = readFile(t, filepath.Join(outDir, "outbound.xml"))
	run.CLSRaw = readFile(t, filepath.Join(outDir, "cls.xml"))
	run.ExcRaw = readFile(t, filepath.Join(outDir, "exceptions.jsonl"))
	run.All = parseOutFile(t, "outbound.xml", run.OutRaw)
	for _, o := range run.All {
		switch o.H("MsgType") {
		case "CNF", "BLK", "ALG":
			run.V3 = append(run.V3, o)
		default:
			run.Out = append(run.Out, o)
		}
	}
	run.CLS = parseOutFile(t, "cls.xml", run.CLSRaw)
	for i, l := range splitLines(run.ExcRaw) {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Errorf("[format] exceptions.jsonl line %d is not a JSON object: %q", i+1, l)
			continue
		}
		run.Exc = append(run.Exc, m)
	}
	run.checkInvariants()
	return run
}

func withRefdata(dir string) func(*runOpt) { return func(o *runOpt) { o.refDir = dir } }
func withRetention(d string) func(*runOpt) { return func(o *runOpt) { o.retention = d } }

type execResult struct {
	code           int
	stdout, stderr string
}

func execSte(t *testing.T, args ...string) execResult {
	t.Helper()
	return execSteEnv(t, nil, 60*time.Second, args...)
}

// execSteEnv runs ste with extra environment variables; past timeout it is
// killed (exit code -1).
func execSteEnv(t *testing.T, env []string, timeout time.Duration, args ...string) execResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, steBin, args...)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	cmd.Env = append(append(os.Environ(), "STE_HOME="+t.TempDir()), env...)
	err := cmd.Run()
	code := 0
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else {
			t.Fatalf("running ste: %v", err)
		}
	}
	return execResult{code, so.String(), se.String()}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("output file missing: %v", err)
	}
	return string(b)
}

func splitLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

func parseOutFile(t *testing.T, name, raw string) []*OutMsg {
	t.Helper()
	if raw != "" && !strings.HasSuffix(raw, "\n") {
		t.Errorf("[format] %s: last line not terminated by a newline (one XML message per line)", name)
	}
	var out []*OutMsg
	for i, l := range splitLines(raw) {
		o, err := parseOut(l)
		if err != nil || o.Hdr == nil || o.Body == nil || o.Root.Name != "Msg" {
			t.Errorf("[format] %s line %d is not one <Msg> with Header and Body: %v: %.300s", name, i+1, err, l)
			continue
		}
		out = append(out, o)
	}
	return out
}

var rfc3339 = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$`)
var validMsgID = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,64}$`)
var reSender = regexp.MustCompile(`<Sender>\s*([^<]*?)\s*</Sender>`)
var reMsgID = regexp.MustCompile(`<MsgId>\s*([^<]*?)\s*</MsgId>`)

// checkInvariants: properties every run must have.
func (r *Run) checkInvariants() {
	t := r.t
	t.Helper()
	pub := demoPub(utilityBIC)
	contents := map[string]string{}
	for si, set := range [][]*OutMsg{r.All, r.CLS} {
		for _, o := range set {
			id := o.ID()
			switch typ := o.H("MsgType"); {
			case typ == "CLS" && si == 0:
				t.Errorf("[invariant §6] CLS %s in outbound.xml", id)
			case typ != "CLS" && si == 1:
				t.Errorf("[invariant §6] %s %s in cls.xml", typ, id)
			case !slices.Contains([]string{"ACK", "NACK", "STATUS", "CNF", "BLK", "ALG", "CLS"}, typ):
				t.Errorf("[invariant §6] output %s: MsgType %q", id, typ)
			}
			if id == "" {
				t.Errorf("[invariant] output without MsgId: %.300s", o.Raw)
			}
			for _, h := range []string{"MsgType", "Function", "Sender", "Receiver", "Created"} {
				if o.H(h) == "" {
					t.Errorf("[invariant §6] output %s: Header lacks %s", id, h)
				}
			}
			if s := o.H("Sender"); s != utilityBIC {
				t.Errorf("[invariant §6] output %s: Header Sender = %q, want the utility BIC %s", id, s, utilityBIC)
			}
			if c := o.H("Created"); c != "" && !rfc3339.MatchString(c) {
				t.Errorf("[invariant §6] output %s: Header Created %q is not RFC 3339", id, c)
			}
			sig := o.Root.Kid("Sig")
			region, ok := signedRegion(o.Raw)
			if sig == nil || !ok {
				t.Errorf("[invariant §6] output %s has no Sig or no <Header>..</Body> region", id)
			} else {
				if a, has := sig.Attr["alg"]; has && a != "ed25519" {
					t.Errorf("[invariant §6] output %s: Sig alg=%q", id, a)
				}
				sb, err := base64.StdEncoding.DecodeString(strings.TrimSpace(sig.Text))
				if err != nil || !ed25519.Verify(pub, []byte(region), sb) {
					t.Errorf("[invariant §6] output %s: signature does not verify with the demo key of %s", id, utilityBIC)
				}
			}
			if prev, ok := contents[id]; ok && prev != o.RawBody {
				t.Errorf("[invariant §6] MsgId %s carries two contents:\n  %s\n  %s", id, prev, o.RawBody)
			}
			contents[id] = o.RawBody
		}
	}
	// summary
	nonEmpty := 0
	for _, l := range r.Lines {
		if l != "" {
			nonEmpty++
		}
	}
	if got := r.num("messages"); got != nonEmpty {
		t.Errorf("[invariant summary] messages = %d, want %d (non-empty lines)", got, nonEmpty)
	}
	if got := r.num("exceptions"); got != len(r.Exc) {
		t.Errorf("[invariant summary] exceptions = %d, but exceptions.jsonl has %d records", got, len(r.Exc))
	}
	if _, ok := r.Summary["seconds"]; !ok {
		t.Errorf("[invariant summary] no \"seconds\" field: %s", r.Stdout)
	}
	for _, k := range []string{"cls", "mismatched"} {
		if _, ok := r.Summary[k]; !ok {
			t.Errorf("[invariant summary] no %q field: %s", k, r.Stdout)
		}
	}
	// exception records
	parts := participantsIn(r.RefDir)
	excLines := map[int]bool{}
	for _, e := range r.Exc {
		id, _ := e["id"].(string)
		var n int
		if _, err := fmt.Sscanf(id, "line-%d", &n); err != nil || fmt.Sprintf("line-%d", n) != id || n < 1 || n > len(r.Lines) {
			t.Errorf("[invariant §7] exception id %q is not line-<n> of the input", id)
			continue
		}
		excLines[n] = true
		rec := r.Lines[n-1]
		for _, k := range []string{"reason", "detail", "sender", "msg_id", "received_at", "payload"} {
			if _, ok := e[k].(string); !ok {
				t.Errorf("[invariant §7] exception %s: field %q missing or not a string: %v", id, k, e)
			}
		}
		if d, _ := e["detail"].(string); d == "" {
			t.Errorf("[invariant §7] exception %s: empty detail", id)
		}
		if ra, _ := e["received_at"].(string); !rfc3339.MatchString(ra) {
			t.Errorf("[invariant §7] exception %s: received_at %q is not RFC 3339", id, ra)
		}
		for _, k := range []string{"source_partition", "source_offset"} {
			if v, ok := e[k].(float64); !ok || v != -1 {
				t.Errorf("[invariant §7] exception %s: %s = %v, want -1 for ste match", id, k, e[k])
			}
		}
		reason, _ := e["reason"].(string)
		want := rec
		if reason == "TOO_LARGE" {
			if len(want) > 65536 {
				want = want[:65536]
			}
			if v, _ := e["payload_truncated"].(bool); !v {
				t.Errorf("[invariant §7] exception %s: TOO_LARGE without \"payload_truncated\":true", id)
			}
		} else if v, _ := e["payload_truncated"].(bool); v {
			t.Errorf("[invariant §7] exception %s (%s): payload_truncated true", id, reason)
		}
		if p, _ := e["payload"].(string); p != base64.StdEncoding.EncodeToString([]byte(want)) {
			dec, _ := base64.StdEncoding.DecodeString(p)
			t.Errorf("[invariant §7] exception %s: payload is not base64 of the original bytes (len got %d, want %d)", id, len(dec), len(want))
		}
		// NACK rule (§6): a NACK whenever the Sender is a participant of any
		// status, except for TOO_LARGE, MALFORMED, UNKNOWN_SENDER.
		h := nackHash(rec)
		var nacks []*OutMsg
		for _, o := range r.Out {
			if strings.HasPrefix(o.ID(), "NACK:") && strings.HasSuffix(o.ID(), ":"+h) {
				nacks = append(nacks, o)
			}
		}
		sender := ""
		if m := reSender.FindStringSubmatch(rec); m != nil {
			sender = m[1]
		}
		_, isPart := parts[sender]
		wantNack := isPart && reason != "TOO_LARGE" && reason != "MALFORMED" && reason != "UNKNOWN_SENDER"
		if wantNack && len(nacks) == 0 {
			t.Errorf("[invariant §6 NACK] line %d rejected %s from participant %s: no NACK with MsgId NACK:%s:<MsgId>:%s", n, reason, sender, sender, h)
		}
		if !wantNack && len(nacks) > 0 {
			t.Errorf("[invariant §6 NACK] line %d rejected %s (sender %q, participant=%v): unexpected NACK %s", n, reason, sender, isPart, nacks[0].ID())
		}
		for _, o := range nacks {
			if !strings.HasPrefix(o.ID(), "NACK:"+sender+":") {
				t.Errorf("[invariant §6 NACK] NACK MsgId %s does not start with NACK:%s:", o.ID(), sender)
			}
			if o.H("Receiver") != sender {
				t.Errorf("[invariant §6 NACK] NACK %s Receiver %q, want %s", o.ID(), o.H("Receiver"), sender)
			}
			if o.H("MsgType") != "NACK" {
				t.Errorf("[invariant §6 NACK] NACK %s MsgType %q", o.ID(), o.H("MsgType"))
			}
			if o.B("Reason") != reason {
				t.Errorf("[invariant §6 NACK] NACK %s Reason %q, exception reason %q", o.ID(), o.B("Reason"), reason)
			}
			if o.Body.Kid("Detail") == nil || o.Body.Kid("RelatedMsgId") == nil {
				t.Errorf("[invariant §6 NACK] NACK %s body lacks Detail or RelatedMsgId: %s", o.ID(), o.RawBody)
			}
		}
	}
	// nothing dropped silently: a line without exception is ACKed (or is an
	// exact duplicate, which is ACKed again).
	for i, l := range r.Lines {
		if l == "" || excLines[i+1] {
			continue
		}
		s, id := reSender.FindStringSubmatch(l), reMsgID.FindStringSubmatch(l)
		if s == nil || id == nil || strings.Contains(l, "CDATA") || strings.Contains(l, "&") {
			continue
		}
		ack := "ACK:" + s[1] + ":" + id[1]
		if len(r.ByID(ack)) == 0 {
			t.Errorf("[invariant §7] line %d neither rejected nor ACKed (no %s)", i+1, ack)
		}
	}
}

func (r *Run) num(k string) int {
	v, ok := r.Summary[k].(float64)
	if !ok {
		return -1
	}
	return int(v)
}

func (r *Run) ByID(id string) []*OutMsg {
	if r.byID == nil {
		r.byID = map[string][]*OutMsg{}
		for _, o := range r.All {
			r.byID[o.ID()] = append(r.byID[o.ID()], o)
		}
		for _, o := range r.CLS {
			r.byID[o.ID()] = append(r.byID[o.ID()], o)
		}
	}
	return r.byID[id]
}

// ExcAt returns the exception record for 1-based line n, or nil.
func (r *Run) ExcAt(n int) map[string]any {
	for _, e := range r.Exc {
		if e["id"] == fmt.Sprintf("line-%d", n) {
			return e
		}
	}
	return nil
}

// Reason returns the rejection code for 1-based line n ("" if accepted).
func (r *Run) Reason(n int) string {
	e := r.ExcAt(n)
	if e == nil {
		return ""
	}
	s, _ := e["reason"].(string)
	return s
}

// Statuses returns the STATUS outputs of a trade in output order.
func (r *Run) Statuses(key string) []*OutMsg {
	if r.byKey == nil {
		r.byKey = map[string][]*OutMsg{}
		for _, o := range r.Out {
			if p := strings.Split(o.ID(), ":"); len(p) == 4 && p[0] == "ST" {
				r.byKey[p[1]] = append(r.byKey[p[1]], o)
			}
		}
	}
	return r.byKey[key]
}

// StatusRounds groups a trade's distinct STATUS MsgIds by n.
func (r *Run) StatusRounds(key string) map[int][]*OutMsg {
	rounds := map[int][]*OutMsg{}
	seen := map[string]bool{}
	for _, o := range r.Statuses(key) {
		if seen[o.ID()] {
			continue
		}
		seen[o.ID()] = true
		parts := strings.Split(o.ID(), ":")
		if len(parts) != 4 {
			r.t.Errorf("[format] STATUS MsgId %q is not ST:<TradeKey>:<n>:<Receiver>", o.ID())
			continue
		}
		n, err := strconv.Atoi(parts[2])
		if err != nil {
			r.t.Errorf("[format] STATUS MsgId %q: n not an integer", o.ID())
			continue
		}
		rounds[n] = append(rounds[n], o)
	}
	return rounds
}

func (r *Run) CLSFor(key string) []*OutMsg {
	var out []*OutMsg
	for _, o := range r.CLS {
		if strings.HasPrefix(o.ID(), "CLS-"+key+"-") {
			out = append(out, o)
		}
	}
	return out
}

func (r *Run) CLSIDs(key string) []string {
	var ids []string
	for _, o := range r.CLSFor(key) {
		ids = append(ids, o.ID())
	}
	return ids
}

func (r *Run) dump() string {
	return "--- outbound.xml ---\n" + r.OutRaw + "--- cls.xml ---\n" + r.CLSRaw + "--- exceptions.jsonl ---\n" + r.ExcRaw + "--- stdout ---\n" + r.Stdout
}

// ---------------------------------------------------------------------------
// Assertion helpers

// expectStatusRound checks that round n of a trade's statuses went to exactly
// the given parties with the given status.
func expectStatusRound(t *testing.T, r *Run, key string, n int, status string, parties ...string) []*OutMsg {
	t.Helper()
	rounds := r.StatusRounds(key)
	got := rounds[n]
	var recv []string
	for _, o := range got {
		recv = append(recv, o.H("Receiver"))
		if want := fmt.Sprintf("ST:%s:%d:%s", key, n, o.H("Receiver")); o.ID() != want {
			t.Errorf("STATUS MsgId %q, want %q", o.ID(), want)
		}
		if o.B("Status") != status {
			t.Errorf("STATUS %s: Status %q, want %q", o.ID(), o.B("Status"), status)
		}
		if o.B("TradeKey") != key {
			t.Errorf("STATUS %s: TradeKey %q, want %q", o.ID(), o.B("TradeKey"), key)
		}
		if o.H("MsgType") != "STATUS" {
			t.Errorf("STATUS %s: MsgType %q, want STATUS", o.ID(), o.H("MsgType"))
		}
	}
	sort.Strings(recv)
	want := append([]string(nil), parties...)
	sort.Strings(want)
	if strings.Join(recv, ",") != strings.Join(want, ",") {
		t.Errorf("STATUS round %d (%s) of trade %s went to [%s], want [%s]\n%s", n, status, key, strings.Join(recv, ","), strings.Join(want, ","), statusSummary(r, key))
	}
	return got
}

func statusSummary(r *Run, key string) string {
	var b strings.Builder
	for _, o := range r.Statuses(key) {
		fmt.Fprintf(&b, "  %s %s %s\n", o.ID(), o.B("Status"), discrepancies(o))
	}
	return b.String()
}

// discrepancies renders the Discrepancy elements as "N:[tok tok] N:[...]".
func discrepancies(o *OutMsg) string {
	var parts []string
	for _, d := range o.Body.KidsNamed("Discrepancy") {
		parts = append(parts, d.Attr["criterion"]+":["+strings.Join(strings.Fields(d.Text), " ")+"]")
	}
	return strings.Join(parts, " ")
}

func tok(m *Msg) string { return m.Sender() + ":" + m.ID() }

// discFor is discSpec as receiver reads it (messages.md §6 "A Custodian's
// Bodies", version 3): the Broker and the InvMgr get every token; a
// Custodian only those of its accounts — the ALC, NPR and SET messages of
// the Accounts for which an ALC among ms names it — and an element whose
// list becomes empty is still there, empty.
func discFor(receiver string, crit map[int][]*Msg, ms []*Msg) string {
	if receiver == BRK || receiver == INV {
		return discSpec(crit)
	}
	mine := map[string]bool{}
	for _, m := range ms {
		if m.Get("MsgType") == "ALC" && m.Get("Custodian") == receiver {
			mine[m.Get("Account")] = true
		}
	}
	own := map[int][]*Msg{}
	for n, list := range crit {
		own[n] = []*Msg{}
		for _, m := range list {
			if typ := m.Get("MsgType"); (typ == "ALC" || typ == "NPR" || typ == "SET") && mine[m.Get("Account")] {
				own[n] = append(own[n], m)
			}
		}
	}
	return discSpec(own)
}

// discSpec builds the expected discrepancy rendering: criterion -> messages,
// tokens sorted in byte order.
func discSpec(crit map[int][]*Msg) string {
	var ns []int
	for n := range crit {
		ns = append(ns, n)
	}
	sort.Ints(ns)
	var parts []string
	for _, n := range ns {
		var toks []string
		for _, m := range crit[n] {
			toks = append(toks, tok(m))
		}
		sort.Strings(toks)
		parts = append(parts, strconv.Itoa(n)+":["+strings.Join(toks, " ")+"]")
	}
	return strings.Join(parts, " ")
}

func expectNoOutputsFor(t *testing.T, r *Run, key string) {
	t.Helper()
	if s := r.Statuses(key); len(s) > 0 {
		t.Errorf("trade %s: expected no STATUS, got:\n%s", key, statusSummary(r, key))
	}
	if c := r.CLSFor(key); len(c) > 0 {
		t.Errorf("trade %s: expected no CLS, got %v", key, r.CLSIDs(key))
	}
}

func expectAccepted(t *testing.T, r *Run, ms ...*Msg) {
	t.Helper()
	for _, m := range ms {
		ack := "ACK:" + m.Sender() + ":" + m.ID()
		if len(r.ByID(ack)) == 0 {
			for i, l := range r.Lines {
				if l == m.Line() {
					if e := r.ExcAt(i + 1); e != nil {
						t.Errorf("message %s (line %d) rejected %v: %v", m.ID(), i+1, e["reason"], e["detail"])
						goto next
					}
				}
			}
			t.Errorf("message %s not ACKed (no %s)", m.ID(), ack)
		}
	next:
	}
}
