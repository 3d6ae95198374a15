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
// never for where that address sends us). It keeps up to IdlePerInstance
// connections open to each instance (net/http's default of 2 made every
// third concurrent question to an instance dial and close one: the gateway
// asks every instance for each page of a work queue).
func HTTPClient(timeout time.Duration) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = IdlePerInstance
	return &http.Client{Timeout: timeout, Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}
}

// IdlePerInstance is how many idle connections HTTPClient keeps to one
// instance.
const IdlePerInstance = 32

// drained reads what is left of an answer's body, up to a few KB, and
// closes it, so that its connection goes back to the pool: a JSON decoder
// stops at the end of the value, before the encoder's newline and the
// chunked body's last chunk, and a body closed unread closes its
// connection (the next question dialled a new one).
func drained(body io.ReadCloser) {
	io.CopyN(io.Discard, body, 4<<10)
	body.Close()
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
