// Package api holds what an instance's HTTP endpoints answer (/status,
// /trades, /at-risk), apart from the instance itself: a reader of those answers — the
// console — then links no goka, sarama or Pebble.
package api

import (
	"time"

	"github.com/ste-utility/ste/processors/matching"
	"github.com/ste-utility/ste/processors/query"
	"github.com/ste-utility/ste/topics/lag"
)

// Status is what /status answers: who the instance is, what it runs and
// owns, and its last lag sample.
type Status struct {
	ID        string             `json:"id"`
	Namespace string             `json:"namespace"`
	Groups    []string           `json:"groups"`
	Version   string             `json:"version"`
	Ready     bool               `json:"ready"`
	Health    string             `json:"health"`
	Started   time.Time          `json:"started"`
	Assigned  map[string][]int32 `json:"assigned"` // stage -> partitions this instance owns
	Lag       []lag.Partition    `json:"lag"`      // of the partitions it owns
	GroupLag  map[string]int64   `json:"group_lag"`
	LagAt     time.Time          `json:"lag_at"`
}

// TradeAnswer is what /trades answers on the lookup listener
// (instance/lookup): the trades found in the partitions this instance owns,
// each with its partition.
type TradeAnswer struct {
	Instance string       `json:"instance"`
	Owned    []int32      `json:"owned"` // the match partitions it owned when it answered
	Trades   []TradeFound `json:"trades"`
	More     bool         `json:"more,omitempty"` // the limit left trades off
}

// TradeFound is one trade and the match partition holding it.
type TradeFound struct {
	Partition int32         `json:"partition"`
	Trade     matching.View `json:"trade"`
}

// AtRiskAnswer is what /at-risk answers: the unmatched trades of the
// partitions this instance owns, the earliest cutoff first.
type AtRiskAnswer struct {
	Instance string         `json:"instance"`
	Trades   []query.AtRisk `json:"trades"`
}

// QueueAnswer is what /queue answers on the lookup listener: a page of a
// participant's work queue (gateway.md v2 §4c) from the partitions this
// instance owns, each trade with its partition.
type QueueAnswer struct {
	Instance string       `json:"instance"`
	Owned    []int32      `json:"owned"` // the match partitions it owned when it answered
	Trades   []QueueFound `json:"trades"`
}

// QueueFound is one trade of a work queue and the match partition holding it.
type QueueFound struct {
	Partition int32            `json:"partition"`
	Trade     query.QueueTrade `json:"trade"`
}
