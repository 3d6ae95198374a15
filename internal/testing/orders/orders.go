// Package orders enumerates the orders of a set of messages for the
// permutation tests: every outcome is a function of the set of messages,
// never of their order, so each rule is run in every order of small
// scenarios (and random orders of large ones).
package orders

// Each calls f with every order of 0..n-1 (n! of them). The slice is
// reused: f must not keep it.
func Each(n int, f func(order []int)) {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	var rec func(k int)
	rec = func(k int) {
		if k == n {
			f(p)
			return
		}
		for i := k; i < n; i++ {
			p[k], p[i] = p[i], p[k]
			rec(k + 1)
			p[k], p[i] = p[i], p[k]
		}
	}
	rec(0)
}
