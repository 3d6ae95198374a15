package wire

import (
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
)

// Exception is a ClickHouse-style error: a numeric code (the server's
// ErrorCodes) and the message text. The endpoint sends it the way the real
// server does — a non-200 status, an X-ClickHouse-Exception-Code header and a
// "Code: N. DB::Exception: ..." body — because that is what makes
// clickhouse-go return a typed *clickhouse.Exception.
type Exception struct {
	Code    int
	Message string // without the "Code: N. DB::Exception: " prefix
}

// Error codes the endpoint raises itself (values from ClickHouse's
// src/Common/ErrorCodes.cpp, so clients can branch on them).
const (
	CodeCannotParseInput = 27
	CodeBadArguments     = 36
	CodeNotImplemented   = 48
	CodeSyntaxError      = 62
	CodeUnknownFormat    = 73
	CodeUnknownSetting   = 115
	CodeNetworkError     = 210
	CodeAborted          = 236
	CodeCannotDecompress = 271
	CodeQueryTooLarge    = 393
	CodeSessionNotFound  = 372
	CodeSessionLocked    = 373
	CodeAccessDenied     = 497
	CodeAuthFailed       = 516
	CodeStdException     = 1001
)

// Errorf builds an Exception with the given code.
func Errorf(code int, format string, args ...any) *Exception {
	return &Exception{Code: code, Message: fmt.Sprintf(format, args...)}
}

func (e *Exception) Error() string { return e.Text() }

// Text is the exception as ClickHouse prints it.
func (e *Exception) Text() string {
	return "Code: " + strconv.Itoa(e.Code) + ". DB::Exception: " + e.Message
}

var codePrefix = regexp.MustCompile(`^\s*Code:\s*(\d+)\.\s*(?:DB::Exception:\s*)?`)

// FromEngine turns an error string from chDB into an Exception. chDB reports
// errors exactly as clickhouse-local does ("Code: 60. DB::Exception: ...");
// anything without that prefix (a failure of the library glue itself) gets
// code 1001, STD_EXCEPTION.
func FromEngine(msg string) *Exception {
	msg = strings.TrimSpace(msg)
	if m := codePrefix.FindStringSubmatch(msg); m != nil {
		if code, err := strconv.Atoi(m[1]); err == nil && code > 0 {
			return &Exception{Code: code, Message: msg[len(m[0]):]}
		}
	}
	return &Exception{Code: CodeStdException, Message: msg}
}

// HTTPStatus maps an exception code to the status ClickHouse's HTTP handler
// uses for it (a subset of exceptionCodeToHTTPStatus in HTTPHandler.cpp).
// clickhouse-go treats every non-200 the same; the mapping is for curl users
// and logs.
func HTTPStatus(code int) int {
	switch code {
	case 516, 192, 193, 194, 195: // authentication failures
		return http.StatusUnauthorized
	case 164, 291, 497: // READONLY, DATABASE_ACCESS_DENIED, ACCESS_DENIED
		return http.StatusForbidden
	case 6, 25, 26, 27, 32, 38, 41, 53, 62, 69, 72, 117, 130, 167, 168, 169, 201, 252, CodeBadArguments,
		CodeCannotDecompress, CodeQueryTooLarge:
		return http.StatusBadRequest
	case 46, 47, 50, 56, 60, 63, 73, 81, 115, 336, 340, 456:
		return http.StatusNotFound
	case 159, 209: // TIMEOUT_EXCEEDED, SOCKET_TIMEOUT
		return http.StatusGatewayTimeout
	case CodeNotImplemented:
		return http.StatusNotImplemented
	case CodeAborted:
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}
