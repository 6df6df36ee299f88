package gcpwait_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/googleapis/gax-go/v2"
	"github.com/googleapis/gax-go/v2/apierror"
	"google.golang.org/api/googleapi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/waitable/waitable/gcpwait"
	"github.com/waitable/waitable/waiter"
)

// computeStatus stands for computepb.Operation_Status.
type computeStatus int32

func (s computeStatus) String() string { return [...]string{"PENDING", "RUNNING", "DONE"}[s] }

// computeOp has the getters of computepb.Operation that gcpwait reads.
type computeOp struct {
	name     string
	status   computeStatus
	progress int32
	httpCode int32
	httpMsg  string
}

func (o *computeOp) GetName() string               { return o.name }
func (o *computeOp) GetStatus() computeStatus      { return o.status }
func (o *computeOp) GetProgress() int32            { return o.progress }
func (o *computeOp) GetHttpErrorStatusCode() int32 { return o.httpCode }
func (o *computeOp) GetHttpErrorMessage() string   { return o.httpMsg }

// computeGet answers a zone operations client's Get from a script, the
// last answer repeated; a nil answer is a REST error of status code.
type computeGet struct {
	answers []*computeOp
	codes   []int
	calls   int
	retry   []bool // whether each call's options turned gax's retries off
}

func (g *computeGet) get(_ context.Context, name string, opts ...gax.CallOption) (*computeOp, error) {
	g.calls++
	var cs gax.CallSettings
	for _, o := range opts {
		o.Resolve(&cs)
	}
	g.retry = append(g.retry, cs.Retry != nil && cs.Retry() == nil)
	i := min(g.calls, len(g.answers)) - 1
	if g.answers[i] == nil {
		err, _ := apierror.FromError(&googleapi.Error{Code: g.codes[i], Message: "scripted"})
		return nil, err
	}
	op := *g.answers[i]
	op.name = name
	return &op, nil
}

// TestCompute: a compute operation RUNNING, then a 503 of the Get, then
// DONE, succeeds, its progress in the events and each Get made with gax's
// retries off; one DONE with an HTTP error status fails at once with an
// *OperationError over a *googleapi.Error, as compute's own Poll reads it.
func TestCompute(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := &computeGet{
			answers: []*computeOp{{status: 1, progress: 30}, nil, {status: 2, progress: 100}},
			codes:   []int{0, http.StatusServiceUnavailable, 0},
		}
		w, err := gcpwait.NewCompute(g.get)
		if err != nil {
			t.Fatal(err)
		}
		run := w.Start(t.Context(), "operation-123", 10*time.Minute)
		var progress []int32
		for a := range run.Events() {
			if a.Output.Metadata != nil {
				progress = append(progress, a.Output.Metadata.GetProgress())
			}
		}
		if _, err := run.Result(); err != nil {
			t.Fatal(err)
		}
		if want := []int32{30, 100}; !slices.Equal(progress, want) {
			t.Errorf("progress = %v, want %v", progress, want)
		}
		if want := []bool{true, true, true}; !slices.Equal(g.retry, want) {
			t.Errorf("gax retries off, per call = %v, want %v", g.retry, want)
		}

		g = &computeGet{answers: []*computeOp{{status: 2, httpCode: 409, httpMsg: "quota exceeded"}}, codes: []int{0}}
		w, err = gcpwait.NewCompute(g.get)
		if err != nil {
			t.Fatal(err)
		}
		_, err = w.Wait(t.Context(), "operation-124", time.Minute)
		var oe *gcpwait.OperationError
		var ge *googleapi.Error
		if !errors.Is(err, waiter.ErrFailure) || !errors.As(err, &oe) || !errors.As(err, &ge) || ge.Code != 409 {
			t.Fatalf("Wait = %v, want an *OperationError over a 409 *googleapi.Error", err)
		}
		if g.calls != 1 {
			t.Errorf("Get calls = %d, want 1", g.calls)
		}
	})
}

// TestComputeRESTStatuses: a compute operation's Get that answers an HTTP
// 429 or any 5xx is polled again within the budget, and the wait succeeds
// once the operation is DONE; a 400, 401 or 403 ends the wait at once with
// the call's *googleapi.Error.
func TestComputeRESTStatuses(t *testing.T) {
	for _, tc := range []struct {
		code      int
		transient bool
	}{
		{http.StatusTooManyRequests, true},
		{http.StatusInternalServerError, true},
		{http.StatusNotImplemented, true}, // Unimplemented as a code, a 5xx all the same
		{http.StatusBadGateway, true},
		{http.StatusServiceUnavailable, true},
		{http.StatusGatewayTimeout, true},
		{http.StatusBadRequest, false},
		{http.StatusUnauthorized, false},
		{http.StatusForbidden, false},
	} {
		t.Run(strconv.Itoa(tc.code), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				g := &computeGet{
					answers: []*computeOp{nil, nil, {status: 2, progress: 100}},
					codes:   []int{tc.code, tc.code, 0},
				}
				w, err := gcpwait.NewCompute(g.get)
				if err != nil {
					t.Fatal(err)
				}
				_, err = w.Wait(t.Context(), "operation-7", 10*time.Minute)
				if tc.transient {
					if err != nil || g.calls != 3 {
						t.Fatalf("Wait = %v after %d Get calls, want success after two %d answers and 3 calls", err, g.calls, tc.code)
					}
					return
				}
				var ge *googleapi.Error
				var we *waiter.Error
				if !errors.As(err, &we) || we.Failure != waiter.FailureError || !errors.As(err, &ge) || ge.Code != tc.code {
					t.Fatalf("Wait = %v, want a failure with the call's %d *googleapi.Error", err, tc.code)
				}
				if g.calls != 1 {
					t.Errorf("Get calls = %d, want 1", g.calls)
				}
			})
		})
	}
}

// TestComputeRetryInfo: a compute Get answered HTTP 429 with a
// google.rpc.RetryInfo of 45s in its body is polled again no sooner.
func TestComputeRetryInfo(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		body := `{"error":{"code":429,"message":"slow down","status":"RESOURCE_EXHAUSTED","details":[` +
			`{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"45s"}]}}`
		calls := 0
		get := func(_ context.Context, name string, _ ...gax.CallOption) (*computeOp, error) {
			calls++
			if calls == 1 {
				err, _ := apierror.FromError(&googleapi.Error{Code: http.StatusTooManyRequests, Message: "slow down", Body: body})
				return nil, err
			}
			return &computeOp{name: name, status: 2, progress: 100}, nil
		}
		w, err := gcpwait.NewCompute(get)
		if err != nil {
			t.Fatal(err)
		}
		secondPollAfter45s(t, w, "operation-9")
	})
}

// TestComputeNotFound: a compute Get answered 404 right after the
// creation is polled again and counts against the not-found limit
// ("errors of the Get are judged as New judges a poll's").
func TestComputeNotFound(t *testing.T) {
	t.Run("then found", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			g := &computeGet{answers: []*computeOp{nil, nil, {status: 2}}, codes: []int{404, 404, 0}}
			w, err := gcpwait.NewCompute(g.get)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.Wait(t.Context(), "operation-1", 10*time.Minute); err != nil || g.calls != 3 {
				t.Fatalf("Wait = %v after %d Gets, want success after 3", err, g.calls)
			}
		})
	})
	t.Run("never", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			g := &computeGet{answers: []*computeOp{nil}, codes: []int{404}}
			w, err := gcpwait.NewCompute(g.get)
			if err != nil {
				t.Fatal(err)
			}
			_, err = w.Wait(t.Context(), "operation-1", time.Hour)
			var we *waiter.Error
			if !errors.As(err, &we) || we.Failure != waiter.FailureNeverAppeared || we.Attempts != 5 || status.Code(err) != codes.NotFound {
				t.Fatalf("Wait = %v, want FailureNeverAppeared (NotFound) after 5 Gets", err)
			}
		})
	})
}

// TestComputeOperationErrorChain: a compute operation DONE with an
// HTTP error status fails with an *OperationError whose error is "an
// *apierror.APIError over a *googleapi.Error", carrying the message.
func TestComputeOperationErrorChain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := &computeGet{answers: []*computeOp{{status: 2, httpCode: 403, httpMsg: "denied"}}, codes: []int{0}}
		w, err := gcpwait.NewCompute(g.get)
		if err != nil {
			t.Fatal(err)
		}
		st, err := w.Wait(t.Context(), "operation-2", time.Minute)
		var oe *gcpwait.OperationError
		var ae *apierror.APIError
		var ge *googleapi.Error
		if !errors.As(err, &oe) || !errors.As(oe.Err, &ae) || !errors.As(ae, &ge) || ge.Code != 403 || ge.Message != "denied" {
			t.Fatalf("Wait = %v, want an *OperationError over an *apierror.APIError over a 403 *googleapi.Error", err)
		}
		if st.Metadata == nil || st.Metadata.GetHttpErrorStatusCode() != 403 {
			t.Errorf("Status.Metadata = %v, want the operation as the poll found it", st.Metadata)
		}
	})
}
