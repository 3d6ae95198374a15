package refdata

import (
	"sync/atomic"

	"github.com/ste-utility/ste/schemas/decimal"
)

// Current is the Set a process has read so far from <ns>.refdata, replaced
// whole on every update (the copy-on-write of the package comment): readers
// on many goroutines see one version or the next, never a Set being written.
// The zero value holds no Set, and answers as an empty one.
type Current struct{ p atomic.Pointer[Set] }

// Store publishes s; s must not be modified afterwards.
func (c *Current) Store(s *Set) { c.p.Store(s) }

// Load returns the published Set, nil before the first Store.
func (c *Current) Load() *Set { return c.p.Load() }

// Tolerance is Set.Tolerance on the published Set (0 before the first Store),
// so matching reads the tolerances the instance has read by then.
func (c *Current) Tolerance(criterion int, ccy string) decimal.Dec {
	s := c.p.Load()
	if s == nil {
		return decimal.Dec{}
	}
	return s.Tolerance(criterion, ccy)
}

// AffirmationMode is Set.AffirmationMode on the published Set (MANUAL before
// the first Store), so the utility decides whether to affirm, and validation
// whether the utility's AFF is authorised, by the mode the instance has read
// by then (messages.md §8).
func (c *Current) AffirmationMode(invmgr string) AffirmMode {
	return c.p.Load().AffirmationMode(invmgr)
}

// AutoAffirms is Set.AutoAffirms on the published Set.
func (c *Current) AutoAffirms(invmgr string) bool { return c.AffirmationMode(invmgr) == AffirmAuto }
