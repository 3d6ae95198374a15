package exceptions

import (
	"errors"
	"strings"

	"github.com/ste-utility/ste/when"
)

// FilterText is a filter as an operator types it: the flags of ste
// exceptions and the console's form read through this one parser.
type FilterText struct {
	Since, Until, Sender, Reason, MsgId, State string
}

// FilterError names the field of a FilterText that does not parse.
type FilterError struct {
	Field, Value string // "since", "until" or "state", and what was typed
	Err          error
}

func (e *FilterError) Error() string { return e.Field + ": " + e.Err.Error() }
func (e *FilterError) Unwrap() error { return e.Err }

// ErrState: a state that is none of the four (or all).
var ErrState = errors.New("want open, retried, resolved, archived or all")

// Parse reads the filter: times as package when reads them, the state
// named (all: every one), or def when none is named ("" for every state).
func (f FilterText) Parse(def State) (Filter, error) {
	var flt Filter
	var err error
	if flt.Since, err = when.Time(f.Since); err != nil {
		return flt, &FilterError{"since", f.Since, err}
	}
	if flt.Until, err = when.Time(f.Until); err != nil {
		return flt, &FilterError{"until", f.Until, err}
	}
	flt.Sender, flt.Reason, flt.MsgId = strings.TrimSpace(f.Sender), strings.TrimSpace(f.Reason), strings.TrimSpace(f.MsgId)
	switch state := strings.TrimSpace(f.State); state {
	case "all":
	case "":
		if def != "" {
			flt.States = []State{def}
		}
	default:
		st, ok := ParseState(state)
		if !ok {
			return flt, &FilterError{"state", f.State, ErrState}
		}
		flt.States = []State{st}
	}
	return flt, nil
}
