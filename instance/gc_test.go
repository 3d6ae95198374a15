package instance

import (
	"os"
	"path/filepath"
	"testing"
)

func TestCgroupLimit(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(s), 0o644)
		return p
	}
	v2max, v2set := write("v2max", "max\n"), write("v2set", "4294967296\n")
	v1unlimited, v1set := write("v1u", "9223372036854771712\n"), write("v1set", "1073741824\n")
	missing := filepath.Join(dir, "missing")
	for _, c := range []struct {
		files []string
		want  int64
	}{
		{[]string{v2set, v1set}, 4 << 30},
		{[]string{v2max, v1set}, 1 << 30},
		{[]string{missing, v1unlimited}, 0},
		{[]string{missing, missing}, 0},
	} {
		if got := cgroupLimit(c.files); got != c.want {
			t.Errorf("cgroupLimit(%v) = %d, want %d", c.files, got, c.want)
		}
	}
}
