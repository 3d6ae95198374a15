package conformance

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"
)

type vcase struct {
	name string
	code string // "" = accepted
	msg  func(tr *Trade) *Msg
}

// jpTrade: JPY security (0 minor units), BUY, 100 @ 1.5.
func jpTrade(ref string) *Trade {
	return &Trade{
		Ref: ref, TDate: dMon, ISIN: isinJP, Side: "BUY", Broker: BRK, InvMgr: INV,
		Price: "1.5", Ccy: "JPY", Settle: dWed, Minor: 0,
		Allocs: []Alloc{{Acct: "ACCJ001", Qty: 100, Cust: CUSA, PSET: CSD, Comm: "10", Fees: "2"}},
		Base:   baseTime,
	}
}

// nprWith returns trade tr's NPR1 with quantity, price and amounts set, net
// consistent with the side unless given.
func nprWith(tr *Trade, qty int64, price, gross, comm, fees, net string) *Msg {
	m := tr.NPR(0)
	m.Set("Quantity", fmt.Sprint(qty)).Set("Price", price).Set("GrossAmount", gross).
		Set("Commission", comm).Set("Fees", fees).Set("NetAmount", net)
	return m
}

func validationCases() []vcase {
	now := time.Now().UTC()
	long := func(n int) string { return strings.Repeat("A", n) }
	return []vcase{
		// ---- accepted baselines
		{"ok_NOE", "", func(tr *Trade) *Msg { return tr.NOE() }},
		{"ok_ALC", "", func(tr *Trade) *Msg { return tr.ALC(0) }},
		{"ok_NPR", "", func(tr *Trade) *Msg { return tr.NPR(0) }},
		{"ok_SET", "", func(tr *Trade) *Msg { return tr.SET(0) }},
		{"ok_Sig_without_alg_attribute", "", func(tr *Trade) *Msg { m := tr.NOE(); m.SigAlg = sp(""); return m }},
		{"ok_BIC_8_chars", "", func(tr *Trade) *Msg { tr.Broker = BRK8; return tr.NOE() }},
		{"ok_roles_list_BROKER;CUSTODIAN_as_broker", "", func(tr *Trade) *Msg { tr.Broker = CUSC; return tr.NOE() }},
		{"ok_roles_list_BROKER;CUSTODIAN_as_custodian", "", func(tr *Trade) *Msg { tr.Allocs[0].Cust = CUSC; return tr.ALC(0) }},
		{"ok_MsgId_64_chars", "", func(tr *Trade) *Msg { return tr.NOE().Set("MsgId", tr.Ref+"-"+long(64-len(tr.Ref)-1)) }},
		{"ok_MsgId_all_allowed_chars", "", func(tr *Trade) *Msg { return tr.NOE().Set("MsgId", tr.Ref+"-aZ09._:-") }},
		{"ok_TradeRef_35_chars", "", func(tr *Trade) *Msg { tr.IDPrefix = tr.Ref; tr.Ref = tr.Ref + long(35-len(tr.Ref)); return tr.NOE() }},
		{"ok_price_6_decimals", "", func(tr *Trade) *Msg { return tr.NOE().Set("Price", "12.345678") }},
		{"ok_Created_with_offset", "", func(tr *Trade) *Msg { return tr.NOE().Set("Created", "2026-03-02T17:30:00+08:00") }},
		{"ok_Created_without_fraction", "", func(tr *Trade) *Msg { return tr.NOE().Set("Created", "2026-03-02T09:30:00Z") }},
		{"ok_Created_RFC3339_lowercase_t_z", "", func(tr *Trade) *Msg { return tr.NOE().Set("Created", "2026-03-02t09:30:00.000z") }},
		{"ok_value_trimmed_after_char_refs", "", func(tr *Trade) *Msg { return tr.NOE().SetRaw("Quantity", "&#32;1500&#9;") }},
		{"ok_value_trimmed_inside_CDATA", "", func(tr *Trade) *Msg { return tr.NOE().SetRaw("Quantity", "<![CDATA[ 1500 ]]>") }},
		{"ok_Created_old_2019", "", func(tr *Trade) *Msg { return tr.NOE().Set("Created", "2019-01-01T00:00:00.000Z") }},
		{"ok_Created_now_plus_1h", "", func(tr *Trade) *Msg { return tr.NOE().Set("Created", ts(now.Add(time.Hour))) }},
		{"ok_TradeDate_Saturday", "", func(tr *Trade) *Msg { tr.TDate = dPrevSa; tr.Settle = dMon; return tr.NOE() }},
		{"ok_same_day_settlement", "", func(tr *Trade) *Msg { tr.Settle = tr.TDate; return tr.NOE() }},
		{"ok_other_countrys_holiday_SG_security_on_JP_holiday", "", func(tr *Trade) *Msg { tr.Settle = dThu; return tr.NOE() }},
		{"ok_other_countrys_holiday_JP_security_on_SG_holiday", "", func(tr *Trade) *Msg { j := jpTrade(tr.Ref); j.Settle = dTue; return j.NOE() }},
		{"ok_NOE_CANCEL_with_key_fields_only", "", func(tr *Trade) *Msg { return Cancel(tr.NOE(), tr.Ref+"-CX", tr.Base) }},
		{"ok_SET_CANCEL_with_Custodian", "", func(tr *Trade) *Msg { return Cancel(tr.SET(0), tr.Ref+"-CX", tr.Base) }},
		{"ok_REPLACE_of_unknown_message", "", func(tr *Trade) *Msg { return Replace(tr.NOE(), tr.Ref+"-RP", tr.Base) }},
		{"ok_amount_1234.5_SGD", "", func(tr *Trade) *Msg { return nprWith(tr, 100, "12.345", "1234.5", "10", "1.5", "1246") }},
		{"ok_amount_100.0_JPY", "", func(tr *Trade) *Msg {
			j := jpTrade(tr.Ref)
			return nprWith(j, 60, "1.5", "90.0", "8", "2", "100.0")
		}},
		{"ok_JPY_price_with_decimals", "", func(tr *Trade) *Msg { j := jpTrade(tr.Ref); return j.NOE().Set("Price", "100.5") }},
		{"ok_gross_rounded_half_away_SGD_10.125", "", func(tr *Trade) *Msg { return nprWith(tr, 1, "10.125", "10.13", "0.00", "0.00", "10.13") }},
		{"ok_gross_rounded_half_away_JPY_100.5", "", func(tr *Trade) *Msg {
			return nprWith(jpTrade(tr.Ref), 1, "100.5", "101", "0", "0", "101")
		}},
		{"ok_gross_rounded_up_0.9999", "", func(tr *Trade) *Msg { return nprWith(tr, 3, "0.3333", "1.00", "0.10", "0.01", "1.11") }},
		{"ok_gross_exact_arithmetic_2^53+1_shares", "", func(tr *Trade) *Msg {
			g := mulRound(9007199254740993, "1.000001", 2)
			return nprWith(tr, 9007199254740993, "1.000001", g, "0.00", "0.00", g)
		}},
		{"BAD_AMOUNT_quantity_beyond_18_digits", "BAD_AMOUNT", func(tr *Trade) *Msg { return tr.NOE().Set("Quantity", "99999999999999999999") }},
		{"ok_negative_commission_rebate", "", func(tr *Trade) *Msg { return nprWith(tr, 100, "12.345", "1234.50", "-1.00", "0.00", "1233.50") }},
		{"ok_net_SELL", "", func(tr *Trade) *Msg { tr.Side = "SELL"; return tr.NPR(0) }},
		{"ok_BHD_3_minor_units", "", func(tr *Trade) *Msg {
			return nprWith(tr, 1, "1.2345", "1.235", "0.001", "0.001", "1.237").Set("TradeCcy", "BHD").Set("SettleCcy", "BHD")
		}},

		// ---- SCHEMA
		{"SCHEMA_missing_Price", "SCHEMA", func(tr *Trade) *Msg { return tr.NOE().Del("Price") }},
		{"SCHEMA_empty_Price", "SCHEMA", func(tr *Trade) *Msg { return tr.NOE().Set("Price", "") }},
		{"SCHEMA_blank_Price", "SCHEMA", func(tr *Trade) *Msg { return tr.NOE().Set("Price", "   ") }},
		{"SCHEMA_price_7_decimals", "SCHEMA", func(tr *Trade) *Msg { return tr.NOE().Set("Price", "12.3450001") }},
		{"SCHEMA_price_comma", "SCHEMA", func(tr *Trade) *Msg { return tr.NOE().Set("Price", "12,345") }},
		{"SCHEMA_quantity_100.0", "SCHEMA", func(tr *Trade) *Msg { return tr.NOE().Set("Quantity", "1500.0") }},
		{"SCHEMA_price_exponent", "SCHEMA", func(tr *Trade) *Msg { return tr.NOE().Set("Price", "1.2345e1") }},
		{"SCHEMA_quantity_inner_space", "SCHEMA", func(tr *Trade) *Msg { return tr.NOE().Set("Quantity", "1 500") }},
		{"SCHEMA_TradeRef_blank", "SCHEMA", func(tr *Trade) *Msg { tr.Ref = "   "; tr.IDPrefix = "V-BLANK"; return tr.NOE() }},
		{"SCHEMA_quantity_not_a_number", "SCHEMA", func(tr *Trade) *Msg { return tr.NOE().Set("Quantity", "many") }},
		{"SCHEMA_TradeDate_form", "SCHEMA", func(tr *Trade) *Msg { return tr.NOE().Set("TradeDate", "2026-3-02") }},
		{"SCHEMA_TradeDate_not_a_date", "SCHEMA", func(tr *Trade) *Msg { return tr.NOE().Set("TradeDate", "2026-02-30") }},
		{"SCHEMA_SettleDate_form", "SCHEMA", func(tr *Trade) *Msg { return tr.NOE().Set("SettleDate", "04/03/2026") }},
		{"SCHEMA_Created_not_RFC3339", "SCHEMA", func(tr *Trade) *Msg { return tr.NOE().Set("Created", "2026-03-02 09:30:00") }},
		{"SCHEMA_Created_missing", "SCHEMA", func(tr *Trade) *Msg { return tr.NOE().Del("Created") }},
		{"SCHEMA_ExecTime_not_RFC3339", "SCHEMA", func(tr *Trade) *Msg { return tr.NOE().Set("ExecTime", "09:28") }},
		{"SCHEMA_AllocCount_0", "SCHEMA", func(tr *Trade) *Msg { return tr.ALC(0).Set("AllocCount", "0") }},
		{"SCHEMA_AllocCount_negative", "SCHEMA", func(tr *Trade) *Msg { return tr.ALC(0).Set("AllocCount", "-2") }},
		{"SCHEMA_AllocCount_2.0", "SCHEMA", func(tr *Trade) *Msg { return tr.ALC(0).Set("AllocCount", "2.0") }},
		{"SCHEMA_AllocCount_missing", "SCHEMA", func(tr *Trade) *Msg { return tr.ALC(0).Del("AllocCount") }},
		{"SCHEMA_BIC_10_chars", "SCHEMA", func(tr *Trade) *Msg { return tr.ALC(0).Set("Broker", "BRKASGSGXX") }},
		{"SCHEMA_BIC_lowercase", "SCHEMA", func(tr *Trade) *Msg { return tr.ALC(0).Set("Custodian", "cusasgsgxxx") }},
		{"SCHEMA_PSET_9_chars", "SCHEMA", func(tr *Trade) *Msg { return tr.ALC(0).Set("PSET", "CDPLSGSGX") }},
		{"SCHEMA_ISIN_11_chars", "SCHEMA", func(tr *Trade) *Msg { return tr.NOE().Set("ISIN", isinSG[:11]) }},
		{"SCHEMA_ISIN_lowercase", "SCHEMA", func(tr *Trade) *Msg { return tr.NOE().Set("ISIN", strings.ToLower(isinSG)) }},
		{"SCHEMA_currency_2_letters", "SCHEMA", func(tr *Trade) *Msg { return tr.NOE().Set("TradeCcy", "SG") }},
		{"SCHEMA_currency_lowercase", "SCHEMA", func(tr *Trade) *Msg { return tr.NOE().Set("TradeCcy", "sgd") }},
		{"SCHEMA_MsgId_65_chars", "SCHEMA", func(tr *Trade) *Msg { return tr.NOE().Set("MsgId", tr.Ref+"-"+long(65-len(tr.Ref)-1)) }},
		{"SCHEMA_MsgId_space", "SCHEMA", func(tr *Trade) *Msg { return tr.NOE().Set("MsgId", tr.Ref+" NOE") }},
		{"SCHEMA_MsgId_slash", "SCHEMA", func(tr *Trade) *Msg { return tr.NOE().Set("MsgId", tr.Ref+"/NOE") }},
		{"SCHEMA_MsgId_missing", "SCHEMA", func(tr *Trade) *Msg { return tr.NOE().Del("MsgId") }},
		{"SCHEMA_MsgType_unknown", "SCHEMA", func(tr *Trade) *Msg { return tr.NOE().Set("MsgType", "XYZ") }},
		{"SCHEMA_MsgType_missing", "SCHEMA", func(tr *Trade) *Msg { return tr.NOE().Del("MsgType") }},
		{"SCHEMA_Function_unknown", "SCHEMA", func(tr *Trade) *Msg { return tr.NOE().Set("Function", "AMEND") }},
		{"SCHEMA_Side_unknown", "SCHEMA", func(tr *Trade) *Msg { tr.Side = "HOLD"; return tr.NOE() }},
		{"SCHEMA_Side_lowercase", "SCHEMA", func(tr *Trade) *Msg { tr.Side = "buy"; return tr.NOE() }},
		{"SCHEMA_CANCEL_without_RelatedMsgId", "SCHEMA", func(tr *Trade) *Msg { return Cancel(tr.NOE(), tr.Ref+"-CX", tr.Base).Del("RelatedMsgId") }},
		{"SCHEMA_CANCEL_empty_RelatedMsgId", "SCHEMA", func(tr *Trade) *Msg { return Cancel(tr.NOE(), tr.Ref+"-CX", tr.Base).Set("RelatedMsgId", "") }},
		{"SCHEMA_REPLACE_without_RelatedMsgId", "SCHEMA", func(tr *Trade) *Msg { return Replace(tr.NOE(), tr.Ref+"-RP", tr.Base).Del("RelatedMsgId") }},
		{"SCHEMA_SET_CANCEL_without_Custodian", "SCHEMA", func(tr *Trade) *Msg { return Cancel(tr.SET(0), tr.Ref+"-CX", tr.Base).Del("Custodian") }},
		{"SCHEMA_REPLACE_without_full_body", "SCHEMA", func(tr *Trade) *Msg { return Replace(tr.NOE(), tr.Ref+"-RP", tr.Base).Del("Price") }},
		{"SCHEMA_CANCEL_without_key_field", "SCHEMA", func(tr *Trade) *Msg { return Cancel(tr.NOE(), tr.Ref+"-CX", tr.Base).Del("ISIN") }},
		{"SCHEMA_Sender_missing", "SCHEMA", func(tr *Trade) *Msg { m := tr.NOE(); m.SignAs = BRK; return m.Del("Sender") }},
		{"SCHEMA_GrossAmount_not_decimal", "SCHEMA", func(tr *Trade) *Msg { return tr.NPR(0).Set("GrossAmount", "12,345.00") }},
		{"SCHEMA_TradeRef_36_chars", "SCHEMA", func(tr *Trade) *Msg { tr.IDPrefix = tr.Ref; tr.Ref = tr.Ref + long(36-len(tr.Ref)); return tr.NOE() }},
		{"SCHEMA_SafekeepingAccount_missing", "SCHEMA", func(tr *Trade) *Msg { return tr.SET(0).Del("SafekeepingAccount") }},
		{"SCHEMA_Market_missing", "SCHEMA", func(tr *Trade) *Msg { return tr.NOE().Del("Market") }},
		{"SCHEMA_header_field_twice", "SCHEMA", func(tr *Trade) *Msg {
			m := tr.NOE()
			m.Hdr = append(m.Hdr, F{N: "MsgType", V: "NOE"})
			return m
		}},
		{"SCHEMA_body_field_twice_same_value", "SCHEMA", func(tr *Trade) *Msg {
			m := tr.NOE()
			m.Body = append(m.Body, F{N: "Price", V: tr.Price})
			return m
		}},

		// ---- UNKNOWN_SENDER (no NACK)
		{"UNKNOWN_SENDER_not_in_data", "UNKNOWN_SENDER", func(tr *Trade) *Msg { tr.Broker = NOBODY; return tr.NOE() }},
		{"UNKNOWN_SENDER_INACTIVE", "UNKNOWN_SENDER", func(tr *Trade) *Msg { tr.Broker = BRKI; return tr.NOE() }},
		{"UNKNOWN_SENDER_SUSPENDED", "UNKNOWN_SENDER", func(tr *Trade) *Msg { tr.Broker = BRKS; return tr.NOE() }},

		// ---- SIGNATURE
		{"SIGNATURE_missing", "SIGNATURE", func(tr *Trade) *Msg { m := tr.NOE(); m.NoSig = true; return m }},
		{"SIGNATURE_empty", "SIGNATURE", func(tr *Trade) *Msg { m := tr.NOE(); m.SigText = sp(""); return m }},
		{"SIGNATURE_not_base64", "SIGNATURE", func(tr *Trade) *Msg { m := tr.NOE(); m.SigText = sp("not*base64!"); return m }},
		{"SIGNATURE_alg_other", "SIGNATURE", func(tr *Trade) *Msg { m := tr.NOE(); m.SigAlg = sp("rsa-sha256"); return m }},
		{"SIGNATURE_other_key", "SIGNATURE", func(tr *Trade) *Msg { m := tr.NOE(); m.SignAs = BRK8; return m }},
		{"SIGNATURE_short", "SIGNATURE", func(tr *Trade) *Msg {
			m := tr.NOE()
			m.SigText = sp(base64.StdEncoding.EncodeToString(make([]byte, 32)))
			return m
		}},
		{"SIGNATURE_over_header_only", "SIGNATURE", func(tr *Trade) *Msg {
			m := tr.NOE()
			region := m.SignedRegion()
			m.SigText = sp(signB64(BRK, []byte(region[:strings.Index(region, "<Body>")])))
			return m
		}},
		{"SIGNATURE_body_changed_after_signing", "SIGNATURE", func(tr *Trade) *Msg {
			m := tr.NOE()
			sig := signB64(BRK, []byte(m.SignedRegion()))
			m.Set("Market", "XSGX")
			m.SigText = sp(sig)
			return m
		}},
		{"SIGNATURE_alg_uppercase", "SIGNATURE", func(tr *Trade) *Msg { m := tr.NOE(); m.SigAlg = sp("ED25519"); return m }},
		{"SIGNATURE_unpadded_base64", "SIGNATURE", func(tr *Trade) *Msg {
			m := tr.NOE()
			s := strings.TrimRight(signB64(BRK, []byte(m.SignedRegion())), "=")
			m.SigText = sp(s)
			return m
		}},

		// ---- NOT_AUTHORISED
		{"NOT_AUTHORISED_NOE_by_InvMgr", "NOT_AUTHORISED", func(tr *Trade) *Msg { return tr.NOE().Set("Sender", INV) }},
		{"NOT_AUTHORISED_NOE_by_other_broker", "NOT_AUTHORISED", func(tr *Trade) *Msg { return tr.NOE().Set("Sender", BRK8) }},
		{"NOT_AUTHORISED_ALC_by_Broker", "NOT_AUTHORISED", func(tr *Trade) *Msg { return tr.ALC(0).Set("Sender", BRK) }},
		{"NOT_AUTHORISED_NPR_by_InvMgr", "NOT_AUTHORISED", func(tr *Trade) *Msg { return tr.NPR(0).Set("Sender", INV) }},
		{"NOT_AUTHORISED_SET_by_other_custodian", "NOT_AUTHORISED", func(tr *Trade) *Msg { return tr.SET(0).Set("Sender", CUSB) }},
		{"NOT_AUTHORISED_SET_by_Broker", "NOT_AUTHORISED", func(tr *Trade) *Msg { return tr.SET(0).Set("Sender", BRK) }},
		{"NOT_AUTHORISED_NOE_CANCEL_by_InvMgr", "NOT_AUTHORISED", func(tr *Trade) *Msg {
			return Cancel(tr.NOE(), tr.Ref+"-CX", tr.Base).Set("Sender", INV)
		}},
		{"NOT_AUTHORISED_ALC_REPLACE_by_Broker", "NOT_AUTHORISED", func(tr *Trade) *Msg {
			return Replace(tr.ALC(0), tr.Ref+"-RP", tr.Base).Set("Sender", BRK)
		}},
		{"NOT_AUTHORISED_SET_CANCEL_by_other_custodian", "NOT_AUTHORISED", func(tr *Trade) *Msg {
			return Cancel(tr.SET(0), tr.Ref+"-CX", tr.Base).Set("Sender", CUSB)
		}},
		{"NOT_AUTHORISED_NPR_REPLACE_by_Custodian", "NOT_AUTHORISED", func(tr *Trade) *Msg {
			return Replace(tr.NPR(0), tr.Ref+"-RP", tr.Base).Set("Sender", CUSA)
		}},

		// ---- UNKNOWN_PARTY
		{"UNKNOWN_PARTY_Broker_lacks_BROKER_role", "UNKNOWN_PARTY", func(tr *Trade) *Msg { tr.Broker = CUSA; return tr.NOE() }},
		{"UNKNOWN_PARTY_InvMgr_not_in_data", "UNKNOWN_PARTY", func(tr *Trade) *Msg { tr.InvMgr = NOBODY; return tr.NOE() }},
		{"UNKNOWN_PARTY_InvMgr_INACTIVE", "UNKNOWN_PARTY", func(tr *Trade) *Msg { tr.InvMgr = INVI; return tr.NOE() }},
		{"UNKNOWN_PARTY_InvMgr_is_a_broker", "UNKNOWN_PARTY", func(tr *Trade) *Msg { tr.InvMgr = BRK8; return tr.NOE() }},
		{"UNKNOWN_PARTY_Broker_INACTIVE_in_ALC", "UNKNOWN_PARTY", func(tr *Trade) *Msg { tr.Broker = BRKI; return tr.ALC(0) }},
		{"UNKNOWN_PARTY_Custodian_is_CSD", "UNKNOWN_PARTY", func(tr *Trade) *Msg { tr.Allocs[0].Cust = CSD; return tr.ALC(0) }},
		{"UNKNOWN_PARTY_Custodian_INACTIVE", "UNKNOWN_PARTY", func(tr *Trade) *Msg { tr.Allocs[0].Cust = CUSI; return tr.ALC(0) }},
		{"UNKNOWN_PARTY_PSET_is_custodian", "UNKNOWN_PARTY", func(tr *Trade) *Msg { tr.Allocs[0].PSET = CUSB; return tr.ALC(0) }},
		{"UNKNOWN_PARTY_PSET_INACTIVE", "UNKNOWN_PARTY", func(tr *Trade) *Msg { tr.Allocs[0].PSET = CSDI; return tr.ALC(0) }},
		{"UNKNOWN_PARTY_PSET_not_in_data_SET", "UNKNOWN_PARTY", func(tr *Trade) *Msg { tr.Allocs[0].PSET = NOBODY; return tr.SET(0) }},
		{"UNKNOWN_PARTY_InvMgr_INACTIVE_in_SET", "UNKNOWN_PARTY", func(tr *Trade) *Msg { tr.InvMgr = INVI; return tr.SET(0) }},

		// ---- UNKNOWN_SECURITY
		{"UNKNOWN_SECURITY_not_in_data", "UNKNOWN_SECURITY", func(tr *Trade) *Msg { tr.ISIN = isinUNKNOWN; return tr.NOE() }},
		{"UNKNOWN_SECURITY_SUSPENDED", "UNKNOWN_SECURITY", func(tr *Trade) *Msg { tr.ISIN = isinSUSP; return tr.NOE() }},
		{"UNKNOWN_SECURITY_bad_check_digit_though_in_data", "UNKNOWN_SECURITY", func(tr *Trade) *Msg { tr.ISIN = isinBADCHK; return tr.NOE() }},
		{"UNKNOWN_SECURITY_in_SET", "UNKNOWN_SECURITY", func(tr *Trade) *Msg { tr.ISIN = isinSUSP; return tr.SET(0) }},

		// ---- UNKNOWN_CURRENCY
		{"UNKNOWN_CURRENCY_TradeCcy", "UNKNOWN_CURRENCY", func(tr *Trade) *Msg { return tr.NOE().Set("TradeCcy", "ABC") }},
		{"UNKNOWN_CURRENCY_SET_SettleCcy", "UNKNOWN_CURRENCY", func(tr *Trade) *Msg { return tr.SET(0).Set("SettleCcy", "ABC") }},
		{"UNKNOWN_CURRENCY_ALC_TradeCcy", "UNKNOWN_CURRENCY", func(tr *Trade) *Msg { return tr.ALC(0).Set("TradeCcy", "ABC") }},

		// ---- BAD_DATE
		{"BAD_DATE_settle_Saturday", "BAD_DATE", func(tr *Trade) *Msg { tr.Settle = dSat; return tr.NOE() }},
		{"BAD_DATE_settle_Sunday", "BAD_DATE", func(tr *Trade) *Msg { tr.Settle = dSun; return tr.NOE() }},
		{"BAD_DATE_settle_SG_holiday", "BAD_DATE", func(tr *Trade) *Msg { tr.Settle = dTue; return tr.NOE() }},
		{"BAD_DATE_settle_JP_holiday_JP_security", "BAD_DATE", func(tr *Trade) *Msg { j := jpTrade(tr.Ref); j.Settle = dThu; return j.NOE() }},
		{"BAD_DATE_settle_before_trade", "BAD_DATE", func(tr *Trade) *Msg { tr.Settle = dPrevFr; return tr.NOE() }},
		{"BAD_DATE_Created_48h_ahead", "BAD_DATE", func(tr *Trade) *Msg { return tr.NOE().Set("Created", ts(now.Add(48*time.Hour))) }},
		{"BAD_DATE_NPR_settle_Sunday", "BAD_DATE", func(tr *Trade) *Msg { tr.Settle = dSun; return tr.NPR(0) }},
		{"BAD_DATE_SET_settle_holiday", "BAD_DATE", func(tr *Trade) *Msg { tr.Settle = dTue; return tr.SET(0) }},

		// ---- BAD_AMOUNT
		{"BAD_AMOUNT_quantity_zero", "BAD_AMOUNT", func(tr *Trade) *Msg { return tr.NOE().Set("Quantity", "0") }},
		{"BAD_AMOUNT_quantity_negative", "BAD_AMOUNT", func(tr *Trade) *Msg { return tr.NOE().Set("Quantity", "-1500") }},
		{"BAD_AMOUNT_price_zero", "BAD_AMOUNT", func(tr *Trade) *Msg { return tr.NOE().Set("Price", "0.000") }},
		{"BAD_AMOUNT_price_negative", "BAD_AMOUNT", func(tr *Trade) *Msg { return tr.ALC(0).Set("Price", "-12.345") }},
		{"BAD_AMOUNT_SET_quantity_zero", "BAD_AMOUNT", func(tr *Trade) *Msg { return tr.SET(0).Set("Quantity", "0") }},
		{"BAD_AMOUNT_amount_3_decimals_SGD", "BAD_AMOUNT", func(tr *Trade) *Msg { return tr.SET(0).Set("NetAmount", "12356.501") }},
		{"BAD_AMOUNT_amount_100.5_JPY", "BAD_AMOUNT", func(tr *Trade) *Msg {
			j := jpTrade(tr.Ref)
			return j.SET(0).Set("NetAmount", "100.5")
		}},
		{"BAD_AMOUNT_commission_3_decimals", "BAD_AMOUNT", func(tr *Trade) *Msg { return nprWith(tr, 100, "12.345", "1234.50", "1.005", "0", "1235.505") }},
		{"BAD_AMOUNT_NPR_SettleCcy_ne_TradeCcy", "BAD_AMOUNT", func(tr *Trade) *Msg { return tr.NPR(0).Set("SettleCcy", "USD") }},
		{"BAD_AMOUNT_gross_banker_rounding_10.12", "BAD_AMOUNT", func(tr *Trade) *Msg { return nprWith(tr, 1, "10.125", "10.12", "0.00", "0.00", "10.12") }},
		{"BAD_AMOUNT_gross_truncated_0.99", "BAD_AMOUNT", func(tr *Trade) *Msg { return nprWith(tr, 3, "0.3333", "0.99", "0.10", "0.01", "1.10") }},
		{"BAD_AMOUNT_gross_JPY_100", "BAD_AMOUNT", func(tr *Trade) *Msg { return nprWith(jpTrade(tr.Ref), 1, "100.5", "100", "0", "0", "100") }},
		{"BAD_AMOUNT_net_BUY_computed_as_SELL", "BAD_AMOUNT", func(tr *Trade) *Msg { return nprWith(tr, 100, "12.345", "1234.50", "10.00", "1.50", "1223.00") }},
		{"BAD_AMOUNT_net_SELL_computed_as_BUY", "BAD_AMOUNT", func(tr *Trade) *Msg {
			tr.Side = "SELL"
			return nprWith(tr, 100, "12.345", "1234.50", "10.00", "1.50", "1246.00")
		}},
		{"BAD_AMOUNT_gross_off_by_one_cent_2^53+1_shares", "BAD_AMOUNT", func(tr *Trade) *Msg {
			g := rat(mulRound(9007199254740993, "1.000001", 2))
			g.Add(g, rat("0.01"))
			return nprWith(tr, 9007199254740993, "1.000001", g.FloatString(2), "0.00", "0.00", g.FloatString(2))
		}},
		{"BAD_AMOUNT_net_off_by_one_cent", "BAD_AMOUNT", func(tr *Trade) *Msg { return tr.NPR(0).Set("NetAmount", "12356.51") }},
		{"BAD_AMOUNT_NPR_quantity_zero", "BAD_AMOUNT", func(tr *Trade) *Msg { return nprWith(tr, 0, "12.345", "0.00", "0.00", "0.00", "0.00") }},

		// ---- rule order: the first failing row gives the code
		{"ORDER_MALFORMED_before_SCHEMA", "MALFORMED", func(tr *Trade) *Msg {
			m := tr.NOE().Set("MsgId", "bad id")
			m.Tail = "<Unclosed>"
			return m
		}},
		{"ORDER_SCHEMA_before_UNKNOWN_SENDER", "SCHEMA", func(tr *Trade) *Msg { tr.Broker = NOBODY; return tr.NOE().Set("Price", "1.0000001") }},
		{"ORDER_SCHEMA_inactive_sender_gets_NACK", "SCHEMA", func(tr *Trade) *Msg { tr.Broker = BRKI; return tr.NOE().Set("Quantity", "1.5") }},
		{"ORDER_UNKNOWN_SENDER_before_SIGNATURE", "UNKNOWN_SENDER", func(tr *Trade) *Msg {
			tr.Broker = NOBODY
			m := tr.NOE()
			m.NoSig = true
			return m
		}},
		{"ORDER_SIGNATURE_before_NOT_AUTHORISED", "SIGNATURE", func(tr *Trade) *Msg {
			m := tr.ALC(0).Set("Sender", BRK)
			m.SignAs = INV
			return m
		}},
		{"ORDER_NOT_AUTHORISED_before_UNKNOWN_PARTY", "NOT_AUTHORISED", func(tr *Trade) *Msg {
			tr.Allocs[0].Cust = NOBODY
			return tr.ALC(0).Set("Sender", BRK)
		}},
		{"ORDER_UNKNOWN_PARTY_before_UNKNOWN_SECURITY", "UNKNOWN_PARTY", func(tr *Trade) *Msg { tr.InvMgr = NOBODY; tr.ISIN = isinSUSP; return tr.NOE() }},
		{"ORDER_UNKNOWN_SECURITY_before_UNKNOWN_CURRENCY", "UNKNOWN_SECURITY", func(tr *Trade) *Msg { tr.ISIN = isinSUSP; return tr.NOE().Set("TradeCcy", "ABC") }},
		{"ORDER_UNKNOWN_CURRENCY_before_BAD_DATE", "UNKNOWN_CURRENCY", func(tr *Trade) *Msg { tr.Settle = dSat; return tr.NOE().Set("TradeCcy", "ABC") }},
		{"ORDER_BAD_DATE_before_BAD_AMOUNT", "BAD_DATE", func(tr *Trade) *Msg { tr.Settle = dSat; return tr.NOE().Set("Quantity", "0") }},
		{"ORDER_SCHEMA_before_SIGNATURE", "SCHEMA", func(tr *Trade) *Msg {
			m := tr.NOE().Set("Side", "BOTH")
			m.NoSig = true
			return m
		}},
		{"ORDER_SCHEMA_before_BAD_AMOUNT", "SCHEMA", func(tr *Trade) *Msg { return tr.NOE().Set("Quantity", "-1.5") }},
	}
}

// §4: every rejection code, each alone, and the rule order. All cases run in
// one file, each on its own trade.
func TestValidation_Codes(t *testing.T) {
	cases := validationCases()
	var in []string
	var msgs []*Msg
	for i, c := range cases {
		tr := stdTrade(fmt.Sprintf("V%03d", i))
		m := c.msg(tr)
		msgs = append(msgs, m)
		in = append(in, m.Line())
	}
	r := runMatch(t, in)
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
				t.Errorf("line %d: got %q (%s), want %s\n  %s", n, got, detail, want, in[i])
				return
			}
			if c.code == "" {
				if len(r.ByID("ACK:"+m.Sender()+":"+m.ID())) != 1 {
					t.Errorf("accepted but no ACK:%s:%s", m.Sender(), m.ID())
				}
				return
			}
			e := r.ExcAt(n)
			// sender / msg_id read from the message when readable
			if c.code != "MALFORMED" {
				if s := m.Sender(); s != "" && e["sender"] != s {
					t.Errorf("exception sender %v, want %s", e["sender"], s)
				}
				if id := m.ID(); validMsgID.MatchString(id) && e["msg_id"] != id {
					t.Errorf("exception msg_id %v, want %s", e["msg_id"], id)
				}
			}
		})
	}
	if r.num("exceptions") != countCodes(cases) {
		t.Errorf("summary exceptions %d, want %d", r.num("exceptions"), countCodes(cases))
	}
}

func countCodes(cs []vcase) int {
	n := 0
	for _, c := range cs {
		if c.code != "" {
			n++
		}
	}
	return n
}

// §6 NACK MsgId and body, for a valid MsgId and for an invalid or missing one
// (`-`); no NACK for a non-participant sender.
func TestValidation_NACKFormat(t *testing.T) {
	tr := stdTrade("NK-1")
	badAmt := tr.NOE().Set("Quantity", "0")
	badID := tr.NOE().Set("MsgId", "NK 1 bad").Set("Quantity", "0")
	noID := tr.NOE().Del("MsgId")
	other := stdTrade("NK-2")
	other.Broker = NOBODY
	unknown := other.NOE().Set("Price", "1.1234567")
	r := runMatch(t, lines(badAmt, badID, noID, unknown))
	if got := []string{r.Reason(1), r.Reason(2), r.Reason(3), r.Reason(4)}; strings.Join(got, ",") != "BAD_AMOUNT,SCHEMA,SCHEMA,SCHEMA" {
		t.Fatalf("codes %v", got)
	}
	n1 := "NACK:" + BRK + ":" + badAmt.ID() + ":" + nackHash(badAmt.Line())
	if o := r.ByID(n1); len(o) != 1 {
		t.Errorf("want %s\n%s", n1, r.OutRaw)
	} else {
		checkNACK(t, o[0], BRK, badAmt.ID(), "BAD_AMOUNT")
		if o[0].H("RelatedMsgId") != "" && o[0].H("RelatedMsgId") != badAmt.ID() {
			t.Errorf("NACK header RelatedMsgId %q", o[0].H("RelatedMsgId"))
		}
	}
	for _, m := range []*Msg{badID, noID} {
		id := "NACK:" + BRK + ":-:" + nackHash(m.Line())
		if o := r.ByID(id); len(o) != 1 {
			t.Errorf("want %s", id)
		} else if o[0].B("Reason") != "SCHEMA" {
			t.Errorf("%s Reason %q", id, o[0].B("Reason"))
		}
	}
	if e := r.ExcAt(3); e != nil && e["msg_id"] != "" {
		t.Errorf("missing MsgId: exception msg_id %v, want \"\"", e["msg_id"])
	}
	for _, o := range r.Out {
		if o.H("Receiver") == NOBODY {
			t.Errorf("output to a non-participant: %s", o.ID())
		}
	}
}

// §7: exception record fields for a plain rejection.
func TestValidation_ExceptionRecordFields(t *testing.T) {
	tr := stdTrade("EXF-1")
	m := tr.NOE().Set("Price", "0")
	r := runMatch(t, []string{"", tr.ALC(0).Line(), "", m.Line()})
	e := r.ExcAt(4)
	if e == nil {
		t.Fatalf("no exception with id line-4 (physical line number, empty lines counted):\n%s", r.ExcRaw)
	}
	want := map[string]any{"id": "line-4", "reason": "BAD_AMOUNT", "sender": BRK, "msg_id": m.ID(),
		"source_partition": float64(-1), "source_offset": float64(-1),
		"payload": base64.StdEncoding.EncodeToString([]byte(m.Line()))}
	for k, v := range want {
		if e[k] != v {
			t.Errorf("exception %s = %v, want %v", k, e[k], v)
		}
	}
	if r.num("messages") != 2 {
		t.Errorf("summary messages %d, want 2 (empty lines not counted)", r.num("messages"))
	}
}
