package gateway

// SetTailLookback sets how far back a new tail starts, for the test's
// duration (0: at the end, so that older positions are read by scan).
func SetTailLookback(n int64) (restore func()) {
	old := tailLookback
	tailLookback = n
	return func() { tailLookback = old }
}
