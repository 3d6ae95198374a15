package query

import (
	"slices"
	"time"

	"github.com/ste-utility/ste/processors/matching"
	"github.com/ste-utility/ste/schemas"
)

// AtRiskQuery selects the unmatched trades an operator chases.
type AtRiskQuery struct {
	Market      string // a MIC or "-"; "" for every market
	Participant string // a BIC party to the trade (Broker, InvMgr, a Custodian, a sender); "" for all
	Limit       int    // at most this many, the earliest cutoffs first
}

// AtRisk is one unmatched trade with its cutoff (docs/timeliness.md), as
// /at-risk answers it.
type AtRisk struct {
	Partition int32         `json:"partition"`
	Market    string        `json:"market"`
	Cutoff    time.Time     `json:"cutoff"`
	Trade     matching.View `json:"trade"`
}

// AtRisk lists the owned partitions' unmatched trades by cutoff, the
// earliest first, from the at-risk index: only the trades it returns (and,
// with a participant, those it passes over) are read from the table.
func (t *Tables) AtRisk(q AtRiskQuery, partitions []int32) ([]AtRisk, error) {
	c, parts, err := t.owned(partitions)
	if err != nil {
		return nil, err
	}
	var out []AtRisk
	for _, g := range cutoffGroups(c, parts, q.Market) {
		st := parts[g.partition].store
		for _, k := range g.keys {
			if q.Limit > 0 && len(out) >= q.Limit {
				return out, nil
			}
			key, ok := schemas.ParseTradeKey(k)
			if !ok {
				continue
			}
			v, err := st.Get(k)
			if err != nil || v == nil {
				continue
			}
			view, err := matching.ViewOfWith(key, v, c.Tolerances)
			if err != nil || (q.Participant != "" && !partyOf(&view, q.Participant)) {
				continue
			}
			out = append(out, AtRisk{Partition: g.partition, Market: g.market, Cutoff: g.cutoff, Trade: view})
		}
	}
	return out, nil
}

// partyOf: the participant is the trade's Broker or InvMgr, a Custodian its
// messages name, or a sender of one.
func partyOf(v *matching.View, bic string) bool {
	for _, k := range v.Keys {
		if k.Broker == bic || k.InvMgr == bic {
			return true
		}
	}
	return slices.ContainsFunc(v.Messages, func(m matching.MessageView) bool { return m.Sender == bic || m.Custodian == bic })
}
