package classify

import (
	"net/http"
	"strconv"
	"time"
)

// RetryAfterHeader reads a response's hint of when to call again, in
// each form a cloud sends it: x-amz-retry-after (AWS), retry-after-ms and
// x-ms-retry-after-ms (Azure), all three in milliseconds, then Retry-After
// (RFC 9110 section 10.2.3: seconds, or an HTTP date). A date is measured
// from the response's own Date header, which the service's clock wrote as
// it wrote the date, so the hint reads the same on any clock of the
// caller's: a waiter's injected or virtual clock, or one that is off from
// the service's. Only a response without a Date measures it from now,
// when the response came on the caller's clock; a zero now knows no time,
// and such a date is then ignored. A value that does not parse, is
// negative, or names a date not after its reference is ignored (ok is
// false). Put the hint on a [CallError] (or an error's RetryAfter()
// time.Duration method) for [Classify], and so the retry strategies and
// the waiters, to honour it.
func RetryAfterHeader(h http.Header, now time.Time) (d time.Duration, ok bool) {
	for _, k := range []string{"X-Amz-Retry-After", "Retry-After-Ms", "X-Ms-Retry-After-Ms"} {
		if ms, err := strconv.ParseInt(h.Get(k), 10, 64); err == nil && ms >= 0 && ms < 1<<40 {
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
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	if date, err := http.ParseTime(h.Get("Date")); err == nil {
		now = date
	}
	if now.IsZero() || !t.After(now) {
		return 0, false
	}
	return t.Sub(now), true
}
