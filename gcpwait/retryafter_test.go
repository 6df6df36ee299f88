package gcpwait_test

import (
	"context"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/googleapis/gax-go/v2"
	"github.com/googleapis/gax-go/v2/apierror"
	"google.golang.org/api/googleapi"

	"github.com/waitable/waitable/gcpwait"
)

// TestRetryAfterHeaderOfARESTCall: a REST call's 503 or 429 with a
// Retry-After header is polled again no sooner: in seconds, or as an
// HTTP date 40s after the answer's Date, whether the service's clock
// agrees with the bubble's or is an hour ahead of it (the date is read on
// the clock that wrote it).
func TestRetryAfterHeaderOfARESTCall(t *testing.T) {
	for _, c := range []struct {
		name   string
		status int
		header func(service time.Time) http.Header
	}{
		{"seconds", http.StatusServiceUnavailable, func(time.Time) http.Header { return http.Header{"Retry-After": {"40"}} }},
		{"a date", http.StatusServiceUnavailable, dateHeader(0)},
		{"a date, the service's clock an hour ahead", http.StatusTooManyRequests, dateHeader(time.Hour)},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var calls []time.Time
				get := func(_ context.Context, name string, _ ...gax.CallOption) (*computeOp, error) {
					calls = append(calls, time.Now())
					if len(calls) == 1 {
						err, _ := apierror.FromError(&googleapi.Error{Code: c.status, Message: "busy", Header: c.header(time.Now())})
						return nil, err
					}
					return &computeOp{name: name, status: 2, progress: 100}, nil
				}
				w, err := gcpwait.NewCompute(get)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := w.Wait(t.Context(), "operation-1", 10*time.Minute); err != nil {
					t.Fatalf("Wait = %v, want success", err)
				}
				if len(calls) != 2 || calls[1].Sub(calls[0]) != 40*time.Second {
					t.Fatalf("Gets at %v, want two, 40s apart", calls)
				}
			})
		})
	}
}

// dateHeader is an answer's Date and Retry-After 40s later, on a service
// clock skew ahead of now.
func dateHeader(skew time.Duration) func(now time.Time) http.Header {
	return func(now time.Time) http.Header {
		service := now.Add(skew)
		return http.Header{"Date": {service.Format(http.TimeFormat)}, "Retry-After": {service.Add(40 * time.Second).Format(http.TimeFormat)}}
	}
}
