package main

import (
	"github.com/ste-utility/ste/trust"
)

// utilitySecret loads the utility's shared secret: the file given (mounted
// from a Secret in a cluster), else $STE_HOME/utility.secret, created by
// the first process that needs it.
func utilitySecret(path string) (*trust.Secret, error) {
	if path != "" {
		return trust.Load(path)
	}
	return trust.LoadOrCreate(trust.DefaultPath(steHome()))
}
