package iso20022

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/ste-utility/ste/adapters"
	"github.com/ste-utility/ste/adapters/journal"
)

// Out is one ISO output, for <ns>.iso20022.outbound: keyed by Receiver,
// served by GET /v1/iso20022/outputs with its source_msg_id, msg_def and
// tx_id (adapters.md §5.2).
type Out struct {
	Receiver    string
	SourceMsgId string // the STE output it was made from
	MsgDef      string
	TxId        string // the participant's TxId (sese.024, .027) or the sese.028's (sese.028, .029)
	XML         string
}

// nackCodes is STE NACK → RejectionReason75Code (§5.6).
var nackCodes = map[string]string{
	"SCHEMA": "OTHR", "SIGNATURE": "OTHR", "NOT_AUTHORISED": "ICUS", "UNKNOWN_PARTY": "OTHR",
	"UNKNOWN_SECURITY": "DSEC", "UNKNOWN_CURRENCY": "NCRR", "BAD_DATE": "DDAT", "BAD_AMOUNT": "DMON",
	"CONFLICTING_DUPLICATE": "REFE", "KEY_COLLISION": "OTHR",
}

// criterionCodes is STE criterion → UnmatchedReason11Code (§5.6).
var criterionCodes = map[int]string{7: "DDEA", 8: "DDEA", 9: "DQUA", 10: "OTHR", 11: "INVE", 12: "DQUA", 13: "DDAT",
	14: "NCRR", 15: "DMON", 16: "ICUS", 17: "DEPT"}

// Translator turns STE outputs into ISO outputs (§5.6) with the journal.
type Translator struct {
	J *journal.Index
	// Enabled says whether a participant lists the adapter's signer in its
	// signers (ALG routing, §5.6).
	Enabled func(bic string) bool
}

// Result is what one STE output became: the documents to produce, then
// the journal entries to write once they are acknowledged.
type Result struct {
	Outs    []Out
	Journal []journal.Entry
}

func mvmntOf(side string) string {
	if side == "SELL" {
		return "DELI"
	}
	return "RECE"
}

// Translate translates one record of <ns>.outbound keyed by key. The
// journal must have been read to its end first (journal.Sync).
func (t *Translator) Translate(key string, raw []byte) Result {
	o, ok := adapters.ReadOutput(raw)
	if !ok || o.Receiver != key {
		return Result{}
	}
	switch o.MsgType {
	case "ACK", "NACK":
		return t.answer(o)
	case "STATUS":
		return t.status(o)
	case "ALG":
		if t.Enabled != nil && t.Enabled(o.Receiver) {
			return t.allegement(o)
		}
	}
	return Result{}
}

// iso are the ISO-origin translations of (participant, MsgId).
func (t *Translator) iso(participant, id string) []*journal.Translation {
	var out []*journal.Translation
	for _, tr := range t.J.Translations(participant, id) {
		if tr.Adapter == journal.ISO20022 {
			out = append(out, tr)
		}
	}
	return out
}

func txIdOf(tr *journal.Translation) string {
	if len(tr.OriginalIDs) > 0 {
		return tr.OriginalIDs[0]
	}
	return ""
}

func (t *Translator) answer(o *adapters.Output) Result {
	ts := t.iso(o.Receiver, o.RelatedMsgId)
	if len(ts) == 0 {
		return Result{}
	}
	a := &journal.Answer{Participant: o.Receiver, MsgId: o.RelatedMsgId, Verdict: o.MsgType, OutputMsgId: o.MsgId}
	tr := ts[0]
	if o.MsgType == "NACK" {
		a.Code, a.Detail = o.Reason, o.Detail
		if i := strings.LastIndexByte(o.MsgId, ':'); i >= 0 {
			a.RecordHash = o.MsgId[i+1:]
		}
		for _, x := range ts {
			if a.RecordHash != "" && strings.HasPrefix(x.RecordSHA256, a.RecordHash) {
				tr = x
				break
			}
		}
	} else {
		for _, x := range ts {
			if !t.J.NACKed(x) {
				tr = x
				break
			}
		}
	}
	res := Result{Journal: []journal.Entry{{Answer: a}}}
	txid := txIdOf(tr)
	info := o.Reason + ": " + o.Detail
	switch tr.Function {
	case "NEW":
		id := StatusId{AcctOwnrTxId: txid, AcctSvcrTxId: tr.MsgId, MktInfrstrctrTxId: tr.TradeKey}
		st := Status024{Processing: "AckdAccptd"}
		if o.MsgType == "NACK" {
			code := nackCodes[o.Reason]
			if code == "" {
				code = "OTHR"
			}
			st = Status024{Processing: "Rjctd", Reasons: []Reason{{code, info}}}
		}
		res.Outs = append(res.Outs, Out{Receiver: o.Receiver, SourceMsgId: o.MsgId, MsgDef: DefSese024, TxId: txid, XML: Sese024(id, st)})
	case "CANCEL":
		id := cancelId(tr)
		xml := Sese027(txid, id, "Canc", []Reason{{Code: "CANI"}})
		if o.MsgType == "NACK" {
			code := "OTHR"
			if o.Reason == "CONFLICTING_DUPLICATE" {
				code = "REFE"
			}
			xml = Sese027(txid, id, "Rjctd", []Reason{{code, info}})
		}
		res.Outs = append(res.Outs, Out{Receiver: o.Receiver, SourceMsgId: o.MsgId, MsgDef: DefSese027, TxId: txid, XML: xml})
	}
	return res
}

func cancelId(tr *journal.Translation) *CancelId {
	return &CancelId{AcctSvcrTxId: tr.MsgId, MktInfrstrctrTxId: tr.TradeKey,
		Owner: &SttlmTxId{TxId: txIdOf(tr), Mvmnt: mvmntOf(tr.Key.Side), Pmt: "APMT"}}
}

// pendingNote is what the journal keeps of the SET CANCELs a receiver was
// told are held (PdgCxl), per trade.
type pendingNote struct {
	Pending []string `json:"pending"`
}

const notePending = "pdgcxl"

func (t *Translator) status(o *adapters.Output) Result {
	var res Result
	var st Status024
	switch o.Status {
	case "MATCHED", "AFFIRMED", "AFFIRM_REJECTED", "CHANGE_PENDING":
		st = Status024{Matching: "Mtchd"}
	case "CANCEL_PENDING":
		st = Status024{Processing: "CxlReqd", Matching: "Mtchd"}
	case "MISMATCHED":
		st = Status024{Matching: "Umtchd"}
		for _, c := range o.Criteria {
			code := criterionCodes[c]
			if code == "" {
				code = "OTHR"
			}
			st.Unmatched = append(st.Unmatched, Reason{code, "STE criterion " + strconv.Itoa(c)})
		}
		if len(st.Unmatched) == 0 {
			st.Unmatched = []Reason{{"OTHR", "STE MISMATCHED"}}
		}
	case "UNMATCHED":
		st = Status024{Matching: "Umtchd", Unmatched: []Reason{{"CMIS", "STE UNMATCHED"}}}
	case "EXPIRED":
		st = Status024{Processing: "Canc", Reasons: []Reason{{"CANS", "STE EXPIRED"}}}
	case "CANCELLED":
		st = Status024{Processing: "Canc", Reasons: []Reason{{"CANI", "STE CANCELLED"}}}
	default:
		return res
	}
	for _, tr := range t.J.Current(journal.ISO20022, o.Receiver, o.TradeKey) {
		if tr.MsgType != "SET" || tr.Function != "NEW" {
			continue
		}
		txid := txIdOf(tr)
		res.Outs = append(res.Outs, Out{Receiver: o.Receiver, SourceMsgId: o.MsgId, MsgDef: DefSese024, TxId: txid,
			XML: Sese024(StatusId{AcctOwnrTxId: txid, AcctSvcrTxId: tr.MsgId, MktInfrstrctrTxId: o.TradeKey}, st)})
	}
	// SET CANCELs held while the trade is locked: PdgCxl while a STATUS to
	// the Custodian lists them in Pending, CANI once one no longer does.
	noteID := o.Receiver + "|" + o.TradeKey
	var before pendingNote
	if n, ok := t.J.Note(journal.ISO20022, notePending, noteID); ok {
		json.Unmarshal(n.Data, &before)
	}
	var now pendingNote
	for _, tok := range o.Pending {
		sender, id, ok := strings.Cut(tok, ":")
		if !ok || sender != o.Receiver {
			continue
		}
		for _, tr := range t.iso(o.Receiver, id) {
			if tr.Function == "CANCEL" {
				now.Pending = append(now.Pending, id)
				txid := txIdOf(tr)
				res.Outs = append(res.Outs, Out{Receiver: o.Receiver, SourceMsgId: o.MsgId, MsgDef: DefSese027, TxId: txid,
					XML: Sese027(txid, cancelId(tr), "PdgCxl", nil)})
				break
			}
		}
	}
	for _, id := range before.Pending {
		if contains(now.Pending, id) {
			continue
		}
		if ts := t.iso(o.Receiver, id); len(ts) > 0 {
			txid := txIdOf(ts[0])
			res.Outs = append(res.Outs, Out{Receiver: o.Receiver, SourceMsgId: o.MsgId, MsgDef: DefSese027, TxId: txid,
				XML: Sese027(txid, cancelId(ts[0]), "Canc", []Reason{{Code: "CANI"}})})
		}
	}
	if len(before.Pending) > 0 || len(now.Pending) > 0 {
		res.Journal = append(res.Journal, journal.NoteEntry(journal.ISO20022, notePending, noteID, now))
	}
	return res
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// algNote is what the journal keeps of the sese.028s made from the last
// ALG NEW to a receiver in a trade.
type algNote struct {
	MsgId   string      `json:"msg_id"`
	TxIds   []SttlmTxId `json:"tx_ids"`
	Removed bool        `json:"removed"`
}

const noteALG = "alg"

func (t *Translator) allegement(o *adapters.Output) Result {
	var res Result
	noteID := o.Receiver + "|" + o.TradeKey
	var prev algNote
	hasPrev := false
	if n, ok := t.J.Note(journal.ISO20022, noteALG, noteID); ok {
		hasPrev = json.Unmarshal(n.Data, &prev) == nil
	}
	remove := func(ids []SttlmTxId) {
		for _, s := range ids {
			res.Outs = append(res.Outs, Out{Receiver: o.Receiver, SourceMsgId: o.MsgId, MsgDef: DefSese029, TxId: s.TxId, XML: Sese029(s)})
		}
	}
	if o.Function == "CANCEL" {
		if hasPrev && prev.MsgId == o.RelatedMsgId && !prev.Removed {
			remove(prev.TxIds)
			prev.Removed = true
			res.Journal = append(res.Journal, journal.NoteEntry(journal.ISO20022, noteALG, noteID, prev))
		}
		return res
	}
	if hasPrev && prev.MsgId != o.MsgId && !prev.Removed {
		remove(prev.TxIds)
	}
	n := ""
	if parts := strings.Split(o.MsgId, ":"); len(parts) == 4 {
		n = parts[2]
	}
	var sets []adapters.Owed
	for _, w := range o.Owed {
		if w.MsgType == "SET" {
			sets = append(sets, w)
		}
	}
	next := algNote{MsgId: o.MsgId, TxIds: []SttlmTxId{}}
	if o.SettleDate != "" {
		mv := mvmntOf(o.Key.Side)
		for i, w := range sets {
			txid := o.TradeKey + "-" + n
			if len(sets) > 1 {
				txid += "-" + strconv.Itoa(i+1)
			}
			next.TxIds = append(next.TxIds, SttlmTxId{TxId: txid, Mvmnt: mv, Pmt: "APMT"})
			res.Outs = append(res.Outs, Out{Receiver: o.Receiver, SourceMsgId: o.MsgId, MsgDef: DefSese028, TxId: txid,
				XML: Sese028(Allegement{TxId: txid, Mvmnt: mv, TradeKey: o.TradeKey, TradeRef: o.Key.TradeRef,
					TradeDate: o.Key.TradeDate, SettleDate: o.SettleDate, ISIN: o.Key.ISIN, Quantity: w.Quantity,
					InvMgr: o.Key.InvMgr, Account: w.Account})})
		}
	}
	res.Journal = append(res.Journal, journal.NoteEntry(journal.ISO20022, noteALG, noteID, next))
	return res
}
