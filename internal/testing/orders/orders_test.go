package orders

import (
	"fmt"
	"testing"
)

// Each gives every order once: n! distinct permutations of 0..n-1.
func TestEachGivesEveryOrderOnce(t *testing.T) {
	for n, want := range []int{1, 1, 2, 6, 24, 120} {
		seen := map[string]bool{}
		Each(n, func(o []int) {
			in := make([]bool, n)
			for _, i := range o {
				if i < 0 || i >= n || in[i] {
					t.Fatalf("n=%d: %v is not an order", n, o)
				}
				in[i] = true
			}
			seen[fmt.Sprint(o)] = true
		})
		if len(seen) != want {
			t.Fatalf("n=%d: %d orders, want %d", n, len(seen), want)
		}
	}
}
