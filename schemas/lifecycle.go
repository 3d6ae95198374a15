package schemas

import "strconv"

// The forms of version 3's lifecycle fields (messages.md §3a, §4 SCHEMA).

// MaxAffirms is the most tokens an AFF's Affirms may hold.
const MaxAffirms = 1000

// RejectReasonCodes are the codes an AFF REJECT's RejectReason may hold.
var RejectReasonCodes = []string{"PRICE", "QUANTITY", "COMMISSION", "FEES", "NET_AMOUNT", "SETTLE_DATE", "SSI", "ACCOUNT", "OTHER"}

// CancelReasonCodes are the codes of a CXL's or CXJ's CancelReason.
var CancelReasonCodes = []string{"ERROR", "DUPLICATE", "CLIENT_REQUEST", "OTHER"}

// IsMatchDigest reports 64 lower-case hex characters: the form of a
// MatchDigest and of a non-empty Amends.
func IsMatchDigest(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// ParseToken reads a Sender:MsgId token, split at its first ':' (a MsgId
// may hold ':' itself): a BIC, ':', and a MsgId of section 2's form.
func ParseToken(tok string) (Identity, bool) {
	for i := 0; i < len(tok); i++ {
		if tok[i] == ':' {
			id := Identity{Sender: tok[:i], MsgId: tok[i+1:]}
			return id, IsBIC(id.Sender) && IsMsgId(id.MsgId)
		}
	}
	return Identity{}, false
}

// splitSingle splits a trimmed value at single spaces; problem says why it
// is not a list of non-empty items separated by single spaces.
func splitSingle(v string, max int) (items []string, problem string) {
	n := 1
	for i := 0; i < len(v); i++ {
		if v[i] == ' ' {
			n++
		}
	}
	if n > max {
		return nil, "holds " + strconv.Itoa(n) + " items, at most " + strconv.Itoa(max)
	}
	items = make([]string, 0, n)
	start := 0
	for i := 0; i <= len(v); i++ {
		if i == len(v) || v[i] == ' ' {
			if i == start {
				return nil, "is not separated by single spaces"
			}
			items = append(items, v[start:i])
			start = i + 1
		}
	}
	return items, ""
}

// repeated returns an item of items given twice, or "".
func repeated(items []string) string {
	if len(items) <= 16 {
		for i := 1; i < len(items); i++ {
			for j := 0; j < i; j++ {
				if items[i] == items[j] {
					return items[i]
				}
			}
		}
		return ""
	}
	seen := make(map[string]struct{}, len(items))
	for _, it := range items {
		if _, dup := seen[it]; dup {
			return it
		}
		seen[it] = struct{}{}
	}
	return ""
}

// parseAffirms checks an AFF's Affirms (non-empty, trimmed): 1 to
// MaxAffirms tokens of ParseToken's form, separated by single spaces, none
// twice.
func parseAffirms(v string) ([]string, *Rejection) {
	toks, problem := splitSingle(v, MaxAffirms)
	if problem != "" {
		return nil, reject(Schema, "Affirms "+problem)
	}
	for _, t := range toks {
		if _, ok := ParseToken(t); !ok {
			return nil, reject(Schema, "Affirms token "+quote(t)+" is not Sender:MsgId (a BIC, ':', and a MsgId of 1 to 64 of A-Z a-z 0-9 . _ : -)")
		}
	}
	if dup := repeated(toks); dup != "" {
		return nil, reject(Schema, "Affirms names "+quote(dup)+" twice")
	}
	return toks, nil
}

// parseRejectReason checks a REJECT's RejectReason (non-empty, trimmed):
// codes of RejectReasonCodes separated by single spaces, none twice.
func parseRejectReason(v string) ([]string, *Rejection) {
	codes, problem := splitSingle(v, MaxRecord)
	if problem != "" {
		return nil, reject(Schema, "RejectReason "+problem)
	}
	for _, c := range codes {
		if !oneOf(c, RejectReasonCodes) {
			return nil, reject(Schema, "RejectReason code "+quote(c)+" is not one of PRICE QUANTITY COMMISSION FEES NET_AMOUNT SETTLE_DATE SSI ACCOUNT OTHER")
		}
	}
	if dup := repeated(codes); dup != "" {
		return nil, reject(Schema, "RejectReason gives "+quote(dup)+" twice")
	}
	return codes, nil
}

// parseCancelReason checks a CXL's or CXJ's CancelReason: exactly one code.
func parseCancelReason(v string) (string, *Rejection) {
	if !oneOf(v, CancelReasonCodes) {
		return "", reject(Schema, "CancelReason "+quote(v)+" is not exactly one of ERROR DUPLICATE CLIENT_REQUEST OTHER")
	}
	return v, nil
}

func oneOf(s string, list []string) bool {
	for _, x := range list {
		if s == x {
			return true
		}
	}
	return false
}
