package refdata

import (
	"embed"
	"io/fs"
	"sync"
)

// The committed default set is Generate(DefaultGenOptions()) written by
// WriteDir; a test fails if the generator and the files ever disagree.
// Regenerate with: go test ./schemas/refdata -run TestDefaultSetMatchesGenerator -update
//
//go:embed default/*.csv
var defaultFS embed.FS

var (
	defaultOnce sync.Once
	defaultSet  *Set
)

// Default is the committed default set, parsed once per process. It is shared
// by every caller, so it must not be modified: Clone it before upserting.
func Default() *Set {
	defaultOnce.Do(func() {
		sub, err := fs.Sub(defaultFS, "default")
		if err == nil {
			defaultSet, err = Load(sub)
		}
		if err != nil {
			panic("refdata: committed default set does not load: " + err.Error())
		}
	})
	return defaultSet
}
