package classify

import (
	"net/http"
	"strconv"
	"time"
)

// RetryAfterHeader reads a response's hint of when to call again:
// x-amz-retry-after (milliseconds, as AWS services send it), then
// Retry-After (seconds, or an HTTP date, RFC 9110 section 10.2.3),
// measured from now. A value that does not parse, is negative, or names
// a date not after now is ignored (ok is false). An error that carries
// the hint through a RetryAfter() time.Duration method is honoured by
// [Classify] and so by the retry strategies and waiters.
func RetryAfterHeader(h http.Header, now time.Time) (d time.Duration, ok bool) {
	if v := h.Get("x-amz-retry-after"); v != "" {
		if ms, err := strconv.ParseInt(v, 10, 64); err == nil && ms >= 0 && ms < 1<<40 {
			return time.Duration(ms) * time.Millisecond, true
		}
	}
	v := h.Get("Retry-After")
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseInt(v, 10, 64); err == nil && s >= 0 && s < 1<<30 {
		return time.Duration(s) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now), true
	}
	return 0, false
}
