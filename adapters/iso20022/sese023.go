package iso20022

import (
	"errors"

	"github.com/ste-utility/ste/adapters/msgid"
	"github.com/ste-utility/ste/adapters/stexml"
)

// Reason is one Rsn of a status: an ISO code and its AddtlRsnInf.
type Reason struct{ Code, Info string }

// Instruction is a sese.023 read against the profile of §5.3.
type Instruction struct {
	TxId     string
	Mvmnt    string // RECE or DELI (P15)
	Header   stexml.Header
	Body     []stexml.Field
	Failures []Reason // the violated rows, in table order
}

// Profile rows of §5.3 whose failure is a 422, with their codes and the
// path AddtlRsnInf names.
var (
	rowP1  = Reason{"OTHR", "TradDtls/TradId"}
	rowP2  = Reason{"DTRD", "TradDtls/TradDt/Dt"}
	rowP3  = Reason{"DDAT", "TradDtls/SttlmDt/Dt"}
	rowP4  = Reason{"DSEC", "FinInstrmId/ISIN"}
	rowP5  = Reason{"DQUA", "QtyAndAcctDtls/SttlmQty/Qty/Unit"}
	rowP6  = Reason{"DMON", "SttlmTpAndAddtlParams/Pmt"}
	rowP7  = Reason{"SETR", "SttlmParams/SctiesTxTp/Cd"}
	rowP8  = Reason{"OTHR", "QtyAndAcctDtls/AcctOwnr/Id/AnyBIC"}
	rowP9  = Reason{"OTHR", "OthrBizPties/Brkr/Id/AnyBIC"}
	rowP10 = Reason{"OTHR", "OthrBizPties/Invstr"}
	rowP11 = Reason{"SAFE", "QtyAndAcctDtls/SfkpgAcct/Id"}
	rowP12 = Reason{"CASH", "QtyAndAcctDtls/CshAcct"}
	rowP13 = Reason{"DEPT", "Dpstry/Id/AnyBIC"}
	rowP15 = Reason{"OTHR", "SttlmTpAndAddtlParams/SctiesMvmntTp"}
)

// dateOf reads a TradDt or SttlmDt (path …/Dt): the date as written (its
// first 10 characters) and, from a DtTm, the timestamp as STE writes it.
func (x *Doc) dateOf(path string) (date, created string, ok bool) {
	if d := x.Code(path + "/Dt"); x.Has(path + "/Dt") {
		if v, ok := stexml.ISODate(d); ok {
			return v, v + "T00:00:00.000Z", true
		}
		return "", "", false
	}
	if x.Has(path + "/DtTm") {
		d := x.Code(path + "/DtTm")
		if ts, ok := stexml.ISODateTime(d); ok {
			return d[:10], ts, true
		}
	}
	return "", "", false
}

// Translate reads a sese.023 (ParseDocument's) for the authenticated
// participant sender, signed as signer: the SET NEW of §5.3, or the
// profile rows it breaks.
func Translate023(x *Doc, sender, signer string) *Instruction {
	in := &Instruction{}
	in.TxId, _ = x.TxId()
	fail := func(r Reason) { in.Failures = append(in.Failures, r) }

	tradeRef, okP1 := x.Text("TradDtls/TradId")
	if !okP1 {
		fail(rowP1)
	}
	tradeDate, created, okP2 := x.dateOf("TradDtls/TradDt/Dt")
	if !okP2 {
		fail(rowP2)
	}
	settleDate, _, okP3 := x.dateOf("TradDtls/SttlmDt/Dt")
	if !okP3 {
		fail(rowP3)
	}
	isin, okP4 := x.Text("FinInstrmId/ISIN")
	if !okP4 {
		fail(rowP4)
	}
	qty, okP5 := stexml.Decimal(x.Code("QtyAndAcctDtls/SttlmQty/Qty/Unit"))
	if !x.Has("QtyAndAcctDtls/SttlmQty/Qty/Unit") || !okP5 {
		okP5 = false
		fail(rowP5)
	}
	mvmnt := x.Code("SttlmTpAndAddtlParams/SctiesMvmntTp")
	okP15 := mvmnt == "RECE" || mvmnt == "DELI"
	// P6: APMT with a settlement amount, a decimal with a currency, debited
	// for a receipt and credited for a delivery (the direction only when
	// P15 holds).
	amt, okAmt := stexml.Decimal(x.Code("SttlmAmt/Amt"))
	ccy, hasCcy := x.Attr("SttlmAmt/Amt", "Ccy")
	dir := x.Code("SttlmAmt/CdtDbtInd")
	okP6 := x.Code("SttlmTpAndAddtlParams/Pmt") == "APMT" && x.Has("SttlmAmt/Amt") && okAmt && hasCcy && ccy != ""
	if okP15 && okP6 {
		okP6 = mvmnt == "RECE" && dir == "DBIT" || mvmnt == "DELI" && dir == "CRDT"
	}
	if !okP6 {
		fail(rowP6)
	}
	if x.Code("SttlmParams/SctiesTxTp/Cd") != "TRAD" {
		fail(rowP7)
	}
	invMgr, okP8 := x.Text("QtyAndAcctDtls/AcctOwnr/Id/AnyBIC")
	if !okP8 {
		fail(rowP8)
	}
	broker, okP9 := x.Text("OthrBizPties/Brkr/Id/AnyBIC")
	if !okP9 {
		fail(rowP9)
	}
	account, okP10 := x.Text("OthrBizPties/Invstr/Id/PrtryId/Id")
	if x.count("OthrBizPties", "Invstr") != 1 || !okP10 {
		okP10 = false
		fail(rowP10)
	}
	safe, okP11 := x.Text("QtyAndAcctDtls/SfkpgAcct/Id")
	if !okP11 {
		fail(rowP11)
	}
	cash, okP12 := x.Text("QtyAndAcctDtls/CshAcct/IBAN")
	if !okP12 {
		cash, okP12 = x.Text("QtyAndAcctDtls/CshAcct/Prtry")
	}
	if !okP12 {
		fail(rowP12)
	}
	// P13: the counterparty side's depository, else the own side's; both
	// present and different fails. Without a movement (P15 fails) the sides
	// are unknown: one present, or both equal, is taken.
	dlv, hasDlv := x.Text("DlvrgSttlmPties/Dpstry/Id/AnyBIC")
	rcv, hasRcv := x.Text("RcvgSttlmPties/Dpstry/Id/AnyBIC")
	pset, okP13 := "", false
	switch {
	case hasDlv && hasRcv:
		pset, okP13 = dlv, dlv == rcv
	case hasDlv:
		pset, okP13 = dlv, true
	case hasRcv:
		pset, okP13 = rcv, true
	}
	if !okP13 {
		fail(rowP13)
	}
	if !okP15 {
		// P15 comes after P14 in the table; P14 is checked only once every
		// other row holds (there is no record before), so P15 is last.
		fail(rowP15)
	}
	if len(in.Failures) > 0 {
		return in
	}
	in.Mvmnt = mvmnt
	side := "BUY"
	if mvmnt == "DELI" {
		side = "SELL"
	}
	id, err := msgid.Make(msgid.ISOInstruction, in.TxId)
	if err != nil {
		fail(Reason{"OTHR", "invalid character in TxId"})
		return in
	}
	in.Header = stexml.Header{MsgId: id, MsgType: "SET", Function: "NEW", Sender: sender, Signer: signer, Created: created}
	in.Body = []stexml.Field{stexml.F("TradeRef", tradeRef), stexml.F("TradeDate", tradeDate), stexml.F("ISIN", isin), stexml.F("Side", side),
		stexml.F("Broker", broker), stexml.F("InvMgr", invMgr), stexml.F("Account", account), stexml.F("Quantity", qty), stexml.F("SettleDate", settleDate),
		stexml.F("SettleCcy", ccy), stexml.F("NetAmount", amt), stexml.F("Custodian", sender), stexml.F("PSET", pset),
		stexml.F("SafekeepingAccount", safe), stexml.F("CashAccount", cash)}
	return in
}

// paths of the mapped values, for P14's "invalid character in <path>".
var fieldPaths = map[string]string{
	"TradeRef": "TradDtls/TradId", "ISIN": "FinInstrmId/ISIN", "Broker": "OthrBizPties/Brkr/Id/AnyBIC",
	"InvMgr": "QtyAndAcctDtls/AcctOwnr/Id/AnyBIC", "Account": "OthrBizPties/Invstr/Id/PrtryId/Id",
	"SettleCcy": "SttlmAmt/Amt/@Ccy", "PSET": "Dpstry/Id/AnyBIC", "SafekeepingAccount": "QtyAndAcctDtls/SfkpgAcct/Id",
	"CashAccount": "QtyAndAcctDtls/CshAcct", "Custodian": "Custodian",
}

// P14Reason is the profile failure of a record that cannot be built
// (stexml.Build's error): TOO_LARGE, or an invalid character in a path.
func P14Reason(err error) Reason {
	var bv *stexml.BadValueError
	if errors.As(err, &bv) {
		p := fieldPaths[bv.Field]
		if p == "" {
			p = bv.Field
		}
		return Reason{"OTHR", "invalid character in " + p}
	}
	return Reason{"OTHR", "TOO_LARGE"}
}
