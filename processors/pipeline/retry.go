package pipeline

import (
	"github.com/lovoo/goka"

	"github.com/ste-utility/ste/schemas"
)

// retryHeaders reads an operator's retry from an inbound record's headers
// (docs/spec/messages.md §7): the exception it retries and who asked. They are cut
// as echoed values are: anyone who can write to inbound can set a header,
// and the exception and audit records repeat them.
func retryHeaders(ctx goka.Context) (retryOf, by string) {
	h := ctx.Headers()
	if len(h) == 0 {
		return "", ""
	}
	return schemas.Echo(string(h[schemas.RetryOfHeader])), schemas.Echo(string(h[schemas.RetryByHeader]))
}
