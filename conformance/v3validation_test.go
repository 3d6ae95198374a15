package conformance

// Version 3 of docs/spec/messages.md: the lifecycle types' SCHEMA rules (§3a,
// §4), delegated signing (§2, §4 SIGNATURE and NOT_AUTHORISED, §8 signers),
// the lifecycle types' authorisation (§3a), BAD_REFERENCE (§4), and the rows
// before them applied to the lifecycle types on the fields they carry. Every
// case with `ste match`, each on its own trade. What an accepted AFF, CXL,
// CXA or CXJ does to its trade (§5a) is not asserted here: only its ACK.

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

const (
	FIXS  = "STEUTLSGFIX" // SIGNER ACTIVE (the FIX adapter's), listed by BRK, INV, INVA
	ISOS  = "STEUTLSGISO" // SIGNER ACTIVE (the ISO adapter's), listed by CUSA only
	SGNS  = "SGNSSGSGXXX" // SIGNER SUSPENDED, listed by BRK
	SGNR  = "SGNRSGSGXXX" // SIGNER ACTIVE holding two keys (rotating), listed by BRK
	GHOST = "GHSTSGSGXXX" // listed by BRK, in no reference data
	INVA  = "INVASGSGXXX" // INVMGR ACTIVE, affirmation mode AUTO
	BIM   = "BIMGSGSGXXX" // BROKER;INVMGR ACTIVE (a trade with itself)
	CUSS  = "CUSSSGSGXXX" // CUSTODIAN SUSPENDED
	SGBR  = "SGBRSGSGXXX" // BROKER;SIGNER ACTIVE: signs, and may send as a broker
)

// sgnrNext is the second key of SGNR: the demo key of another name.
const sgnrNext = "SGNRSGSGNXT"

var (
	v3Once sync.Once
	v3Dir  string
)

// v3Refdata is the suite's reference data with version 3's additions: the
// signers column, SIGNER participants and affirmation.csv.
func v3Refdata(t *testing.T) string {
	v3Once.Do(func() {
		rd := stdRefdata()
		p := func(bic, roles, status, signers string) Participant {
			return Participant{BIC: bic, Name: "Test " + bic, Roles: roles, Country: "SG", Status: status, Signers: signers}
		}
		for i := range rd.Participants {
			switch rd.Participants[i].BIC {
			case BRK:
				rd.Participants[i].Signers = FIXS + ";" + SGNS + ";" + SGNR + ";" + CUSC + ";" + GHOST + ";" + SGBR
			case INV, BRK8:
				rd.Participants[i].Signers = " " + FIXS + " "
			case CUSA:
				rd.Participants[i].Signers = ISOS
			}
		}
		sgnr := p(SGNR, "SIGNER", "ACTIVE", "")
		sgnr.PubKey = b64(demoPub(SGNR)) + ";" + b64(demoPub(sgnrNext))
		rd.Participants = append(rd.Participants,
			p(FIXS, "SIGNER", "ACTIVE", ""), p(ISOS, "SIGNER", "ACTIVE", ""), p(SGNS, "SIGNER", "SUSPENDED", ""), sgnr,
			p(INVA, "INVMGR", "ACTIVE", FIXS), p(BIM, "BROKER;INVMGR", "ACTIVE", FIXS), p(CUSS, "CUSTODIAN", "SUSPENDED", ""),
			p(SGBR, "BROKER;SIGNER", "ACTIVE", ""))
		rd.Affirmation = [][2]string{{INVA, "AUTO"}, {INV, "MANUAL"}}
		v3Dir = filepath.Join(tmpRoot, "refdata-v3")
		if err := writeRefdata(v3Dir, rd); err != nil {
			panic(err)
		}
	})
	return v3Dir
}

// Digests of the forms of §3a (validation never checks that they are right).
var (
	dgA = strings.Repeat("a1", 32)
	dgB = strings.Repeat("b2", 32)
)

// lifecycle builds an AFF, CXL, CXA or CXJ of tr from sender, with the key
// fields and the extra fields given (name, value pairs). CXA and CXJ name
// the CXL "<ref>-CXL".
func (t *Trade) lifecycle(typ, sender string, extra ...string) *Msg {
	m := &Msg{Hdr: t.header(t.prefix()+"-"+typ, typ, sender, t.Base.Add(40*time.Minute))}
	if typ == "CXA" || typ == "CXJ" {
		m.Hdr = append(m.Hdr, F{N: "RelatedMsgId", V: t.prefix() + "-CXL"})
	}
	m.Body = t.keyFields()
	for i := 0; i+1 < len(extra); i += 2 {
		m.Set(extra[i], extra[i+1])
	}
	return m
}

// tokens names the trade's standard messages as an AFF does.
func (t *Trade) tokens() string {
	var out []string
	for _, m := range t.All() {
		out = append(out, m.Sender()+":"+m.ID())
	}
	return strings.Join(out, " ")
}

// AFF is a first affirmation of the standard set by sender.
func (t *Trade) AFF(sender string, extra ...string) *Msg {
	return t.lifecycle("AFF", sender, append([]string{"Decision", "AFFIRM", "MatchDigest", dgA, "Affirms", t.tokens()}, extra...)...)
}

func (t *Trade) CXL(sender string) *Msg { return t.lifecycle("CXL", sender, "CancelReason", "ERROR") }
func (t *Trade) CXA(sender string) *Msg { return t.lifecycle("CXA", sender) }
func (t *Trade) CXJ(sender string) *Msg {
	return t.lifecycle("CXJ", sender, "CancelReason", "CLIENT_REQUEST")
}

// signedBy puts a Signer in m's Header, right after Sender, and signs with
// its demo key.
func signedBy(m *Msg, signer string) *Msg {
	var h []F
	for _, f := range m.Hdr {
		h = append(h, f)
		if f.N == "Sender" {
			h = append(h, F{N: "Signer", V: signer})
		}
	}
	m.Hdr = h
	m.SignAs = signer
	return m
}

func signAs(m *Msg, bic string) *Msg { m.SignAs = bic; return m }

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

func tokensN(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s:N%d", BRK, i)
	}
	return b.String() + " " + INV + ":A"
}

func v3Cases() []vcase {
	now := time.Now().UTC()
	selfTrade := func(tr *Trade) *Trade { tr.Broker, tr.InvMgr = BIM, BIM; return tr }
	return []vcase{
		// ---- accepted
		{"ok_AFF_by_InvMgr", "", func(tr *Trade) *Msg { return tr.AFF(INV) }},
		{"ok_AFF_REJECT", "", func(tr *Trade) *Msg { return tr.AFF(INV, "Decision", "REJECT", "RejectReason", "PRICE SETTLE_DATE") }},
		{"ok_AFF_REJECT_every_code", "", func(tr *Trade) *Msg {
			return tr.AFF(INV, "Decision", "REJECT", "RejectReason", "PRICE QUANTITY COMMISSION FEES NET_AMOUNT SETTLE_DATE SSI ACCOUNT OTHER")
		}},
		{"ok_AFFIRM_ignores_RejectReason", "", func(tr *Trade) *Msg { return tr.AFF(INV, "RejectReason", "NOT  A,CODE") }},
		{"ok_AFF_empty_Amends_is_a_first_affirmation", "", func(tr *Trade) *Msg { return tr.AFF(INV, "Amends", "") }},
		{"ok_AFF_amending_by_InvMgr", "", func(tr *Trade) *Msg { return tr.AFF(INV, "Amends", dgB) }},
		{"ok_AFF_amending_by_Broker", "", func(tr *Trade) *Msg { return tr.AFF(BRK, "Amends", dgB) }},
		{"ok_AFF_RelatedMsgId_ignored", "", func(tr *Trade) *Msg { return tr.AFF(INV).Set("RelatedMsgId", "not a MsgId!") }},
		{"ok_AFF_token_MsgId_with_colons", "", func(tr *Trade) *Msg { return tr.AFF(INV, "Affirms", BRK+":a:b "+INV+"::") }},
		{"ok_AFF_1000_tokens", "", func(tr *Trade) *Msg { return tr.AFF(INV, "Affirms", tokensN(999)) }},
		{"ok_AFF_token_of_BROKER;CUSTODIAN", "", func(tr *Trade) *Msg { return tr.AFF(INV, "Affirms", BRK+":N "+INV+":A "+CUSC+":S") }},
		{"ok_AFF_tokens_of_principals_only", "", func(tr *Trade) *Msg { return tr.AFF(INV, "Affirms", BRK+":N "+INV+":A") }},
		{"ok_AFF_by_utility_for_AUTO_InvMgr", "", func(tr *Trade) *Msg {
			tr.InvMgr = INVA
			return tr.AFF(utilityBIC)
		}},
		{"ok_AFF_by_AUTO_InvMgr_itself", "", func(tr *Trade) *Msg { tr.InvMgr = INVA; return tr.AFF(INVA) }},
		{"ok_CXL_by_Broker", "", func(tr *Trade) *Msg { return tr.CXL(BRK) }},
		{"ok_CXL_by_InvMgr_each_reason", "", func(tr *Trade) *Msg { return tr.CXL(INV).Set("CancelReason", "DUPLICATE") }},
		{"ok_CXL_RelatedMsgId_ignored", "", func(tr *Trade) *Msg { return tr.CXL(BRK).Set("RelatedMsgId", "x y") }},
		{"ok_CXA_by_InvMgr", "", func(tr *Trade) *Msg { return tr.CXA(INV) }},
		{"ok_CXA_ignores_CancelReason", "", func(tr *Trade) *Msg { return tr.CXA(BRK).Set("CancelReason", "NOT ONE") }},
		{"ok_CXJ_by_Broker", "", func(tr *Trade) *Msg { return tr.CXJ(BRK) }},
		{"ok_delegated_NOE", "", func(tr *Trade) *Msg { return signedBy(tr.NOE(), FIXS) }},
		{"ok_delegated_ALC", "", func(tr *Trade) *Msg { return signedBy(tr.ALC(0), FIXS) }},
		{"ok_delegated_NPR_CANCEL", "", func(tr *Trade) *Msg { return signedBy(Cancel(tr.NPR(0), tr.Ref+"-CX", tr.Base), FIXS) }},
		{"ok_delegated_SET", "", func(tr *Trade) *Msg { return signedBy(tr.SET(0), ISOS) }},
		{"ok_delegated_AFF", "", func(tr *Trade) *Msg { return signedBy(tr.AFF(INV), FIXS) }},
		{"ok_delegated_CXA_by_Broker", "", func(tr *Trade) *Msg { return signedBy(tr.CXA(BRK), FIXS) }},
		{"ok_delegated_signer_listed_with_spaces", "", func(tr *Trade) *Msg { tr.Broker = BRK8; return signedBy(tr.NOE(), FIXS) }},
		{"ok_delegated_rotating_signer_first_key", "", func(tr *Trade) *Msg { return signedBy(tr.NOE(), SGNR) }},
		{"ok_delegated_rotating_signer_second_key", "", func(tr *Trade) *Msg { return signAs(signedBy(tr.NOE(), SGNR), sgnrNext) }},
		{"ok_signer_that_is_also_a_broker_sends_as_broker", "", func(tr *Trade) *Msg { tr.Broker = SGBR; return tr.NOE() }},
		{"ok_Signer_after_Created", "", func(tr *Trade) *Msg { m := tr.NOE().Set("Signer", FIXS); m.SignAs = FIXS; return m }},

		// ---- SCHEMA (§4, version 3)
		{"SCHEMA_AFF_Function_CANCEL", "SCHEMA", func(tr *Trade) *Msg { return tr.AFF(INV).Set("Function", "CANCEL").Set("RelatedMsgId", "X1") }},
		{"SCHEMA_AFF_Function_REPLACE", "SCHEMA", func(tr *Trade) *Msg { return tr.AFF(INV).Set("Function", "REPLACE").Set("RelatedMsgId", "X1") }},
		{"SCHEMA_CXL_Function_CANCEL", "SCHEMA", func(tr *Trade) *Msg { return tr.CXL(BRK).Set("Function", "CANCEL").Set("RelatedMsgId", "X1") }},
		{"SCHEMA_CXA_Function_REPLACE", "SCHEMA", func(tr *Trade) *Msg { return tr.CXA(INV).Set("Function", "REPLACE") }},
		{"SCHEMA_CXJ_Function_CANCEL", "SCHEMA", func(tr *Trade) *Msg { return tr.CXJ(INV).Set("Function", "CANCEL") }},
		{"SCHEMA_AFF_Decision_missing", "SCHEMA", func(tr *Trade) *Msg { return tr.AFF(INV).Del("Decision") }},
		{"SCHEMA_AFF_Decision_lowercase", "SCHEMA", func(tr *Trade) *Msg { return tr.AFF(INV).Set("Decision", "affirm") }},
		{"SCHEMA_AFF_Decision_other", "SCHEMA", func(tr *Trade) *Msg { return tr.AFF(INV).Set("Decision", "ACCEPT") }},
		{"SCHEMA_AFF_MatchDigest_missing", "SCHEMA", func(tr *Trade) *Msg { return tr.AFF(INV).Del("MatchDigest") }},
		{"SCHEMA_AFF_MatchDigest_upper_case", "SCHEMA", func(tr *Trade) *Msg { return tr.AFF(INV).Set("MatchDigest", strings.ToUpper(dgA)) }},
		{"SCHEMA_AFF_MatchDigest_63", "SCHEMA", func(tr *Trade) *Msg { return tr.AFF(INV).Set("MatchDigest", dgA[:63]) }},
		{"SCHEMA_AFF_MatchDigest_65", "SCHEMA", func(tr *Trade) *Msg { return tr.AFF(INV).Set("MatchDigest", dgA+"0") }},
		{"SCHEMA_AFF_Amends_upper_case", "SCHEMA", func(tr *Trade) *Msg { return tr.AFF(BRK, "Amends", strings.ToUpper(dgB)) }},
		{"SCHEMA_AFF_Amends_not_hex", "SCHEMA", func(tr *Trade) *Msg { return tr.AFF(BRK, "Amends", strings.Repeat("g", 64)) }},
		{"SCHEMA_AFF_Affirms_missing", "SCHEMA", func(tr *Trade) *Msg { return tr.AFF(INV).Del("Affirms") }},
		{"SCHEMA_AFF_Affirms_empty", "SCHEMA", func(tr *Trade) *Msg { return tr.AFF(INV).Set("Affirms", " ") }},
		{"SCHEMA_AFF_Affirms_1001_tokens", "SCHEMA", func(tr *Trade) *Msg { return tr.AFF(INV, "Affirms", tokensN(1000)) }},
		{"SCHEMA_AFF_Affirms_two_spaces", "SCHEMA", func(tr *Trade) *Msg { return tr.AFF(INV, "Affirms", BRK+":N  "+INV+":A") }},
		{"SCHEMA_AFF_Affirms_tab", "SCHEMA", func(tr *Trade) *Msg { return tr.AFF(INV).SetRaw("Affirms", BRK+":N&#9;"+INV+":A") }},
		{"SCHEMA_AFF_Affirms_comma", "SCHEMA", func(tr *Trade) *Msg { return tr.AFF(INV, "Affirms", BRK+":N,"+INV+":A") }},
		{"SCHEMA_AFF_token_without_colon", "SCHEMA", func(tr *Trade) *Msg { return tr.AFF(INV, "Affirms", BRK+"-N "+INV+":A") }},
		{"SCHEMA_AFF_token_BIC_10", "SCHEMA", func(tr *Trade) *Msg { return tr.AFF(INV, "Affirms", BRK[:10]+":N "+INV+":A") }},
		{"SCHEMA_AFF_token_empty_MsgId", "SCHEMA", func(tr *Trade) *Msg { return tr.AFF(INV, "Affirms", BRK+": "+INV+":A") }},
		{"SCHEMA_AFF_token_MsgId_65", "SCHEMA", func(tr *Trade) *Msg { return tr.AFF(INV, "Affirms", BRK+":"+strings.Repeat("n", 65)+" "+INV+":A") }},
		{"SCHEMA_AFF_token_MsgId_slash", "SCHEMA", func(tr *Trade) *Msg { return tr.AFF(INV, "Affirms", BRK+":N/1 "+INV+":A") }},
		{"SCHEMA_AFF_token_twice", "SCHEMA", func(tr *Trade) *Msg { return tr.AFF(INV, "Affirms", BRK+":N "+INV+":A "+BRK+":N") }},
		{"SCHEMA_AFF_Affirms_given_twice", "SCHEMA", func(tr *Trade) *Msg {
			m := tr.AFF(INV)
			m.Body = append(m.Body, F{N: "Affirms", V: BRK + ":N " + INV + ":A"})
			return m
		}},
		{"SCHEMA_REJECT_without_RejectReason", "SCHEMA", func(tr *Trade) *Msg { return tr.AFF(INV, "Decision", "REJECT") }},
		{"SCHEMA_REJECT_empty_RejectReason", "SCHEMA", func(tr *Trade) *Msg { return tr.AFF(INV, "Decision", "REJECT", "RejectReason", "") }},
		{"SCHEMA_REJECT_unknown_code", "SCHEMA", func(tr *Trade) *Msg { return tr.AFF(INV, "Decision", "REJECT", "RejectReason", "PRICE TIMING") }},
		{"SCHEMA_REJECT_lowercase_code", "SCHEMA", func(tr *Trade) *Msg { return tr.AFF(INV, "Decision", "REJECT", "RejectReason", "price") }},
		{"SCHEMA_REJECT_two_spaces", "SCHEMA", func(tr *Trade) *Msg { return tr.AFF(INV, "Decision", "REJECT", "RejectReason", "PRICE  SSI") }},
		{"SCHEMA_REJECT_code_twice", "SCHEMA", func(tr *Trade) *Msg { return tr.AFF(INV, "Decision", "REJECT", "RejectReason", "SSI PRICE SSI") }},
		{"SCHEMA_CXL_without_CancelReason", "SCHEMA", func(tr *Trade) *Msg { return tr.CXL(BRK).Del("CancelReason") }},
		{"SCHEMA_CXL_two_CancelReasons", "SCHEMA", func(tr *Trade) *Msg { return tr.CXL(BRK).Set("CancelReason", "ERROR OTHER") }},
		{"SCHEMA_CXL_unknown_CancelReason", "SCHEMA", func(tr *Trade) *Msg { return tr.CXL(BRK).Set("CancelReason", "MISTAKE") }},
		{"SCHEMA_CXJ_without_CancelReason", "SCHEMA", func(tr *Trade) *Msg { return tr.CXJ(BRK).Del("CancelReason") }},
		{"SCHEMA_CXJ_lowercase_CancelReason", "SCHEMA", func(tr *Trade) *Msg { return tr.CXJ(BRK).Set("CancelReason", "error") }},
		{"SCHEMA_CXA_without_RelatedMsgId", "SCHEMA", func(tr *Trade) *Msg { return tr.CXA(INV).Del("RelatedMsgId") }},
		{"SCHEMA_CXJ_without_RelatedMsgId", "SCHEMA", func(tr *Trade) *Msg { return tr.CXJ(INV).Del("RelatedMsgId") }},
		{"SCHEMA_CXA_RelatedMsgId_not_a_MsgId", "SCHEMA", func(tr *Trade) *Msg { return tr.CXA(INV).Set("RelatedMsgId", "a b") }},
		{"SCHEMA_CXL_without_key_field", "SCHEMA", func(tr *Trade) *Msg { return tr.CXL(BRK).Del("Side") }},
		{"SCHEMA_AFF_bad_ISIN", "SCHEMA", func(tr *Trade) *Msg { return tr.AFF(INV).Set("ISIN", "SG00") }},
		{"SCHEMA_Signer_empty", "SCHEMA", func(tr *Trade) *Msg { return signedBy(tr.NOE(), "") }},
		{"SCHEMA_Signer_blank", "SCHEMA", func(tr *Trade) *Msg { return signedBy(tr.NOE(), "  ") }},
		{"SCHEMA_Signer_lowercase", "SCHEMA", func(tr *Trade) *Msg { m := signedBy(tr.NOE(), strings.ToLower(FIXS)); m.SignAs = FIXS; return m }},
		{"SCHEMA_Signer_9_chars", "SCHEMA", func(tr *Trade) *Msg { m := signedBy(tr.NOE(), FIXS[:9]); m.SignAs = FIXS; return m }},
		{"SCHEMA_Signer_twice", "SCHEMA", func(tr *Trade) *Msg { return signedBy(signedBy(tr.NOE(), FIXS), FIXS) }},

		// ---- SIGNATURE (§2, §4: delegated signing)
		{"SIGNATURE_delegated_signed_by_Sender", "SIGNATURE", func(tr *Trade) *Msg { return signAs(signedBy(tr.NOE(), FIXS), BRK) }},
		{"SIGNATURE_delegated_signed_by_other_signer", "SIGNATURE", func(tr *Trade) *Msg { return signAs(signedBy(tr.NOE(), FIXS), ISOS) }},
		{"SIGNATURE_signer_not_listed_by_Sender", "SIGNATURE", func(tr *Trade) *Msg { return signedBy(tr.NOE(), ISOS) }},
		{"SIGNATURE_signer_listed_by_another", "SIGNATURE", func(tr *Trade) *Msg { return signedBy(tr.SET(1), ISOS) }},
		{"SIGNATURE_signer_SUSPENDED", "SIGNATURE", func(tr *Trade) *Msg { return signedBy(tr.NOE(), SGNS) }},
		{"SIGNATURE_signer_without_role_SIGNER", "SIGNATURE", func(tr *Trade) *Msg { return signedBy(tr.NOE(), CUSC) }},
		{"SIGNATURE_signer_not_a_participant", "SIGNATURE", func(tr *Trade) *Msg { return signedBy(tr.NOE(), GHOST) }},
		{"SIGNATURE_signer_not_listed_by_anyone", "SIGNATURE", func(tr *Trade) *Msg { return signedBy(tr.NOE(), NOBODY) }},
		{"SIGNATURE_delegated_without_Sig", "SIGNATURE", func(tr *Trade) *Msg { m := signedBy(tr.NOE(), FIXS); m.NoSig = true; return m }},
		{"SIGNATURE_delegated_AFF_signed_by_InvMgr", "SIGNATURE", func(tr *Trade) *Msg { return signAs(signedBy(tr.AFF(INV), FIXS), INV) }},
		{"SIGNATURE_Signer_added_after_signing", "SIGNATURE", func(tr *Trade) *Msg {
			m := tr.NOE()
			sig := signB64(FIXS, []byte(m.SignedRegion()))
			signedBy(m, FIXS).SigText = sp(sig)
			return m
		}},
		{"SIGNATURE_AFF_wrong_key", "SIGNATURE", func(tr *Trade) *Msg { return signAs(tr.AFF(INV), BRK) }},

		// ---- NOT_AUTHORISED (§3a, §4)
		{"NOT_AUTHORISED_SIGNER_sends_NOE_as_itself", "NOT_AUTHORISED", func(tr *Trade) *Msg { tr.Broker = FIXS; return tr.NOE() }},
		{"NOT_AUTHORISED_SIGNER_sends_CXL_as_itself", "NOT_AUTHORISED", func(tr *Trade) *Msg { return tr.CXL(FIXS) }},
		{"NOT_AUTHORISED_delegated_NOE_by_InvMgr", "NOT_AUTHORISED", func(tr *Trade) *Msg { return signedBy(tr.NOE().Set("Sender", INV), FIXS) }},
		{"NOT_AUTHORISED_first_AFF_by_Broker", "NOT_AUTHORISED", func(tr *Trade) *Msg { return tr.AFF(BRK) }},
		{"NOT_AUTHORISED_first_AFF_empty_Amends_by_Broker", "NOT_AUTHORISED", func(tr *Trade) *Msg { return tr.AFF(BRK, "Amends", "") }},
		{"NOT_AUTHORISED_first_AFF_by_Custodian", "NOT_AUTHORISED", func(tr *Trade) *Msg { return tr.AFF(CUSA) }},
		{"NOT_AUTHORISED_first_AFF_by_utility_MANUAL_InvMgr", "NOT_AUTHORISED", func(tr *Trade) *Msg { return tr.AFF(utilityBIC) }},
		{"NOT_AUTHORISED_first_AFF_by_utility_InvMgr_without_row", "NOT_AUTHORISED", func(tr *Trade) *Msg { tr.InvMgr = BIM; return tr.AFF(utilityBIC) }},
		{"NOT_AUTHORISED_amending_AFF_by_utility", "NOT_AUTHORISED", func(tr *Trade) *Msg { tr.InvMgr = INVA; return tr.AFF(utilityBIC, "Amends", dgB) }},
		{"NOT_AUTHORISED_first_AFF_by_other_InvMgr", "NOT_AUTHORISED", func(tr *Trade) *Msg { return tr.AFF(INVA) }},
		{"NOT_AUTHORISED_amending_AFF_by_Custodian", "NOT_AUTHORISED", func(tr *Trade) *Msg { return tr.AFF(CUSA, "Amends", dgB) }},
		{"NOT_AUTHORISED_amending_AFF_by_other_Broker", "NOT_AUTHORISED", func(tr *Trade) *Msg { return tr.AFF(BRK8, "Amends", dgB) }},
		{"NOT_AUTHORISED_CXL_by_Custodian", "NOT_AUTHORISED", func(tr *Trade) *Msg { return tr.CXL(CUSA) }},
		{"NOT_AUTHORISED_CXA_by_Custodian", "NOT_AUTHORISED", func(tr *Trade) *Msg { return tr.CXA(CUSB) }},
		{"NOT_AUTHORISED_CXJ_by_Custodian", "NOT_AUTHORISED", func(tr *Trade) *Msg { return tr.CXJ(CUSA) }},
		{"NOT_AUTHORISED_CXL_by_utility", "NOT_AUTHORISED", func(tr *Trade) *Msg { return tr.CXL(utilityBIC) }},
		{"NOT_AUTHORISED_CXA_by_other_broker", "NOT_AUTHORISED", func(tr *Trade) *Msg { return tr.CXA(BRK8) }},
		{"NOT_AUTHORISED_self_trade_AFF", "NOT_AUTHORISED", func(tr *Trade) *Msg { return selfTrade(tr).AFF(BIM, "Affirms", BIM+":N "+CUSA+":S") }},
		{"NOT_AUTHORISED_self_trade_amending_AFF", "NOT_AUTHORISED", func(tr *Trade) *Msg {
			return selfTrade(tr).AFF(BIM, "Amends", dgB, "Affirms", BIM+":N")
		}},
		{"NOT_AUTHORISED_self_trade_CXL", "NOT_AUTHORISED", func(tr *Trade) *Msg { return selfTrade(tr).CXL(BIM) }},
		{"NOT_AUTHORISED_self_trade_CXA", "NOT_AUTHORISED", func(tr *Trade) *Msg { return selfTrade(tr).CXA(BIM) }},
		{"NOT_AUTHORISED_self_trade_CXJ", "NOT_AUTHORISED", func(tr *Trade) *Msg { return selfTrade(tr).CXJ(BIM) }},
		{"NOT_AUTHORISED_self_trade_delegated_CXL", "NOT_AUTHORISED", func(tr *Trade) *Msg { return signedBy(selfTrade(tr).CXL(BIM), FIXS) }},
		{"ok_self_trade_NOE_is_version_2", "", func(tr *Trade) *Msg { return selfTrade(tr).NOE() }},

		// ---- the rows between, on the fields the lifecycle types carry
		{"UNKNOWN_SENDER_AFF", "UNKNOWN_SENDER", func(tr *Trade) *Msg { tr.InvMgr = NOBODY; return tr.AFF(NOBODY) }},
		{"UNKNOWN_SENDER_delegated_by_INACTIVE_Sender", "UNKNOWN_SENDER", func(tr *Trade) *Msg { tr.Broker = BRKI; return signedBy(tr.CXL(BRKI), FIXS) }},
		{"UNKNOWN_PARTY_AFF_Broker_INACTIVE", "UNKNOWN_PARTY", func(tr *Trade) *Msg { tr.Broker = BRKI; return tr.AFF(INV) }},
		{"UNKNOWN_PARTY_CXL_InvMgr_not_an_InvMgr", "UNKNOWN_PARTY", func(tr *Trade) *Msg { tr.InvMgr = CUSB; return tr.CXL(BRK) }},
		{"UNKNOWN_PARTY_CXA_Broker_unknown", "UNKNOWN_PARTY", func(tr *Trade) *Msg { tr.Broker = NOBODY; return tr.CXA(INV) }},
		{"UNKNOWN_SECURITY_AFF_SUSPENDED", "UNKNOWN_SECURITY", func(tr *Trade) *Msg { tr.ISIN = isinSUSP; return tr.AFF(INV) }},
		{"UNKNOWN_SECURITY_CXJ_bad_check_digit", "UNKNOWN_SECURITY", func(tr *Trade) *Msg { tr.ISIN = isinBADCHK; return tr.CXJ(INV) }},
		{"BAD_DATE_AFF_Created_48h_ahead", "BAD_DATE", func(tr *Trade) *Msg { return tr.AFF(INV).Set("Created", ts(now.Add(48*time.Hour))) }},
		{"BAD_DATE_CXL_Created_48h_ahead", "BAD_DATE", func(tr *Trade) *Msg { return tr.CXL(BRK).Set("Created", ts(now.Add(48*time.Hour))) }},
		{"ok_CXA_other_types_fields_ignored", "", func(tr *Trade) *Msg {
			return tr.CXA(INV).Set("Quantity", "-5").Set("SettleDate", dSat).Set("TradeCcy", "ABC").Set("Custodian", NOBODY)
		}},

		// ---- BAD_REFERENCE (§4, AFF only)
		{"BAD_REFERENCE_no_Broker_token", "BAD_REFERENCE", func(tr *Trade) *Msg { return tr.AFF(INV, "Affirms", INV+":A "+CUSA+":S") }},
		{"BAD_REFERENCE_no_InvMgr_token", "BAD_REFERENCE", func(tr *Trade) *Msg { return tr.AFF(INV, "Affirms", BRK+":N "+CUSA+":S") }},
		{"BAD_REFERENCE_token_of_non_participant", "BAD_REFERENCE", func(tr *Trade) *Msg { return tr.AFF(INV, "Affirms", BRK+":N "+INV+":A "+NOBODY+":S") }},
		{"BAD_REFERENCE_token_of_INACTIVE_custodian", "BAD_REFERENCE", func(tr *Trade) *Msg { return tr.AFF(INV, "Affirms", BRK+":N "+INV+":A "+CUSI+":S") }},
		{"BAD_REFERENCE_token_of_SUSPENDED_custodian", "BAD_REFERENCE", func(tr *Trade) *Msg { return tr.AFF(INV, "Affirms", BRK+":N "+INV+":A "+CUSS+":S") }},
		{"BAD_REFERENCE_token_of_other_broker", "BAD_REFERENCE", func(tr *Trade) *Msg { return tr.AFF(INV, "Affirms", BRK+":N "+INV+":A "+BRK8+":N") }},
		{"BAD_REFERENCE_token_of_CSD", "BAD_REFERENCE", func(tr *Trade) *Msg { return tr.AFF(INV, "Affirms", BRK+":N "+INV+":A "+CSD+":S") }},
		{"BAD_REFERENCE_token_of_signer", "BAD_REFERENCE", func(tr *Trade) *Msg { return tr.AFF(INV, "Affirms", BRK+":N "+INV+":A "+FIXS+":S") }},
		{"BAD_REFERENCE_Amends_equals_MatchDigest", "BAD_REFERENCE", func(tr *Trade) *Msg { return tr.AFF(BRK, "Amends", dgA) }},
		{"BAD_REFERENCE_REJECT_Amends_equals_MatchDigest", "BAD_REFERENCE", func(tr *Trade) *Msg {
			return tr.AFF(INV, "Amends", dgA, "Decision", "REJECT", "RejectReason", "OTHER")
		}},
		{"BAD_REFERENCE_delegated_AFF", "BAD_REFERENCE", func(tr *Trade) *Msg { return signedBy(tr.AFF(INV, "Affirms", INV+":A"), FIXS) }},
		{"BAD_REFERENCE_utility_AFF", "BAD_REFERENCE", func(tr *Trade) *Msg { tr.InvMgr = INVA; return tr.AFF(utilityBIC, "Affirms", INVA+":A") }},

		// ---- rule order
		{"ORDER_SCHEMA_Signer_before_UNKNOWN_SENDER", "SCHEMA", func(tr *Trade) *Msg { tr.Broker = NOBODY; return signedBy(tr.NOE(), "x") }},
		{"ORDER_SCHEMA_lifecycle_before_SIGNATURE", "SCHEMA", func(tr *Trade) *Msg { m := tr.CXL(BRK).Del("CancelReason"); m.NoSig = true; return m }},
		{"ORDER_UNKNOWN_SENDER_before_signer_check", "UNKNOWN_SENDER", func(tr *Trade) *Msg { tr.Broker = NOBODY; return signedBy(tr.NOE(), GHOST) }},
		{"ORDER_SIGNATURE_signer_before_NOT_AUTHORISED", "SIGNATURE", func(tr *Trade) *Msg { return signedBy(tr.AFF(BRK), ISOS) }},
		{"ORDER_SIGNATURE_before_SIGNER_sender", "SIGNATURE", func(tr *Trade) *Msg { return signAs(tr.CXL(FIXS), BRK) }},
		{"ORDER_NOT_AUTHORISED_before_UNKNOWN_PARTY", "NOT_AUTHORISED", func(tr *Trade) *Msg { tr.Broker = NOBODY; return tr.CXL(CUSA) }},
		{"ORDER_NOT_AUTHORISED_before_BAD_REFERENCE", "NOT_AUTHORISED", func(tr *Trade) *Msg { return tr.AFF(BRK, "Affirms", INV+":A") }},
		{"ORDER_UNKNOWN_PARTY_before_BAD_REFERENCE", "UNKNOWN_PARTY", func(tr *Trade) *Msg { tr.Broker = BRKS; return tr.AFF(INV, "Affirms", INV+":A") }},
		{"ORDER_UNKNOWN_SECURITY_before_BAD_REFERENCE", "UNKNOWN_SECURITY", func(tr *Trade) *Msg {
			tr.ISIN = isinUNKNOWN
			return tr.AFF(INV, "Affirms", INV+":A")
		}},
		{"ORDER_BAD_DATE_before_BAD_REFERENCE", "BAD_DATE", func(tr *Trade) *Msg {
			return tr.AFF(BRK, "Amends", dgA).Set("Created", ts(now.Add(48*time.Hour)))
		}},
	}
}

// §3a, §4 (version 3): every new SCHEMA, SIGNATURE, NOT_AUTHORISED and
// BAD_REFERENCE row, the rows between applied to the lifecycle types, and
// the rule order, with ste match; all in one file, each on its own trade.
// Accepted messages are ACKed to their Sender, rejected ones NACKed to it —
// also when a delegated signer signed them (§6).
func TestV3Validation_Codes(t *testing.T) {
	cases := v3Cases()
	var in []string
	var msgs []*Msg
	for i, c := range cases {
		m := c.msg(stdTrade(fmt.Sprintf("V3-%03d", i)))
		msgs = append(msgs, m)
		in = append(in, m.Line())
	}
	r := runMatch(t, in, withRefdata(v3Refdata(t)))
	for i, c := range cases {
		n := i + 1
		m := msgs[i]
		t.Run(c.name, func(t *testing.T) {
			got := r.Reason(n)
			if got != c.code {
				detail := ""
				if e := r.ExcAt(n); e != nil {
					detail = fmt.Sprint(e["detail"])
				}
				want := c.code
				if want == "" {
					want = "accepted"
				}
				t.Errorf("line %d: got %q (%s), want %s\n  %.600s", n, got, detail, want, in[i])
				return
			}
			if c.code == "" {
				acks := r.ByID("ACK:" + m.Sender() + ":" + m.ID())
				if len(acks) != 1 || acks[0].H("Receiver") != m.Sender() {
					t.Errorf("accepted but no ACK:%s:%s to its Sender", m.Sender(), m.ID())
				}
				return
			}
			e := r.ExcAt(n)
			if s := m.Sender(); e["sender"] != s {
				t.Errorf("exception sender %v, want %s", e["sender"], s)
			}
			if c.code == "UNKNOWN_SENDER" || m.Sender() == NOBODY {
				return // no NACK: the Sender is no participant
			}
			nack := r.ByID("NACK:" + m.Sender() + ":" + m.ID() + ":" + nackHash(in[i]))
			if len(nack) != 1 || nack[0].H("Receiver") != m.Sender() || nack[0].B("Reason") != c.code {
				t.Errorf("no NACK %s to the Sender %s", c.code, m.Sender())
			}
			for _, o := range r.Out {
				if o.Hdr.Kid("Signer") != nil {
					t.Errorf("output %s carries a Signer", o.ID())
				}
			}
		})
	}
	if r.num("exceptions") != countCodes(cases) {
		t.Errorf("summary exceptions %d, want %d", r.num("exceptions"), countCodes(cases))
	}
}

// §2: a delegated signature stands for the Sender's: a whole trade whose
// messages adapters signed matches as the same trade signed by its
// participants does, with the same CLS.
func TestV3Delegated_TradeMatchesAsSigned(t *testing.T) {
	own := stdTrade("V3-DLG")
	ownRun := runMatch(t, lines(own.All()...), withRefdata(v3Refdata(t)))
	var del []*Msg
	for _, m := range own.All() {
		switch m.Sender() {
		case BRK, INV:
			del = append(del, signedBy(m, FIXS))
		case CUSA:
			del = append(del, signedBy(m, ISOS))
		default:
			del = append(del, m)
		}
	}
	delRun := runMatch(t, lines(del...), withRefdata(v3Refdata(t)))
	if delRun.num("exceptions") != 0 || delRun.num("cls") != 1 {
		t.Fatalf("delegated trade: %s\n%s", delRun.Stdout, delRun.ExcRaw)
	}
	if len(ownRun.CLS) != 1 || len(delRun.CLS) != 1 || ownRun.CLS[0].RawBody != delRun.CLS[0].RawBody {
		t.Fatalf("CLS differ:\n%s\n%s", ownRun.CLSRaw, delRun.CLSRaw)
	}
}

// §8: a participants.csv without the signers column allows no delegated
// signer; an entry that is not a BIC is refused at load, naming the row; an
// affirmation.csv row naming no INVMGR, or another mode, is refused, naming
// the row.
func TestV3Refdata_LoadRules(t *testing.T) {
	tr := stdTrade("V3-NOCOL")
	r := runMatch(t, lines(signedBy(tr.NOE(), FIXS)), withRefdata(refDir))
	if r.Reason(1) != "SIGNATURE" {
		t.Fatalf("delegated under reference data without signers: %q", r.Reason(1))
	}
	bad := func(name, want string, edit func(rd *RefData)) {
		t.Helper()
		rd := stdRefdata()
		rd.Participants = append(rd.Participants, Participant{BIC: FIXS, Name: "FIX", Roles: "SIGNER", Country: "SG", Status: "ACTIVE"})
		edit(rd)
		dir := filepath.Join(t.TempDir(), name)
		if err := writeRefdata(dir, rd); err != nil {
			t.Fatal(err)
		}
		in := filepath.Join(t.TempDir(), "in.txt")
		os.WriteFile(in, []byte(tr.NOE().Line()+"\n"), 0o644)
		res := execSte(t, "match", "--in", in, "--out", filepath.Join(t.TempDir(), "out"), "--refdata", dir)
		if msg := strings.TrimSpace(res.stderr); res.code == 0 || !strings.Contains(msg, want) {
			t.Errorf("%s: exit %d, stderr %q; want it refused naming %q", name, res.code, msg, want)
		}
	}
	// participants.csv row 2 is BRK's; affirmation.csv row 2 its first row.
	bad("signer_entry_not_a_BIC", "participants.csv:2", func(rd *RefData) { rd.Participants[0].Signers = FIXS + ";not-a-bic" })
	bad("signer_entry_lowercase", "participants.csv:2", func(rd *RefData) { rd.Participants[0].Signers = strings.ToLower(FIXS) })
	bad("affirmation_of_a_broker", "affirmation.csv:2", func(rd *RefData) { rd.Affirmation = [][2]string{{BRK, "AUTO"}} })
	bad("affirmation_of_a_non_participant", "affirmation.csv:3", func(rd *RefData) { rd.Affirmation = [][2]string{{INV, "AUTO"}, {NOBODY, "MANUAL"}} })
	bad("affirmation_other_mode", "affirmation.csv:2", func(rd *RefData) { rd.Affirmation = [][2]string{{INV, "SOMETIMES"}} })

	// An entry naming an unknown or non-SIGNER participant loads and never verifies.
	rd := stdRefdata()
	rd.Participants[0].Signers = NOBODY + ";" + CUSA
	dir := filepath.Join(t.TempDir(), "unknown-signer")
	if err := writeRefdata(dir, rd); err != nil {
		t.Fatal(err)
	}
	r = runMatch(t, lines(signedBy(tr.NOE(), NOBODY), signedBy(stdTrade("V3-NOCOL2").NOE(), CUSA)), withRefdata(dir))
	if r.Reason(1) != "SIGNATURE" || r.Reason(2) != "SIGNATURE" {
		t.Fatalf("unknown and non-SIGNER signers: %q %q", r.Reason(1), r.Reason(2))
	}
}
