package gcpwait_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/googleapis/gax-go/v2"
	"github.com/googleapis/gax-go/v2/apierror"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/waitable/waitable/gcpwait"
	"github.com/waitable/waitable/waiter"
)

// TestSeveralNotDone: an operation answers "not done" three times, then
// done: the wait succeeds on the fourth poll, one GetOperation each, with
// the response, and each attempt's event carries the progress.
func TestSeveralNotDone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &ops{}
		s.add("operations/a", &job{answers: []answer{{progress: 10}, {progress: 40}, {progress: 70}, {done: true}}})
		c := client{serve(t, s)}
		w, err := gcpwait.New(c.JobOperation)
		if err != nil {
			t.Fatal(err)
		}
		run := w.Start(t.Context(), "operations/a", 10*time.Minute)
		var progress []int32
		for a := range run.Events() {
			if m := a.Output.Metadata; m != nil {
				progress = append(progress, m.GetValue())
			}
		}
		st, err := run.Result()
		if err != nil {
			t.Fatal(err)
		}
		if got, want := st.Response.GetValue(), "result of operations/a"; got != want || !st.Done {
			t.Errorf("Response = %q (done %t), want %q", got, st.Done, want)
		}
		if got, want := s.gets("operations/a"), 4; got != want {
			t.Errorf("GetOperation calls = %d, want %d", got, want)
		}
		if want := []int32{10, 40, 70, 100}; !slices.Equal(progress, want) {
			t.Errorf("progress in the events = %v, want %v", progress, want)
		}
	})
}

// TestOperationFailedEndsAtOnce: an operation done with an error fails
// the wait on that poll with an *OperationError holding the operation's
// own error (its code), matched by waiter.ErrFailure.
func TestOperationFailedEndsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &ops{}
		s.add("operations/f", &job{answers: []answer{{}, {done: true, failed: true}}})
		w, err := gcpwait.New(client{serve(t, s)}.JobOperation)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		st, err := w.Wait(t.Context(), "operations/f", time.Hour)
		var oe *gcpwait.OperationError
		if !errors.Is(err, waiter.ErrFailure) || !errors.As(err, &oe) || oe.Name != "operations/f" {
			t.Fatalf("Wait = %v, want an *OperationError for operations/f with waiter.ErrFailure", err)
		}
		if got := status.Code(oe.Err); got != codes.FailedPrecondition {
			t.Errorf("the operation's error code = %v, want FailedPrecondition", got)
		}
		if !st.Done || st.Err == nil {
			t.Errorf("Status = %+v, want done with the operation's error", st)
		}
		if got := s.gets("operations/f"); got != 2 {
			t.Errorf("GetOperation calls = %d, want 2: the wait ends on the failed answer", got)
		}
		if took := time.Since(start); took > 2*time.Second {
			t.Errorf("the wait took %v, want one delay at most", took)
		}
	})
}

// TestTransientCodesRetried: Unavailable, ResourceExhausted,
// DeadlineExceeded and Internal (the service's 500) answers of
// GetOperation are polled again within the budget, one RPC a poll (gax's
// own retries are off); the wait succeeds.
func TestTransientCodesRetried(t *testing.T) {
	for _, code := range []codes.Code{codes.Unavailable, codes.ResourceExhausted, codes.DeadlineExceeded, codes.Internal} {
		t.Run(code.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := &ops{}
				s.add("operations/t", &job{answers: []answer{{code: code}, {code: code}, {code: code}, {done: true}}})
				w, err := gcpwait.New(client{serve(t, s)}.JobOperation)
				if err != nil {
					t.Fatal(err)
				}
				run := w.Start(t.Context(), "operations/t", 10*time.Minute)
				var transient int
				for a := range run.Events() {
					if a.Transient {
						transient++
					}
				}
				if _, err := run.Result(); err != nil {
					t.Fatalf("Wait = %v, want success after three %v", err, code)
				}
				if transient != 3 || s.gets("operations/t") != 4 {
					t.Errorf("%d polls retried as transient, %d GetOperation calls; want 3 and 4: one RPC a poll",
						transient, s.gets("operations/t"))
				}
			})
		})
	}
}

// secondPollAfter45s waits for name with w and checks that it succeeds
// after two polls, the second 45s or more after the first: the service's
// RetryInfo of 45s, never undercut by the schedule's delay of about a
// second.
func secondPollAfter45s[O any](t *testing.T, w *waiter.Waiter[string, O], name string) {
	t.Helper()
	run := w.Start(t.Context(), name, 10*time.Minute)
	var starts []time.Time
	for a := range run.Events() {
		starts = append(starts, a.Start)
	}
	if _, err := run.Result(); err != nil {
		t.Fatal(err)
	}
	if len(starts) != 2 || starts[1].Sub(starts[0]) < 45*time.Second {
		t.Errorf("polls at %v, want two, 45s or more apart", starts)
	}
}

// TestRetryInfoNeverUndercut: a ResourceExhausted whose RetryInfo asks
// for 45s is polled again no sooner, though the schedule's delay is
// about a second.
func TestRetryInfoNeverUndercut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &ops{}
		s.add("operations/busy", &job{answers: []answer{{code: codes.ResourceExhausted, retry: 45 * time.Second}, {done: true}}})
		w, err := gcpwait.New(client{serve(t, s)}.JobOperation)
		if err != nil {
			t.Fatal(err)
		}
		secondPollAfter45s(t, w, "operations/busy")
	})
}

// TestOtherCodesEndTheWait: a code that is not transient (PermissionDenied,
// Unauthenticated, InvalidArgument, Unknown) ends the wait at once with the
// call's error.
func TestOtherCodesEndTheWait(t *testing.T) {
	for _, code := range []codes.Code{codes.PermissionDenied, codes.Unauthenticated, codes.InvalidArgument, codes.Unknown} {
		t.Run(code.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := &ops{}
				s.add("operations/x", &job{answers: []answer{{code: code}, {done: true}}})
				w, err := gcpwait.New(client{serve(t, s)}.JobOperation)
				if err != nil {
					t.Fatal(err)
				}
				_, err = w.Wait(t.Context(), "operations/x", 10*time.Minute)
				var we *waiter.Error
				if !errors.As(err, &we) || we.Failure != waiter.FailureError || status.Code(err) != code {
					t.Fatalf("Wait = %v, want a failure with the call's %v", err, code)
				}
				if got := s.gets("operations/x"); got != 1 {
					t.Errorf("GetOperation calls = %d, want 1", got)
				}
			})
		})
	}
}

// TestNotFoundAfterCreation: an operation that answers NotFound right
// after its creation is polled again and found; one that never appears
// ends the wait after the not-found limit (five by default, or
// waiter.WithNotFoundLimit's), as FailureNeverAppeared.
func TestNotFoundAfterCreation(t *testing.T) {
	t.Run("then found", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := &ops{}
			s.add("operations/n", &job{answers: []answer{{code: codes.NotFound}, {code: codes.NotFound}, {}, {done: true}}})
			w, err := gcpwait.New(client{serve(t, s)}.JobOperation)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.Wait(t.Context(), "operations/n", 10*time.Minute); err != nil {
				t.Fatalf("Wait = %v, want success", err)
			}
			if got := s.gets("operations/n"); got != 4 {
				t.Errorf("GetOperation calls = %d, want 4", got)
			}
		})
	})
	for _, tc := range []struct {
		opts []waiter.Option
		want int
	}{{nil, 5}, {[]waiter.Option{waiter.WithNotFoundLimit(2)}, 2}} {
		t.Run(fmt.Sprintf("never, limit %d", tc.want), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := &ops{}
				s.add("operations/other", &job{})
				w, err := gcpwait.New(client{serve(t, s)}.JobOperation, tc.opts...)
				if err != nil {
					t.Fatal(err)
				}
				_, err = w.Wait(t.Context(), "operations/never", time.Hour)
				var we *waiter.Error
				if !errors.As(err, &we) || we.Failure != waiter.FailureNeverAppeared || we.Attempts != tc.want {
					t.Fatalf("Wait = %v, want FailureNeverAppeared after %d polls", err, tc.want)
				}
				if status.Code(err) != codes.NotFound {
					t.Errorf("status.Code(err) = %v, want NotFound: the error unwraps to the call's", status.Code(err))
				}
			})
		})
	}
}

// TestOperationThatDisappeared: an operation seen, then answered
// NotFound to the limit, disappeared: the wait says so, not that it never
// appeared.
func TestOperationThatDisappeared(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &ops{}
		s.add("operations/gone", &job{answers: []answer{{progress: 10}, {code: codes.NotFound}}})
		w, err := gcpwait.New(client{serve(t, s)}.JobOperation)
		if err != nil {
			t.Fatal(err)
		}
		_, err = w.Wait(t.Context(), "operations/gone", time.Hour)
		var we *waiter.Error
		if !errors.As(err, &we) || we.Failure != waiter.FailureDisappeared || !strings.Contains(err.Error(), "disappeared") || strings.Contains(err.Error(), "never appeared") {
			t.Fatalf("Wait = %v, want FailureDisappeared, saying it disappeared", err)
		}
	})
}

// TestCancelOnGiveUp: a wait that times out cancels its operation
// (CancelOperation); one its caller cancels leaves it running, for a
// process that carries the wait on from its checkpoint.
func TestCancelOnGiveUp(t *testing.T) {
	for _, tc := range []struct {
		name    string
		timeout bool
	}{{"timeout", true}, {"caller cancels", false}} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := &ops{}
				s.add("operations/slow", &job{answers: []answer{{progress: 1}}})
				lro := serve(t, s)
				w, err := gcpwait.New(client{lro}.JobOperation, gcpwait.WithCancelOnGiveUp(lro, time.Second))
				if err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				if !tc.timeout {
					time.AfterFunc(30*time.Second, cancel)
				}
				_, err = w.Wait(ctx, "operations/slow", time.Minute)
				switch {
				case tc.timeout && !errors.Is(err, waiter.ErrTimeout):
					t.Fatalf("Wait = %v, want a timeout", err)
				case !tc.timeout && !errors.Is(err, context.Canceled):
					t.Fatalf("Wait = %v, want cancelled", err)
				}
				if got := s.cancelled("operations/slow"); got != tc.timeout {
					t.Errorf("CancelOperation called: %t, want %t", got, tc.timeout)
				}
			})
		})
	}
}

// TestEmptyOperation: NewEmpty waits for a wrapper whose Poll returns only
// an error (a response of google.protobuf.Empty), with its metadata.
func TestEmptyOperation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &ops{}
		s.add("operations/e", &job{answers: []answer{{progress: 50}, {done: true}}})
		w, err := gcpwait.NewEmpty(client{serve(t, s)}.EmptyJobOperation)
		if err != nil {
			t.Fatal(err)
		}
		st, err := w.Wait(t.Context(), "operations/e", time.Minute)
		if err != nil || !st.Done || st.Metadata.GetValue() != 100 {
			t.Fatalf("Wait = %+v, %v; want done at 100%%", st, err)
		}
	})
}

// TestResumeFromCheckpoint: a wait saved after its second poll is carried
// on by a new waiter on a new connection (another process), from the
// operation's name alone: its next poll is the wait's third.
func TestResumeFromCheckpoint(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &ops{}
		s.add("operations/r", &job{answers: []answer{{progress: 10}, {progress: 20}, {progress: 30}, {done: true}}})
		w, err := gcpwait.New(client{serve(t, s)}.JobOperation)
		if err != nil {
			t.Fatal(err)
		}
		run := w.Start(t.Context(), "operations/r", 10*time.Minute)
		var saved []byte
		for a := range run.Events() {
			if a.Checkpoint.Attempts == 2 {
				if saved, err = json.Marshal(a.Checkpoint); err != nil {
					t.Fatal(err)
				}
				run.Cancel()
			}
		}
		if _, err := run.Result(); !errors.Is(err, context.Canceled) {
			t.Fatalf("the first process's wait = %v, want cancelled", err)
		}

		cp, err := waiter.ParseCheckpoint(saved)
		if err != nil {
			t.Fatal(err)
		}
		w2, err := gcpwait.New(client{serve(t, s)}.JobOperation)
		if err != nil {
			t.Fatal(err)
		}
		run2 := w2.StartFrom(t.Context(), "operations/r", cp)
		var numbers []int
		for a := range run2.Events() {
			numbers = append(numbers, a.Checkpoint.Attempts)
		}
		if _, err := run2.Result(); err != nil {
			t.Fatal(err)
		}
		if want := []int{3, 4}; !slices.Equal(numbers, want) {
			t.Errorf("the resumed wait's attempts = %v, want %v", numbers, want)
		}
		if got := s.gets("operations/r"); got != 4 {
			t.Errorf("GetOperation calls = %d, want 4", got)
		}
	})
}

// TestConstructionErrors: a nil function, a nil Canceller and a bad
// option of package waiter are errors at construction.
func TestConstructionErrors(t *testing.T) {
	var nilResume func(string) *JobOperation
	if _, err := gcpwait.New(nilResume); err == nil {
		t.Error("New(nil) = nil error")
	}
	var nilEmpty func(string) *EmptyJobOperation
	if _, err := gcpwait.NewEmpty(nilEmpty); err == nil {
		t.Error("NewEmpty(nil) = nil error")
	}
	var nilGet func(context.Context, string, ...gax.CallOption) (*computeOp, error)
	if _, err := gcpwait.NewCompute(nilGet); err == nil {
		t.Error("NewCompute(nil) = nil error")
	}
	c := client{}
	if _, err := gcpwait.New(c.JobOperation, gcpwait.WithCancelOnGiveUp(nil, 0)); err == nil {
		t.Error("WithCancelOnGiveUp(nil) = nil error")
	}
	if _, err := gcpwait.New(c.JobOperation, waiter.WithNotFoundLimit(0)); err == nil {
		t.Error("WithNotFoundLimit(0) = nil error")
	}
}

// TestNilOptionIsAnError: a nil waiter.Option among the options is an
// error at construction, not a panic.
func TestNilOptionIsAnError(t *testing.T) {
	_, err := gcpwait.New(client{}.JobOperation, nil)
	if !errors.Is(err, waiter.ErrInvalidOption) || !strings.Contains(err.Error(), "an option is nil") {
		t.Errorf("New(resume, nil option) = %v, want an invalid option saying an option is nil", err)
	}
}

// TestOperationErrorChain: a failed operation's *OperationError
// holds a *apierror.APIError over the operation's google.rpc.Status (as
// the generated wrappers' Poll returns it), which errors.As and
// status.Code find through the wait's error; its message is "gcpwait:
// operation NAME failed: ERR".
func TestOperationErrorChain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &ops{}
		s.add("operations/f", &job{answers: []answer{{done: true, failed: true}}})
		w, err := gcpwait.New(client{serve(t, s)}.JobOperation)
		if err != nil {
			t.Fatal(err)
		}
		_, err = w.Wait(t.Context(), "operations/f", time.Minute)
		var oe *gcpwait.OperationError
		var ae *apierror.APIError
		if !errors.As(err, &oe) || !errors.As(err, &ae) || ae.GRPCStatus().Code() != codes.FailedPrecondition {
			t.Fatalf("Wait = %v, want an *OperationError over an *apierror.APIError (FailedPrecondition)", err)
		}
		if status.Code(err) != codes.FailedPrecondition {
			t.Errorf("status.Code(err) = %v, want FailedPrecondition", status.Code(err))
		}
		if want := "gcpwait: operation operations/f failed: " + oe.Err.Error(); oe.Error() != want {
			t.Errorf("Error() = %q, want %q", oe.Error(), want)
		}
	})
}

// TestNewEmpty: NewEmpty, "New for the operations whose response is
// google.protobuf.Empty", polls once per RPC with gax's retries off
// (Unavailable retried by the waiter), and fails at once with an
// *OperationError when the operation failed.
func TestNewEmpty(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &ops{}
		s.add("operations/u", &job{answers: []answer{{code: codes.Unavailable}, {code: codes.Unavailable}, {done: true}}})
		s.add("operations/f", &job{answers: []answer{{}, {done: true, failed: true}}})
		w, err := gcpwait.NewEmpty(client{serve(t, s)}.EmptyJobOperation)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Wait(t.Context(), "operations/u", 10*time.Minute); err != nil {
			t.Fatalf("Wait = %v, want success", err)
		}
		if got := s.gets("operations/u"); got != 3 {
			t.Errorf("GetOperation calls = %d, want 3: one RPC a poll", got)
		}
		_, err = w.Wait(t.Context(), "operations/f", 10*time.Minute)
		var oe *gcpwait.OperationError
		if !errors.Is(err, waiter.ErrFailure) || !errors.As(err, &oe) || status.Code(oe.Err) != codes.FailedPrecondition {
			t.Fatalf("Wait = %v, want an *OperationError (FailedPrecondition)", err)
		}
		if got := s.gets("operations/f"); got != 2 {
			t.Errorf("GetOperation calls = %d, want 2", got)
		}
	})
}

// TestWaiterNamedAfterTheWrapper: "The waiter is named after the wrapper's type
// (CreateDatabase for a *CreateDatabaseOperation)".
func TestWaiterNamedAfterTheWrapper(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &ops{}
		c := client{serve(t, s)}
		w, err := gcpwait.New(c.JobOperation, waiter.WithNotFoundLimit(1))
		if err != nil {
			t.Fatal(err)
		}
		_, err = w.Wait(t.Context(), "operations/none", time.Minute)
		var we *waiter.Error
		if !errors.As(err, &we) || we.Waiter != "Job" {
			t.Errorf("Wait = %v, want an error of the waiter Job", err)
		}
		e, err := gcpwait.NewEmpty(c.EmptyJobOperation, waiter.WithNotFoundLimit(1))
		if err != nil {
			t.Fatal(err)
		}
		_, err = e.Wait(t.Context(), "operations/none", time.Minute)
		if !errors.As(err, &we) || we.Waiter != "EmptyJob" {
			t.Errorf("Wait = %v, want an error of the waiter EmptyJob", err)
		}
	})
}

// TestDefaultDelays: by default the waiter "polls from 1s to 60s
// apart, as longrunning's Operation.Wait does, with jitter".
func TestDefaultDelays(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &ops{}
		s.add("operations/long", &job{answers: []answer{{progress: 1}}})
		w, err := gcpwait.New(client{serve(t, s)}.JobOperation)
		if err != nil {
			t.Fatal(err)
		}
		begin := time.Now()
		run := w.Start(t.Context(), "operations/long", 2*time.Hour)
		var starts []time.Time
		for a := range run.Events() {
			starts = append(starts, a.Start)
			if len(starts) == 40 {
				run.Cancel()
			}
		}
		run.Result()
		if len(starts) != 40 || !starts[0].Equal(begin) {
			t.Fatalf("%d polls, the first at %v; want 40, the first at once", len(starts), starts[0].Sub(begin))
		}
		var longest time.Duration
		for i := 1; i < len(starts); i++ {
			gap := starts[i].Sub(starts[i-1])
			if gap < time.Second || gap > time.Minute {
				t.Errorf("poll %d came %v after the one before, want 1s to 60s", i+1, gap)
			}
			longest = max(longest, gap)
		}
		if longest < 30*time.Second {
			t.Errorf("the longest delay in 40 polls is %v, want the schedule to grow towards 60s", longest)
		}
	})
}

// strMetaOperation is a JobOperation whose metadata type is not the one
// the operation carries: its Metadata fails to decode.
type strMetaOperation struct{ *JobOperation }

func (op strMetaOperation) Metadata() (*wrapperspb.StringValue, error) {
	var m wrapperspb.StringValue
	if err := op.lro.Metadata(&m); err != nil {
		return nil, err
	}
	return &m, nil
}

// TestMetadataThatDoesNotDecode: a metadata that does not decode as
// an M leaves Status.Metadata zero and the wait goes on ("none that
// decodes as an M").
func TestMetadataThatDoesNotDecode(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &ops{}
		s.add("operations/m", &job{answers: []answer{{progress: 10}, {done: true}}})
		c := client{serve(t, s)}
		w, err := gcpwait.New(func(name string) strMetaOperation { return strMetaOperation{c.JobOperation(name)} })
		if err != nil {
			t.Fatal(err)
		}
		run := w.Start(t.Context(), "operations/m", 10*time.Minute)
		n := 0
		for a := range run.Events() {
			n++
			if a.Output.Metadata != nil {
				t.Errorf("poll %d: Metadata = %v, want nil", n, a.Output.Metadata)
			}
		}
		st, err := run.Result()
		if err != nil || n != 2 || st.Response.GetValue() != "result of operations/m" {
			t.Fatalf("Wait = %+v, %v after %d polls; want the response after 2", st, err, n)
		}
	})
}

// rawOperation is a wrapper whose Poll returns its call's error as a
// plain gRPC status error (not an *apierror.APIError): first a
// ResourceExhausted with RetryInfo, then done.
type rawOperation struct {
	polls *int
	retry time.Duration
	done  bool
}

func (op *rawOperation) Poll(context.Context, ...gax.CallOption) (*wrapperspb.StringValue, error) {
	*op.polls++
	if *op.polls == 1 {
		st, _ := status.New(codes.ResourceExhausted, "slow down").
			WithDetails(&errdetails.RetryInfo{RetryDelay: durationpb.New(op.retry)})
		return nil, st.Err()
	}
	op.done = true
	return wrapperspb.String("ok"), nil
}
func (op *rawOperation) Done() bool                                { return op.done }
func (op *rawOperation) Metadata() (*wrapperspb.Int32Value, error) { return nil, nil }
func (op *rawOperation) Name() string                              { return "operations/raw" }

// TestRetryInfoOfAPlainStatus: "never sooner than the service's
// RetryInfo" holds for a poll whose error is a plain gRPC status error
// (a wrapper or a get function that does not go through gax).
func TestRetryInfoOfAPlainStatus(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		polls := 0
		w, err := gcpwait.New(func(string) *rawOperation { return &rawOperation{polls: &polls, retry: 45 * time.Second} })
		if err != nil {
			t.Fatal(err)
		}
		secondPollAfter45s(t, w, "operations/raw")
	})
}
