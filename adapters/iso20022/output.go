package iso20022

import (
	"strings"

	"github.com/ste-utility/ste/adapters/stexml"
)

// The output bytes of adapters.md §5.7: the declaration, one '\n', the
// Document in its default namespace, elements in XSD order with no
// whitespace, text escaped as §3.1, every AddtlRsnInf cut to 210
// characters; no trailing newline.

const declaration = `<?xml version="1.0" encoding="UTF-8"?>` + "\n"

type w struct{ strings.Builder }

func (b *w) open(name string)  { b.WriteString("<" + name + ">") }
func (b *w) close(name string) { b.WriteString("</" + name + ">") }
func (b *w) empty(name string) { b.WriteString("<" + name + "/>") }
func (b *w) text(name, v string) {
	b.open(name)
	stexml.Escape(&b.Builder, v)
	b.close(name)
}

func document(ns, top string, body func(b *w)) string {
	var b w
	b.WriteString(declaration)
	b.WriteString(`<Document xmlns="` + ns + `">`)
	b.open(top)
	body(&b)
	b.close(top)
	b.WriteString("</Document>")
	return b.String()
}

// cut is s cut to its first n characters (Max210Text).
func cut(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}

func (b *w) reasons(rs []Reason) {
	for _, r := range rs {
		b.open("Rsn")
		b.open("Cd")
		b.text("Cd", r.Code)
		b.close("Cd")
		if r.Info != "" {
			b.text("AddtlRsnInf", cut(r.Info, 210))
		}
		b.close("Rsn")
	}
}

// StatusId is the TxId of a sese.024 (§5.6 common fields).
type StatusId struct {
	AcctOwnrTxId      string // the participant's TxId
	AcctSvcrTxId      string // the STE MsgId, written only when at most 35 characters
	MktInfrstrctrTxId string // the trade key
}

func (b *w) statusId(id StatusId) {
	b.open("TxId")
	b.text("AcctOwnrTxId", id.AcctOwnrTxId)
	if id.AcctSvcrTxId != "" && len(id.AcctSvcrTxId) <= 35 {
		b.text("AcctSvcrTxId", id.AcctSvcrTxId)
	}
	if id.MktInfrstrctrTxId != "" {
		b.text("MktInfrstrctrTxId", id.MktInfrstrctrTxId)
	}
	b.close("TxId")
}

// Status024 is what a sese.024 says: one processing status (or none) and
// one matching status (or none).
type Status024 struct {
	// Processing: "" (none), "AckdAccptd" (NORE), "Rjctd", "Canc" (with
	// Reasons), "CxlReqd" (empty).
	Processing string
	Reasons    []Reason
	// Matching: "" (none), "Mtchd", "Umtchd" (with Unmatched).
	Matching  string
	Unmatched []Reason
}

// Sese024 writes a SecuritiesSettlementTransactionStatusAdvice.
func Sese024(id StatusId, st Status024) string {
	return document(NSSese024, "SctiesSttlmTxStsAdvc", func(b *w) {
		b.statusId(id)
		if st.Processing != "" {
			b.open("PrcgSts")
			switch st.Processing {
			case "AckdAccptd":
				b.open("AckdAccptd")
				b.text("NoSpcfdRsn", "NORE")
				b.close("AckdAccptd")
			case "CxlReqd":
				b.empty("CxlReqd")
			default: // Rjctd, Canc
				b.open(st.Processing)
				b.reasons(st.Reasons)
				b.close(st.Processing)
			}
			b.close("PrcgSts")
		}
		switch st.Matching {
		case "Mtchd":
			b.open("MtchgSts")
			b.empty("Mtchd")
			b.close("MtchgSts")
		case "Umtchd":
			b.open("MtchgSts")
			b.open("Umtchd")
			b.reasons(st.Unmatched)
			b.close("Umtchd")
			b.close("MtchgSts")
		}
	})
}

// SttlmTxId is (TxId, SctiesMvmntTp, Pmt) of sese.027, .029.
type SttlmTxId struct{ TxId, Mvmnt, Pmt string }

func (b *w) sttlmTxId(name string, s SttlmTxId) {
	b.open(name)
	b.text("TxId", s.TxId)
	b.text("SctiesMvmntTp", s.Mvmnt)
	b.text("Pmt", s.Pmt)
	b.close(name)
}

// CancelId is the TxId of a sese.027.
type CancelId struct {
	AcctSvcrTxId      string // the CANCEL MsgId, written only when at most 35 characters
	MktInfrstrctrTxId string
	// Owner is written only when set (a 422 for an input whose movement and
	// payment are not RECE/DELI and APMT/FREE has no TxId at all).
	Owner *SttlmTxId
}

// Sese027 writes a SecuritiesTransactionCancellationRequestStatusAdvice:
// processing "Canc" (Reasons, e.g. CANI), "PdgCxl" (NORE) or "Rjctd".
func Sese027(cxlReqRef string, id *CancelId, processing string, rs []Reason) string {
	return document(NSSese027, "SctiesTxCxlReqStsAdvc", func(b *w) {
		b.text("CxlReqRef", cxlReqRef)
		if id != nil && id.Owner != nil {
			b.open("TxId")
			if id.AcctSvcrTxId != "" && len(id.AcctSvcrTxId) <= 35 {
				b.text("AcctSvcrTxId", id.AcctSvcrTxId)
			}
			if id.MktInfrstrctrTxId != "" {
				b.text("MktInfrstrctrTxId", id.MktInfrstrctrTxId)
			}
			b.open("AcctOwnrTxId")
			b.sttlmTxId("SctiesSttlmTxId", *id.Owner)
			b.close("AcctOwnrTxId")
			b.close("TxId")
		}
		b.open("PrcgSts")
		switch processing {
		case "PdgCxl":
			b.open("PdgCxl")
			b.text("NoSpcfdRsn", "NORE")
			b.close("PdgCxl")
		default:
			b.open(processing)
			b.reasons(rs)
			b.close(processing)
		}
		b.close("PrcgSts")
	})
}

// Allegement is one sese.028 (§5.6, ALG NEW).
type Allegement struct {
	TxId, Mvmnt, TradeKey, TradeRef, TradeDate, SettleDate, ISIN, Quantity, InvMgr, Account string
}

// Sese028 writes a SecuritiesSettlementTransactionAllegementNotification.
func Sese028(a Allegement) string {
	return document(NSSese028, "SctiesSttlmTxAllgmtNtfctn", func(b *w) {
		b.text("TxId", a.TxId)
		b.open("SttlmTpAndAddtlParams")
		b.text("SctiesMvmntTp", a.Mvmnt)
		b.text("Pmt", "APMT")
		b.close("SttlmTpAndAddtlParams")
		b.text("MktInfrstrctrTxId", a.TradeKey)
		b.open("TradDtls")
		b.text("TradId", a.TradeRef)
		b.WriteString("<TradDt><Dt>")
		b.text("Dt", a.TradeDate)
		b.WriteString("</Dt></TradDt><SttlmDt><Dt>")
		b.text("Dt", a.SettleDate)
		b.WriteString("</Dt></SttlmDt>")
		b.close("TradDtls")
		b.open("FinInstrmId")
		b.text("ISIN", a.ISIN)
		b.close("FinInstrmId")
		b.open("QtyAndAcctDtls")
		b.open("SttlmQty")
		b.text("Unit", a.Quantity)
		b.close("SttlmQty")
		b.WriteString("<AcctOwnr><Id>")
		b.text("AnyBIC", a.InvMgr)
		b.WriteString("</Id></AcctOwnr>")
		b.close("QtyAndAcctDtls")
		b.WriteString("<SttlmParams><SctiesTxTp>")
		b.text("Cd", "TRAD")
		b.WriteString("</SctiesTxTp></SttlmParams>")
		if a.Account != "" && len([]rune(a.Account)) <= 35 {
			b.WriteString("<OthrBizPties><Invstr><Id><PrtryId>")
			b.text("Id", a.Account)
			b.text("Issr", a.InvMgr)
			b.WriteString("</PrtryId></Id></Invstr></OthrBizPties>")
		}
	})
}

// Sese029 writes a SecuritiesSettlementAllegementRemovalAdvice for the
// sese.028 of that TxId.
func Sese029(s SttlmTxId) string {
	return document(NSSese029, "SctiesSttlmAllgmtRmvlAdvc", func(b *w) {
		b.sttlmTxId("AcctSvcrTxId", s)
	})
}
