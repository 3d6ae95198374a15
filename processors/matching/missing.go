package matching

import (
	"slices"
	"strings"

	"github.com/ste-utility/ste/schemas"
)

// Owed is one message a trade still lacks and the party that owes it
// (docs/spec/gateway.md §4 "missing"). Account is set for NPR and SET, Count
// for ALCs when some but not all allocations are in force. Quantity (NPR,
// SET: the ALC's) is for allegements (messages.md §6 ALG), not the view.
type Owed struct {
	MsgType  string `json:"msg_type"`
	Account  string `json:"account,omitempty"`
	From     string `json:"from"`
	Count    int    `json:"count,omitempty"`
	Quantity int64  `json:"-"`
}

// Missing says who owes what, from the messages in force by the contract's
// four rules alone, in their order. It is the one implementation: the
// gateway's trade answers, the console's Trades and At-risk pages and the
// allegements all use it. It may be non-empty for a trade complete by count
// (an account with an ALC but whose NPR names another account), is empty
// (never nil) when no rule applies, and for a locked or cancelled trade
// (nothing is owed). The flags of the last evaluation say whether the trade
// is locked; an unlocked trade's messages in force are F0 (section 5a step
// 1), which no tolerance decides.
func (t *Trade) Missing() []Owed {
	if len(t.Keys) == 0 || t.Locked || t.Cancelled || t.TombCancelled {
		return []Owed{}
	}
	a := &assessment{t: t, key: t.Keys[0]}
	a.unlockedView()
	return missing(a.key, newView(a.f0, nil))
}

// missing applies the four rules to the messages in force v. The parties
// come from the key fields, whether or not they have sent anything.
func missing(k schemas.Key, v *view) []Owed {
	out := []Owed{}
	if len(v.noe) == 0 {
		out = append(out, Owed{MsgType: schemas.NOE.String(), From: k.Broker})
	}
	if len(v.alc) == 0 {
		out = append(out, Owed{MsgType: schemas.ALC.String(), From: k.InvMgr})
	} else if n, want := len(v.alc), v.allocations(); n < want {
		out = append(out, Owed{MsgType: schemas.ALC.String(), From: k.InvMgr, Count: want - n})
	}
	// The ALC accounts in byte order, each with the Custodian (and the
	// Quantity) of its first ALC by MsgId (an account may have two ALCs).
	alcs := slices.Clone(v.alc)
	slices.SortFunc(alcs, func(a, b *Entry) int {
		if c := strings.Compare(a.Account, b.Account); c != 0 {
			return c
		}
		return strings.Compare(a.MsgId, b.MsgId)
	})
	var accounts []*Entry
	for _, e := range alcs {
		if len(accounts) == 0 || accounts[len(accounts)-1].Account != e.Account {
			accounts = append(accounts, e)
		}
	}
	has := func(typ schemas.MsgType, account string) bool {
		for _, e := range v.byAccount(account) {
			if e.Type == typ {
				return true
			}
		}
		return false
	}
	for _, a := range accounts {
		if !has(schemas.NPR, a.Account) {
			out = append(out, Owed{MsgType: schemas.NPR.String(), Account: a.Account, From: k.Broker, Quantity: a.Quantity})
		}
	}
	for _, a := range accounts {
		if !has(schemas.SET, a.Account) {
			out = append(out, Owed{MsgType: schemas.SET.String(), Account: a.Account, From: a.Custodian, Quantity: a.Quantity})
		}
	}
	return out
}
