package main

import (
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
		return trust.LoadNamed(*path)
	}
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
