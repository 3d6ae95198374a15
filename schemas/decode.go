package schemas

import (
	"errors"
	"math"
	"strconv"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/ste-utility/ste/schemas/date"
	"github.com/ste-utility/ste/schemas/decimal"
	"github.com/ste-utility/ste/schemas/xmltext"
)

// Decoder turns records into Messages: TOO_LARGE, MALFORMED and SCHEMA are
// decided here, the rules that need reference data later. A Decoder reuses the
// XML scanner's buffers, so use one per goroutine.
type Decoder struct {
	doc  xmltext.Document
	kids []int
}

// header field slots, in the order their SCHEMA checks run.
const (
	hMsgId = iota
	hMsgType
	hFunction
	hSender
	hCreated
	hRelatedMsgId
	hSigner // version 3: optional, a delegated signer
	numHeader
)

var headerNames = [numHeader]string{"MsgId", "MsgType", "Function", "Sender", "Created", "RelatedMsgId", "Signer"}

// key field slots.
const (
	kTradeRef = iota
	kTradeDate
	kISIN
	kSide
	kBroker
	kInvMgr
	numKey
)

var keyNames = [numKey]string{"TradeRef", "TradeDate", "ISIN", "Side", "Broker", "InvMgr"}

// raw holds the trimmed texts of the fields before type checks.
type raw struct {
	header  [numHeader]string
	hasH    [numHeader]bool
	key     [numKey]string
	hasK    [numKey]bool
	body    [numFields]string
	hasB    [numFields]bool
	problem string // first structural SCHEMA problem (a field given twice, markup in a field)
}

// Decode reads one record. It returns the message as far as it could be read
// (nil only when not even its markup could be read) and the rejection, if any.
// On SCHEMA errors Sender and MsgId are still filled in where present, because
// exceptions and NACKs name them.
func (d *Decoder) Decode(rec []byte) (*Message, *Rejection) {
	if len(rec) > MaxRecord {
		return nil, reject(TooLarge, TooLargeDetail(int64(len(rec))))
	}
	if len(rec) == 0 {
		return nil, reject(Malformed, "empty record: no value, so no XML message")
	}
	if err := d.doc.Parse(rec); err != nil {
		return nil, reject(Malformed, "not well-formed XML: "+err.Error())
	}
	els := d.doc.Elements
	if string(els[0].Name) != "Msg" {
		return nil, reject(Malformed, "root element is <"+Echo(string(els[0].Name))+">, want <Msg>")
	}
	// One copy of the record as a string: every field is a substring of it, so
	// decoding costs one allocation for text however many fields there are.
	text := string(rec)
	str := func(b []byte) string {
		if len(b) == 0 {
			return ""
		}
		off := uintptr(unsafe.Pointer(unsafe.SliceData(b))) - uintptr(unsafe.Pointer(unsafe.SliceData(rec)))
		if off < uintptr(len(rec)) && int(off)+len(b) <= len(rec) {
			return text[off : int(off)+len(b)]
		}
		return string(b) // decoded text (entities, CDATA) lives in the scanner's scratch
	}

	m := &Message{Raw: rec, SignedStart: -1, SignedEnd: -1}
	var r raw
	header, body, sig := -1, -1, -1
	d.kids = d.doc.Children(d.kids[:0], 0)
	for _, i := range d.kids {
		switch string(els[i].Name) {
		case "Header":
			if header >= 0 {
				r.note("<Header> given twice")
				continue
			}
			header = i
		case "Body":
			if body >= 0 {
				r.note("<Body> given twice")
				continue
			}
			body = i
		case "Sig":
			if sig >= 0 {
				r.note("<Sig> given twice")
				continue
			}
			sig = i
		}
	}
	if header < 0 || body < 0 {
		missing := "<Header>"
		var partial *Message
		if header >= 0 {
			missing = "<Body>"
			// The Header could be read: exceptions name its Sender and MsgId.
			partial = &Message{Raw: rec, SignedStart: -1, SignedEnd: -1}
			if i := d.doc.Child(header, "Sender"); i >= 0 {
				partial.Sender = str(trim(els[i].Text))
			}
			if i := d.doc.Child(header, "MsgId"); i >= 0 {
				partial.MsgId = str(trim(els[i].Text))
			}
		}
		return partial, reject(Malformed, "<Msg> has no "+missing+" element")
	}
	if els[header].Start < els[body].Start {
		m.SignedStart, m.SignedEnd = int(els[header].Start), int(els[body].End)
	}
	if sig >= 0 {
		m.HasSig = true
		m.Sig = str(trim(els[sig].Text))
		for _, a := range els[sig].Attrs {
			if string(a.Name) == "alg" {
				m.HasSigAlg, m.SigAlg = true, str(trim(a.Value))
			}
		}
	}

	d.kids = d.doc.Children(d.kids[:0], header)
	for _, i := range d.kids {
		if slot := headerSlot(els[i].Name); slot >= 0 {
			r.set(&r.header[slot], &r.hasH[slot], headerNames[slot], &els[i], str)
		}
	}
	d.kids = d.doc.Children(d.kids[:0], body)
	for _, i := range d.kids {
		name := els[i].Name
		if slot := keySlot(name); slot >= 0 {
			r.set(&r.key[slot], &r.hasK[slot], keyNames[slot], &els[i], str)
		} else if f, ok := fieldByName(name); ok {
			r.bodyField(f, &els[i], str)
		}
	}
	// Identity first: exceptions and NACKs name it even when the rest is bad.
	m.Sender = r.header[hSender]
	m.MsgId = r.header[hMsgId]
	if rej := r.check(m); rej != nil {
		return m, rej
	}
	return m, nil
}

// TooLargeDetail is the detail of a TOO_LARGE record of n bytes.
func TooLargeDetail(n int64) string {
	return "record is " + strconv.FormatInt(n, 10) + " bytes; the limit is 65536"
}

// quote is a value of the record as a detail shows it: quoted, and cut to
// MaxEcho characters so that no output amplifies its input.
func quote(v string) string { return strconv.Quote(Echo(v)) }

func (r *raw) note(problem string) {
	if r.problem == "" {
		r.problem = problem
	}
}

func (r *raw) set(dst *string, has *bool, name string, el *xmltext.Element, str func([]byte) string) {
	if *has {
		r.note("<" + name + "> given twice")
		return
	}
	*has = true
	if el.Children > 0 {
		r.note("<" + name + "> must hold text, not elements")
	}
	*dst = str(trim(el.Text))
}

// bodyField records a body field; whether it belongs to the message's type is
// decided in check, once the type is known (fields of other types are unknown
// elements and ignored, so a repeated one is not an error either).
func (r *raw) bodyField(f Field, el *xmltext.Element, str func([]byte) string) {
	if r.hasB[f] {
		// Remember the repetition under the field's own flag; check reports it
		// only if the field belongs to the type.
		r.body[f] = "\x00dup"
		return
	}
	r.hasB[f] = true
	if el.Children > 0 {
		r.body[f] = "\x00markup"
		return
	}
	r.body[f] = str(trim(el.Text))
}

// check applies the SCHEMA rules in a fixed order and fills m.
func (r *raw) check(m *Message) *Rejection {
	if r.problem != "" {
		return reject(Schema, r.problem)
	}
	for slot := 0; slot < hRelatedMsgId; slot++ {
		if !r.hasH[slot] || r.header[slot] == "" {
			return reject(Schema, "Header field <"+headerNames[slot]+"> is missing or empty")
		}
	}
	if !IsMsgId(m.MsgId) {
		return reject(Schema, "MsgId "+quote(m.MsgId)+" must be 1 to 64 characters of A-Z a-z 0-9 . _ : -")
	}
	var ok bool
	if m.Type, ok = ParseMsgType(r.header[hMsgType]); !ok {
		return reject(Schema, "MsgType "+quote(r.header[hMsgType])+" is not NOE, ALC, NPR, SET, AFF, CXL, CXA or CXJ")
	}
	if m.Function, ok = ParseFunction(r.header[hFunction]); !ok {
		return reject(Schema, "Function "+quote(r.header[hFunction])+" is not NEW, CANCEL or REPLACE")
	}
	if m.Type.IsLifecycle() && m.Function != NEW {
		return reject(Schema, m.Type.String()+" has Function NEW only, not "+m.Function.String()+
			": it cannot be cancelled or replaced; a principal sends another message instead")
	}
	if !IsBIC(m.Sender) {
		return reject(Schema, "Sender "+quote(m.Sender)+" is not a BIC (8 or 11 of A-Z 0-9)")
	}
	if r.hasH[hSigner] {
		// Present, it must name a signer: an empty one is a mistake, not
		// "signed by the Sender".
		if m.Signer = r.header[hSigner]; !IsBIC(m.Signer) {
			return reject(Schema, "Signer "+quote(m.Signer)+" is not a BIC (8 or 11 of A-Z 0-9); leave <Signer> out when the Sender signs")
		}
	}
	created, err := ParseTimestamp(r.header[hCreated])
	switch {
	case err == ErrTimestampRange:
		// Well-formed but beyond int64 nanoseconds: BAD_DATE in validation
		// (it used to wrap around and pass the 24 h rule).
		m.CreatedOutOfRange = true
	case err != nil:
		return reject(Schema, "Created "+quote(r.header[hCreated])+" is not an RFC 3339 timestamp")
	}
	m.Created = created
	// RelatedMsgId: a CANCEL's or REPLACE's target, the CXL a CXA or CXJ
	// answers; ignored on a NEW of another type (an AFF, a CXL included).
	if m.Function != NEW || m.Type == CXA || m.Type == CXJ {
		m.RelatedMsgId = r.header[hRelatedMsgId]
		if m.RelatedMsgId == "" {
			on := m.Function.String()
			if m.Function == NEW {
				on = m.Type.String() + " (it names the CXL it answers)"
			}
			return reject(Schema, "RelatedMsgId is required on "+on)
		}
		if !IsMsgId(m.RelatedMsgId) {
			return reject(Schema, "RelatedMsgId "+quote(m.RelatedMsgId)+" is not of the MsgId form")
		}
	}

	for slot := 0; slot < numKey; slot++ {
		if !r.hasK[slot] || r.key[slot] == "" {
			return reject(Schema, "Body field <"+keyNames[slot]+"> is missing or empty")
		}
	}
	k := &m.Key
	k.TradeRef, k.TradeDate, k.ISIN = r.key[kTradeRef], r.key[kTradeDate], r.key[kISIN]
	k.Side, k.Broker, k.InvMgr = r.key[kSide], r.key[kBroker], r.key[kInvMgr]
	if utf8.RuneCountInString(k.TradeRef) > 35 {
		return reject(Schema, "TradeRef is longer than 35 characters")
	}
	if m.TradeDate, err = date.Parse(k.TradeDate); err != nil {
		return reject(Schema, "TradeDate "+quote(k.TradeDate)+" is not a YYYY-MM-DD date")
	}
	if !IsISIN(k.ISIN) {
		return reject(Schema, "ISIN "+quote(k.ISIN)+" is not 12 of A-Z 0-9")
	}
	switch k.Side {
	case "BUY":
		m.Side = BUY
	case "SELL":
		m.Side = SELL
	default:
		return reject(Schema, "Side "+quote(k.Side)+" is not BUY or SELL")
	}
	if !IsBIC(k.Broker) {
		return reject(Schema, "Broker "+quote(k.Broker)+" is not a BIC (8 or 11 of A-Z 0-9)")
	}
	if !IsBIC(k.InvMgr) {
		return reject(Schema, "InvMgr "+quote(k.InvMgr)+" is not a BIC (8 or 11 of A-Z 0-9)")
	}

	// A CANCEL needs only the key fields (and a SET CANCEL its Custodian, which
	// says who may send it); other fields it carries are checked like any other.
	required := RequiredFields[m.Type]
	if m.Function == CANCEL {
		required = 0
		if m.Type == SET {
			required = fields(FCustodian)
		}
	}
	for _, f := range BodyFields[m.Type] {
		if f == FRejectReason {
			if m.Decision != REJECT {
				continue // ignored (not validated) on an AFFIRM
			}
			required |= 1 << f
		}
		v, has := r.body[f], r.hasB[f]
		switch {
		case v == "\x00dup":
			return reject(Schema, "<"+f.String()+"> given twice")
		case v == "\x00markup":
			return reject(Schema, "<"+f.String()+"> must hold text, not elements")
		case !has || v == "":
			if required.Has(f) {
				what := m.Type.String() + " " + m.Function.String()
				if f == FRejectReason {
					what = "AFF with Decision REJECT"
				}
				return reject(Schema, what+" needs <"+f.String()+">; it is missing or empty")
			}
			continue
		}
		if rej := m.setField(f, v); rej != nil {
			return rej
		}
		m.Has |= 1 << f
	}
	return nil
}

func (m *Message) setField(f Field, v string) *Rejection {
	switch f {
	case FQuantity:
		n, ok := ParseInteger(v)
		if !ok {
			if !isInteger(v) {
				return reject(Schema, "Quantity "+quote(v)+" is not a whole number of shares")
			}
			m.OutOfRange |= 1 << f // well-formed but beyond what STE holds: BAD_AMOUNT later
		}
		m.Quantity = n
	case FAllocCount:
		n, ok := ParseInteger(v)
		if !ok || n < 1 || n > 1<<20 {
			return reject(Schema, "AllocCount "+quote(v)+" is not a positive integer")
		}
		m.AllocCount = int(n)
	case FPrice:
		d, written, err := decimal.Parse(v)
		if err == decimal.ErrSyntax {
			return reject(Schema, "Price "+quote(v)+" is not a decimal number")
		}
		if written > 6 {
			return reject(Schema, "Price "+quote(v)+" has more than 6 decimals")
		}
		if err != nil {
			m.OutOfRange |= 1 << f
		}
		m.Price = d
	case FGrossAmount, FCommission, FFees, FNetAmount:
		d, _, err := decimal.Parse(v)
		if err == decimal.ErrSyntax {
			return reject(Schema, f.String()+" "+quote(v)+" is not a decimal number")
		}
		if err != nil {
			m.OutOfRange |= 1 << f
		}
		switch f {
		case FGrossAmount:
			m.GrossAmount = d
		case FCommission:
			m.Commission = d
		case FFees:
			m.Fees = d
		default:
			m.NetAmount = d
		}
	case FTradeCcy, FSettleCcy:
		if !IsCurrencyCode(v) {
			return reject(Schema, f.String()+" "+quote(v)+" is not 3 of A-Z")
		}
		if f == FTradeCcy {
			m.TradeCcy = v
		} else {
			m.SettleCcy = v
		}
	case FSettleDate:
		d, err := date.Parse(v)
		if err != nil {
			return reject(Schema, "SettleDate "+quote(v)+" is not a YYYY-MM-DD date")
		}
		m.SettleDate = d
	case FMarket:
		if !IsMIC(v) {
			return reject(Schema, "Market "+quote(v)+" is not a MIC (4 of A-Z 0-9)")
		}
		m.Market = v
	case FExecTime:
		t, err := ParseTimestamp(v)
		if err != nil && err != ErrTimestampRange {
			return reject(Schema, "ExecTime "+quote(v)+" is not an RFC 3339 timestamp")
		}
		// Out of range, t is the nearest time STE holds: ExecTime is carried
		// by the NOE but compared and written nowhere.
		m.ExecTime = t
	case FCustodian, FPSET:
		if !IsBIC(v) {
			return reject(Schema, f.String()+" "+quote(v)+" is not a BIC (8 or 11 of A-Z 0-9)")
		}
		if f == FCustodian {
			m.Custodian = v
		} else {
			m.PSET = v
		}
	case FAccount:
		m.Account = v
	case FSafekeepingAccount:
		m.SafekeepingAccount = v
	case FCashAccount:
		m.CashAccount = v
	case FDecision:
		d, ok := ParseDecision(v)
		if !ok {
			return reject(Schema, "Decision "+quote(v)+" is not AFFIRM or REJECT")
		}
		m.Decision = d
	case FMatchDigest, FAmends:
		if !IsMatchDigest(v) {
			return reject(Schema, f.String()+" "+quote(v)+" is not 64 lower-case hex characters")
		}
		if f == FMatchDigest {
			m.MatchDigest = v
		} else {
			m.Amends = v
		}
	case FAffirms:
		toks, rej := parseAffirms(v)
		if rej != nil {
			return rej
		}
		m.Affirms = toks
	case FRejectReason:
		codes, rej := parseRejectReason(v)
		if rej != nil {
			return rej
		}
		m.RejectReason = codes
	case FCancelReason:
		c, rej := parseCancelReason(v)
		if rej != nil {
			return rej
		}
		m.CancelReason = c
	}
	return nil
}

func headerSlot(name []byte) int {
	switch string(name) {
	case "MsgId":
		return hMsgId
	case "MsgType":
		return hMsgType
	case "Function":
		return hFunction
	case "Sender":
		return hSender
	case "Created":
		return hCreated
	case "RelatedMsgId":
		return hRelatedMsgId
	case "Signer":
		return hSigner
	}
	return -1
}

func keySlot(name []byte) int {
	switch string(name) {
	case "TradeRef":
		return kTradeRef
	case "TradeDate":
		return kTradeDate
	case "ISIN":
		return kISIN
	case "Side":
		return kSide
	case "Broker":
		return kBroker
	case "InvMgr":
		return kInvMgr
	}
	return -1
}

func fieldByName(name []byte) (Field, bool) {
	switch string(name) {
	case "Quantity":
		return FQuantity, true
	case "Price":
		return FPrice, true
	case "TradeCcy":
		return FTradeCcy, true
	case "SettleDate":
		return FSettleDate, true
	case "Market":
		return FMarket, true
	case "ExecTime":
		return FExecTime, true
	case "AllocCount":
		return FAllocCount, true
	case "Account":
		return FAccount, true
	case "Custodian":
		return FCustodian, true
	case "PSET":
		return FPSET, true
	case "GrossAmount":
		return FGrossAmount, true
	case "Commission":
		return FCommission, true
	case "Fees":
		return FFees, true
	case "NetAmount":
		return FNetAmount, true
	case "SettleCcy":
		return FSettleCcy, true
	case "SafekeepingAccount":
		return FSafekeepingAccount, true
	case "CashAccount":
		return FCashAccount, true
	case "Decision":
		return FDecision, true
	case "MatchDigest":
		return FMatchDigest, true
	case "Affirms":
		return FAffirms, true
	case "Amends":
		return FAmends, true
	case "RejectReason":
		return FRejectReason, true
	case "CancelReason":
		return FCancelReason, true
	}
	return 0, false
}

// trim removes XML white space (space, tab, CR, LF) around a value.
func trim(b []byte) []byte {
	i, j := 0, len(b)
	for i < j && isSpace(b[i]) {
		i++
	}
	for j > i && isSpace(b[j-1]) {
		j--
	}
	return b[i:j]
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// IsBIC reports 8 or 11 characters of A-Z 0-9.
func IsBIC(s string) bool {
	return (len(s) == 8 || len(s) == 11) && upperAlnum(s)
}

// IsISIN reports 12 characters of A-Z 0-9 (the check digit is a reference-data rule).
func IsISIN(s string) bool { return len(s) == 12 && upperAlnum(s) }

// IsMIC reports 4 characters of A-Z 0-9 (ISO 10383 market identifier code).
func IsMIC(s string) bool { return len(s) == 4 && upperAlnum(s) }

// IsCurrencyCode reports 3 characters of A-Z.
func IsCurrencyCode(s string) bool {
	if len(s) != 3 {
		return false
	}
	for i := 0; i < 3; i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}

// IsMsgId reports 1 to 64 characters of A-Z a-z 0-9 . _ : -
func IsMsgId(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == ':' || c == '-') {
			return false
		}
	}
	return true
}

func upperAlnum(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// isInteger reports the form [+-]digits, whatever its size.
func isInteger(s string) bool {
	if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// ParseInteger reads [+-]digits of at most 18 digits into an int64; "100.0"
// is not an integer.
func ParseInteger(s string) (int64, bool) {
	i := 0
	neg := false
	if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		i = 1
	}
	if i == len(s) || len(s)-i > 18 {
		return 0, false
	}
	var n int64
	for ; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// ErrTimestampRange is a well-formed timestamp outside the times Unix
// nanoseconds in an int64 can hold (MinTime to MaxTime).
var ErrTimestampRange = errors.New("timestamp outside 1677-09-21T00:12:43Z to 2262-04-11T23:47:16Z")

// MinTime and MaxTime bound the timestamps STE holds exactly.
var (
	MinTime = time.Unix(0, math.MinInt64).UTC()
	MaxTime = time.Unix(0, math.MaxInt64).UTC()
)

// ParseTimestamp reads an RFC 3339 timestamp into Unix nanoseconds. RFC 3339
// allows a lower-case "t" and "z" (section 5.6), which Go's parser does not.
// A well-formed timestamp outside MinTime..MaxTime returns the nearest bound
// and ErrTimestampRange (time.Time.UnixNano is undefined there: 9999 wrapped
// into the past).
func ParseTimestamp(s string) (int64, error) {
	if len(s) > 10 && (s[10] == 't' || s[len(s)-1] == 'z') {
		b := []byte(s)
		if b[10] == 't' {
			b[10] = 'T'
		}
		if b[len(b)-1] == 'z' {
			b[len(b)-1] = 'Z'
		}
		s = string(b)
	}
	t, err := time.Parse(time.RFC3339, s)
	switch {
	case err != nil:
		return 0, err
	case t.Before(MinTime):
		return math.MinInt64, ErrTimestampRange
	case t.After(MaxTime):
		return math.MaxInt64, ErrTimestampRange
	}
	return t.UnixNano(), nil
}

// FormatTimestamp writes UTC with milliseconds, the contract's output form.
func FormatTimestamp(ns int64) string {
	var b [32]byte // on the stack: the string is the one allocation
	return string(AppendTimestamp(b[:0], ns))
}

// AppendTimestamp appends FormatTimestamp(ns) to b. Written by hand: every
// output carries one or two (CreationTimestamp, MatchedAt), and time.Format
// cost half a microsecond a message (docs/benchmarks.md, issue 50).
func AppendTimestamp(b []byte, ns int64) []byte {
	return appendInstant(b, ns, 1e9, 1e6, 3, "2006-01-02T15:04:05.000Z")
}
