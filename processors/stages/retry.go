package stages

import "github.com/ste-utility/ste/schemas"

// retryOf reads an operator's retry from an inbound record's headers
// (docs/spec/messages.md §7): the exception it retries and who asked. They
// are cut as echoed values are: anyone who can write to inbound can set a
// header, and the exception and audit records repeat them.
func retryOf(h map[string][]byte) (retryOf, by string) {
	if len(h) == 0 {
		return "", ""
	}
	return schemas.Echo(string(h[schemas.RetryOfHeader])), schemas.Echo(string(h[schemas.RetryByHeader]))
}
