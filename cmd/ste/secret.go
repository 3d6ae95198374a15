package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/ste-utility/ste/trust"
)

// secretFlag adds --utility-secret: the file of the utility's shared
// secret, which proves the control records its processes write and read
// (exceptions, exception states, registry entries, origin markers; trust).
// Every process of one utility must hold the same one. By default it is
// $STE_HOME/utility.secret, made by the first process that needs it (the
// processes of one machine share it); a file named explicitly must exist.
func secretFlag(fs *flagSet) func() (*trust.Secret, error) {
	path := fs.String("utility-secret", os.Getenv("STE_UTILITY_SECRET"),
		"file of the utility's shared secret, which proves its control records ($STE_UTILITY_SECRET; default $STE_HOME/"+trust.FileName+", created 0600 when missing)")
	return func() (*trust.Secret, error) {
		if *path == "" {
			return trust.LoadOrCreate(trust.DefaultPath(steHome()))
		}
		s, err := trust.Load(*path)
		if !errors.Is(err, trust.ErrPermissions) {
			return s, err
		}
		// A Kubernetes Secret mounted in a pod with an fsGroup is made
		// readable by that group (the pod's own): accepted for a file named
		// explicitly, as long as other users cannot read it.
		fi, serr := os.Stat(*path)
		if serr != nil || fi.Mode().Perm()&0o007 != 0 {
			return nil, err
		}
		b, rerr := os.ReadFile(*path)
		if rerr != nil {
			return nil, fmt.Errorf("utility secret: %w", rerr)
		}
		return trust.New(b)
	}
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
