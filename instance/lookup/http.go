package lookup

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// HTTPClient is a client for an instance's endpoints found in the registry:
// it follows no redirect (an entry is believed for its own address only,
// never for where that address sends us).
func HTTPClient(timeout time.Duration) *http.Client {
	return &http.Client{Timeout: timeout, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}
}

// ErrTooLarge: a reply over the size allowed.
var ErrTooLarge = errors.New("reply too large")

// Capped reads at most n bytes of r, then fails with ErrTooLarge instead of
// reading on (a reply of any size would otherwise be held whole).
func Capped(r io.Reader, n int64) io.Reader { return &capped{r: r, left: n, n: n} }

type capped struct {
	r       io.Reader
	left, n int64
}

func (c *capped) Read(p []byte) (int, error) {
	if c.left <= 0 {
		var one [1]byte
		if k, err := c.r.Read(one[:]); k > 0 {
			return 0, fmt.Errorf("%w: over %d bytes", ErrTooLarge, c.n)
		} else if err != nil {
			return 0, err
		}
		return 0, nil
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	k, err := c.r.Read(p)
	c.left -= int64(k)
	return k, err
}
