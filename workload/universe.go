package workload

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/ste-utility/ste/schemas/date"
	"github.com/ste-utility/ste/schemas/decimal"
	"github.com/ste-utility/ste/schemas/refdata"
)

// markets the generator trades in, with their MIC; a market is used when the
// reference data has active securities, a currency and a CSD for it.
var markets = []struct{ country, mic string }{
	{"SG", "XSES"}, {"HK", "XHKG"}, {"JP", "XTKS"}, {"US", "XNYS"},
	{"GB", "XLON"}, {"DE", "XETR"}, {"FR", "XPAR"}, {"AU", "XASX"},
}

// universe is what trades are drawn from, taken once from the reference data.
type universe struct {
	ref        *refdata.Set
	markets    []market
	brokers    []string
	invMgrs    []string
	manual     []string // the investment managers whose affirmation mode is MANUAL
	custodians []string
	csds       []string
	// for invalid messages
	notCustodian  string // an active participant without the CUSTODIAN role
	unknownBIC    string // a well-formed BIC that is not a participant
	inactiveBIC   string // a participant that is not ACTIVE ("" if none)
	suspendedISIN string // a SUSPENDED security ("" if none)
	unknownCcy    string // well-formed, not in currency data
}

type market struct {
	country, mic string
	ccy          refdata.Currency
	securities   []refdata.Security
	csd          string
}

func newUniverse(ref *refdata.Set) (*universe, error) {
	u := &universe{ref: ref}
	bics := func(r refdata.Role) []string {
		var out []string
		for _, p := range ref.ParticipantsWithRole(r, true) {
			out = append(out, p.BIC)
		}
		return out
	}
	u.brokers, u.invMgrs, u.custodians, u.csds = bics(refdata.RoleBroker), bics(refdata.RoleInvMgr),
		bics(refdata.RoleCustodian), bics(refdata.RoleCSD)
	for _, im := range u.invMgrs {
		if ref.AffirmationMode(im) == refdata.AffirmManual {
			u.manual = append(u.manual, im)
		}
	}
	if len(u.brokers) == 0 || len(u.invMgrs) == 0 || len(u.custodians) < 2 || len(u.csds) < 2 {
		return nil, errors.New("reference data needs active brokers, investment managers, at least two custodians and two CSDs")
	}
	for _, m := range markets {
		ccyCode := ""
		secs := ref.SecuritiesIn(m.country, refdata.Active)
		if len(secs) == 0 {
			continue
		}
		ccyCode = secs[0].Currency
		ccy, ok := ref.Currency(ccyCode)
		if !ok {
			continue
		}
		csd := ""
		for _, p := range ref.ParticipantsWithRole(refdata.RoleCSD, true) {
			if p.Country == m.country {
				csd = p.BIC
				break
			}
		}
		if csd == "" {
			continue
		}
		var same []refdata.Security
		for _, s := range secs {
			if s.Currency == ccyCode {
				same = append(same, s)
			}
		}
		u.markets = append(u.markets, market{country: m.country, mic: m.mic, ccy: ccy, securities: same, csd: csd})
	}
	if len(u.markets) == 0 {
		return nil, errors.New("reference data has no market with active securities, its currency and a CSD")
	}
	for _, p := range ref.Participants() {
		switch {
		case p.Status == refdata.Active && !p.Roles.Has(refdata.RoleCustodian) && u.notCustodian == "":
			u.notCustodian = p.BIC
		case p.Status != refdata.Active && u.inactiveBIC == "":
			u.inactiveBIC = p.BIC
		}
	}
	for i := 0; ; i++ {
		bic := fmt.Sprintf("NOPT%02dSGXXX", i)
		if _, ok := ref.Participant(bic); !ok {
			u.unknownBIC = bic
			break
		}
	}
	if s := ref.SecuritiesIn("", refdata.Suspended); len(s) > 0 {
		u.suspendedISIN = s[0].ISIN
	}
	for _, c := range []string{"QQQ", "QQZ", "ZQZ", "QZQ"} {
		if _, ok := ref.Currency(c); !ok {
			u.unknownCcy = c
			break
		}
	}
	return u, nil
}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// newTrade draws a trade with k allocations and an investment manager of
// invMgrs (u.invMgrs when nil); principals draws another while the one
// drawn is the broker (a trade with no counterparty).
func (u *universe) newTrade(r *rand.Rand, idx int, tradeDate date.Date, base time.Time, k int, invMgrs []string, principals bool) *trade {
	if invMgrs == nil {
		invMgrs = u.invMgrs
	}
	m := &u.markets[weightedMarket(r, len(u.markets))]
	y, mo, d := tradeDate.Civil()
	t := &trade{
		ref:       fmt.Sprintf("BT%02d%02d%02d-%08d", y%100, mo, d, idx),
		tradeDate: tradeDate,
		sec:       pick(r, m.securities),
		ccy:       m.ccy,
		side:      pick(r, []string{"BUY", "SELL"}),
		broker:    pick(r, u.brokers),
		invMgr:    pick(r, invMgrs),
		market:    m.mic,
		base:      base,
	}
	for tries := 0; principals && t.invMgr == t.broker && tries < 100; tries++ {
		t.invMgr = pick(r, invMgrs)
	}
	t.settle = u.ref.AddBusinessDays(m.country, tradeDate, 2)
	t.price = randomPrice(r, m.ccy.MinorUnits)
	for i := 0; i < k; i++ {
		a := alloc{
			account:     fmt.Sprintf("AC%s%06d", t.invMgr[:4], r.IntN(1000000)),
			qty:         int64(100 * (1 + r.IntN(500))),
			custodian:   pick(r, u.custodians),
			pset:        m.csd,
			safekeeping: fmt.Sprintf("SK%08d", r.IntN(100000000)),
			cash:        fmt.Sprintf("CA%08d", r.IntN(100000000)),
		}
		// Accounts of one trade are distinct (criterion 11).
		for taken(t.allocs, a.account) {
			a.account += "X"
		}
		t.allocs = append(t.allocs, a)
	}
	for i := range t.allocs {
		t.computeAmounts(i)
	}
	return t
}

// computeAmounts fills an allocation's NPR amounts from quantity and price,
// the way a broker's back office does: gross rounded half away from zero to
// minor units, commission 8 bp, a fixed fee.
func (t *trade) computeAmounts(i int) {
	a := &t.allocs[i]
	u := t.ccy.MinorUnits
	a.gross, _ = decimal.MulRound(a.qty, t.price, u)
	a.commission, _ = decimal.MulRound(1, decimal.New(a.gross.Coef()*8, a.gross.Scale()+4), u)
	a.fees, _ = decimal.MulRound(1, decimal.New(125, 2), u)
	if t.side == "BUY" {
		a.net, _ = decimal.Add(a.gross, a.commission)
		a.net, _ = decimal.Add(a.net, a.fees)
	} else {
		a.net, _ = decimal.Sub(a.gross, a.commission)
		a.net, _ = decimal.Sub(a.net, a.fees)
	}
}

func taken(as []alloc, account string) bool {
	for _, a := range as {
		if a.account == account {
			return true
		}
	}
	return false
}

// weightedMarket favours the first market (Singapore, the source's exchange).
func weightedMarket(r *rand.Rand, n int) int {
	if r.IntN(100) < 40 {
		return 0
	}
	return r.IntN(n)
}

// randomPrice draws a plausible price: whole yen, otherwise 2 to 4 decimals.
func randomPrice(r *rand.Rand, units int) decimal.Dec {
	if units == 0 {
		return decimal.FromInt(int64(100 + r.IntN(20000)))
	}
	scale := 2 + r.IntN(3)
	whole := int64(1 + r.IntN(400))
	frac := int64(r.IntN(pow10(scale)))
	return decimal.New(whole*int64(pow10(scale))+frac, scale)
}

func pow10(n int) int {
	p := 1
	for ; n > 0; n-- {
		p *= 10
	}
	return p
}
