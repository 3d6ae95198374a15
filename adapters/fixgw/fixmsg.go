package fixgw

import (
	"bytes"
	"strconv"

	"github.com/quickfixgo/quickfix/datadictionary"
)

// Tags the adapter reads or writes (FIX 4.4).
const (
	tagAvgPx                  = 6
	tagBeginString            = 8
	tagClOrdID                = 11
	tagCommission             = 12
	tagCommType               = 13
	tagCurrency               = 15
	tagExecID                 = 17
	tagSecurityIDSource       = 22
	tagLastMkt                = 30
	tagLastPx                 = 31
	tagLastQty                = 32
	tagMsgSeqNum              = 34
	tagMsgType                = 35
	tagOrderID                = 37
	tagPossDupFlag            = 43
	tagRefSeqNum              = 45
	tagSecurityID             = 48
	tagSenderCompID           = 49
	tagSendingTime            = 52
	tagQuantity               = 53
	tagSide                   = 54
	tagSymbol                 = 55
	tagTargetCompID           = 56
	tagText                   = 58
	tagTransactTime           = 60
	tagSettlDate              = 64
	tagAllocID                = 70
	tagAllocTransType         = 71
	tagRefAllocID             = 72
	tagNoOrders               = 73
	tagTradeDate              = 75
	tagNoAllocs               = 78
	tagAllocAccount           = 79
	tagAllocQty               = 80
	tagAllocStatus            = 87
	tagAllocRejCode           = 88
	tagPossResend             = 97
	tagEncryptMethod          = 98
	tagHeartBtInt             = 108
	tagOnBehalfOfCompID       = 115
	tagNetMoney               = 118
	tagSettlCurrency          = 120
	tagOrigSendingTime        = 122
	tagDeliverToCompID        = 128
	tagNoMiscFees             = 136
	tagMiscFeeAmt             = 137
	tagMiscFeeCurr            = 138
	tagResetSeqNumFlag        = 141
	tagExecType               = 150
	tagAllocText              = 161
	tagAllocPrice             = 366
	tagRefTagID               = 371
	tagRefMsgType             = 372
	tagSessionRejectReason    = 373
	tagBusinessRejectRefID    = 379
	tagBusinessRejectReason   = 380
	tagGrossTradeAmt          = 381
	tagPartyIDSource          = 447
	tagPartyID                = 448
	tagPartyRole              = 452
	tagNoPartyIDs             = 453
	tagNoSecurityAltID        = 454
	tagSecurityAltID          = 455
	tagSecurityAltIDSource    = 456
	tagNestedPartyID          = 524
	tagNestedPartyIDSource    = 525
	tagOrderCapacity          = 528
	tagNestedPartyRole        = 538
	tagNoNestedPartyIDs       = 539
	tagNoSides                = 552
	tagUsername               = 553
	tagPassword               = 554
	tagNoLegs                 = 555
	tagTradeReportID          = 571
	tagTradeReportRefID       = 572
	tagMatchStatus            = 573
	tagAllocType              = 626
	tagConfirmID              = 664
	tagConfirmStatus          = 665
	tagConfirmTransType       = 666
	tagNoUnderlyings          = 711
	tagConfirmRefID           = 772
	tagConfirmType            = 773
	tagConfirmRejReason       = 774
	tagIndividualAllocRejCode = 776
	tagAllocNoOrdersType      = 857
	tagNoCapacities           = 862
	tagOrderCapacityQty       = 863
	tagTrdMatchID             = 880
	tagTotNoAllocs            = 892
	tagLastFragment           = 893
	tagTrdRptStatus           = 939
	tagAffirmStatus           = 940
	tagTradeReportRejectRsn   = 751
	tagTradeReportTransType   = 487
)

// tagNames name the tags of the adapter's rejection Texts (§4.6:
// `<Tag>(<n>) required`, `invalid character in <Tag>(<n>)`).
var tagNames = map[int]string{
	tagAvgPx: "AvgPx", tagCommission: "Commission", tagCommType: "CommType", tagCurrency: "Currency",
	tagLastMkt: "LastMkt", tagLastPx: "LastPx", tagLastQty: "LastQty", tagOrderID: "OrderID", tagSecurityID: "SecurityID",
	tagQuantity: "Quantity", tagSide: "Side", tagTransactTime: "TransactTime", tagSettlDate: "SettlDate", tagAllocID: "AllocID",
	tagAllocTransType: "AllocTransType", tagRefAllocID: "RefAllocID", tagTradeDate: "TradeDate", tagAllocAccount: "AllocAccount",
	tagAllocQty: "AllocQty", tagNetMoney: "NetMoney", tagSettlCurrency: "SettlCurrency", tagMiscFeeAmt: "MiscFeeAmt",
	tagMiscFeeCurr: "MiscFeeCurr", tagAllocPrice: "AllocPrice", tagGrossTradeAmt: "GrossTradeAmt", tagPartyID: "PartyID",
	tagNestedPartyID: "NestedPartyID", tagTradeReportID: "TradeReportID", tagTradeReportRefID: "TradeReportRefID",
	tagAllocType: "AllocType", tagConfirmID: "ConfirmID", tagConfirmTransType: "ConfirmTransType", tagConfirmRefID: "ConfirmRefID",
	tagConfirmType: "ConfirmType", tagConfirmRejReason: "ConfirmRejReason", tagTradeReportTransType: "TradeReportTransType",
	tagAffirmStatus: "AffirmStatus", tagNoAllocs: "NoAllocs", tagTotNoAllocs: "TotNoAllocs", tagLastFragment: "LastFragment",
	tagSecurityAltID: "SecurityAltID", tagAllocNoOrdersType: "AllocNoOrdersType",
}

func tagName(tag int) string {
	n := tagNames[tag]
	if n == "" {
		n = "Tag"
	}
	return n + "(" + strconv.Itoa(tag) + ")"
}

// tv is one tag=value field of a raw message.
type tv struct {
	tag int
	val string
}

// fields splits a raw FIX message into its fields in order; a data field
// (type DATA) takes the length its preceding length field gives, so it may
// hold SOH. false when raw is not a sequence of tag=value fields.
func fields(raw []byte, dd *datadictionary.DataDictionary) ([]tv, bool) {
	var out []tv
	dataLen := -1
	for len(raw) > 0 {
		eq := bytes.IndexByte(raw, '=')
		if eq <= 0 {
			return nil, false
		}
		tag, err := strconv.Atoi(string(raw[:eq]))
		if err != nil || tag <= 0 {
			return nil, false
		}
		raw = raw[eq+1:]
		var v []byte
		if dataLen >= 0 && isData(dd, tag) && dataLen < len(raw) && raw[dataLen] == 1 {
			v, raw = raw[:dataLen], raw[dataLen+1:]
		} else {
			soh := bytes.IndexByte(raw, 1)
			if soh < 0 {
				return nil, false
			}
			v, raw = raw[:soh], raw[soh+1:]
		}
		dataLen = -1
		if isLength(dd, tag) {
			if n, err := strconv.Atoi(string(v)); err == nil && n >= 0 {
				dataLen = n
			}
		}
		out = append(out, tv{tag, string(v)})
	}
	return out, true
}

func isData(dd *datadictionary.DataDictionary, tag int) bool {
	ft := dd.FieldTypeByTag[tag]
	return ft != nil && ft.Type == "DATA"
}

func isLength(dd *datadictionary.DataDictionary, tag int) bool {
	ft := dd.FieldTypeByTag[tag]
	return ft != nil && ft.Type == "LENGTH"
}

// Node is one level of a parsed message: its fields (the first value of
// each tag) and its repeating groups, each a list of entries.
type Node struct {
	F map[int]string
	G map[int][]*Node
}

func newNode() *Node { return &Node{F: map[int]string{}, G: map[int][]*Node{}} }

// Has says whether tag is present at this level.
func (n *Node) Has(tag int) bool {
	_, ok := n.F[tag]
	return ok
}

// Get is the value of tag at this level ("" when absent).
func (n *Node) Get(tag int) string { return n.F[tag] }

// Group is the entries of a repeating group at this level.
func (n *Node) Group(tag int) []*Node { return n.G[tag] }

// Message is an inbound FIX message read for translation: its header
// fields and its body, with the groups the dictionary defines for its
// MsgType.
type Message struct {
	Raw     []byte
	Type    string
	Header  map[int]string
	Body    *Node
	Trailer map[int]string
}

// Parse reads raw (a whole message, 8= through the checksum's SOH) with
// the dictionary. The engine has validated it against the same dictionary
// before the adapter sees it, so an entry is where its delimiter is.
func Parse(raw []byte, dd *datadictionary.DataDictionary) (*Message, bool) {
	tvs, ok := fields(raw, dd)
	if !ok {
		return nil, false
	}
	m := &Message{Raw: raw, Header: map[int]string{}, Trailer: map[int]string{}, Body: newNode()}
	for _, f := range tvs {
		if f.tag == tagMsgType {
			m.Type = f.val
			break
		}
	}
	def := dd.Messages[m.Type]
	var defs map[int]*datadictionary.FieldDef
	if def != nil {
		defs = def.Fields
	}
	for i := 0; i < len(tvs); {
		f := tvs[i]
		switch {
		case dd.Header != nil && dd.Header.Fields[f.tag] != nil && defs[f.tag] == nil:
			if _, dup := m.Header[f.tag]; !dup {
				m.Header[f.tag] = f.val
			}
			i++
		case dd.Trailer != nil && dd.Trailer.Fields[f.tag] != nil && defs[f.tag] == nil:
			m.Trailer[f.tag] = f.val
			i++
		default:
			i = m.Body.read(tvs, i, defs)
		}
	}
	return m, true
}

// read reads the field at i (a group with its entries) into n and returns
// where the next field starts.
func (n *Node) read(tvs []tv, i int, defs map[int]*datadictionary.FieldDef) int {
	f := tvs[i]
	d := defs[f.tag]
	if d == nil || !d.IsGroup() {
		if _, dup := n.F[f.tag]; !dup {
			n.F[f.tag] = f.val
		}
		return i + 1
	}
	if _, dup := n.F[f.tag]; !dup {
		n.F[f.tag] = f.val
	}
	i++
	delim := d.Fields[0].Tag()
	members := make(map[int]*datadictionary.FieldDef, len(d.Fields))
	for _, m := range d.Fields {
		members[m.Tag()] = m
	}
	for i < len(tvs) && tvs[i].tag == delim {
		e := newNode()
		e.F[delim] = tvs[i].val
		i++
		for i < len(tvs) && tvs[i].tag != delim && members[tvs[i].tag] != nil {
			i = e.read(tvs, i, members)
		}
		n.G[f.tag] = append(n.G[f.tag], e)
	}
	return i
}
