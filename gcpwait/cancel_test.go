package gcpwait_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	lroauto "cloud.google.com/go/longrunning/autogen"
	"cloud.google.com/go/longrunning/autogen/longrunningpb"
	"github.com/googleapis/gax-go/v2"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/waitable/waitable/gcpwait"
	"github.com/waitable/waitable/waiter"
)

// recordingCanceller is a Canceller that records each CancelOperation: the
// name, how long its context had left, and whether it had ended.
type recordingCanceller struct {
	mu    sync.Mutex
	names []string
	left  []time.Duration
	ended []bool
	err   error
}

func (c *recordingCanceller) CancelOperation(ctx context.Context, req *longrunningpb.CancelOperationRequest, _ ...gax.CallOption) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.names = append(c.names, req.GetName())
	left := time.Duration(-1)
	if d, ok := ctx.Deadline(); ok {
		left = time.Until(d)
	}
	c.left = append(c.left, left)
	c.ended = append(c.ended, ctx.Err() != nil)
	return c.err
}

// TestCancelOnGiveUpOnlyOnTimeout: WithCancelOnGiveUp cancels the
// operation only when the wait times out: not when it succeeds, not when
// the operation failed, not when a call error ends it, not when the
// operation never appeared, not when WithMaxPolls ends it.
func TestCancelOnGiveUpOnlyOnTimeout(t *testing.T) {
	for _, tc := range []struct {
		name    string
		answers []answer
		opts    []waiter.Option
		in      string
	}{
		{"success", []answer{{}, {done: true}}, nil, "operations/c"},
		{"operation failed", []answer{{}, {done: true, failed: true}}, nil, "operations/c"},
		{"PermissionDenied", []answer{{code: codes.PermissionDenied}}, nil, "operations/c"},
		{"never appeared", nil, nil, "operations/missing"},
		{"max polls", []answer{{progress: 1}}, []waiter.Option{waiter.WithMaxPolls(2)}, "operations/c"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := &ops{}
				s.add("operations/c", &job{answers: tc.answers})
				cc := &recordingCanceller{}
				opts := append([]waiter.Option{gcpwait.WithCancelOnGiveUp(cc, 0)}, tc.opts...)
				w, err := gcpwait.New(client{serve(t, s)}.JobOperation, opts...)
				if err != nil {
					t.Fatal(err)
				}
				_, err = w.Wait(t.Context(), tc.in, 10*time.Minute)
				if errors.Is(err, waiter.ErrTimeout) {
					t.Fatalf("Wait = %v, want no timeout in this scenario", err)
				}
				if len(cc.names) != 0 {
					t.Errorf("CancelOperation called for %v after Wait = %v, want no call", cc.names, err)
				}
			})
		})
	}
}

// TestCancelOnGiveUpGetsTheNameAndATimeout: on a timeout, CancelOperation gets the
// operation's name and a live context of its own that ends after the
// option's timeout (0: 10s), also when the last polls failed as
// transient (Unavailable until the budget ran out).
func TestCancelOnGiveUpGetsTheNameAndATimeout(t *testing.T) {
	for _, tc := range []struct {
		timeout, want time.Duration
		answer        answer
	}{
		{0, 10 * time.Second, answer{progress: 1}},
		{3 * time.Second, 3 * time.Second, answer{progress: 1}},
		{0, 10 * time.Second, answer{code: codes.Unavailable}},
	} {
		t.Run(fmt.Sprintf("%v %v", tc.timeout, tc.answer.code), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := &ops{}
				s.add("operations/slow", &job{answers: []answer{tc.answer}})
				cc := &recordingCanceller{}
				w, err := gcpwait.New(client{serve(t, s)}.JobOperation, gcpwait.WithCancelOnGiveUp(cc, tc.timeout))
				if err != nil {
					t.Fatal(err)
				}
				_, err = w.Wait(t.Context(), "operations/slow", time.Minute)
				if !errors.Is(err, waiter.ErrTimeout) {
					t.Fatalf("Wait = %v, want a timeout", err)
				}
				if len(cc.names) != 1 || cc.names[0] != "operations/slow" {
					t.Fatalf("CancelOperation calls = %v, want one for operations/slow", cc.names)
				}
				if cc.ended[0] || cc.left[0] != tc.want {
					t.Errorf("CancelOperation's context: ended %t, %v left; want live, %v left", cc.ended[0], cc.left[0], tc.want)
				}
			})
		})
	}
}

// TestCancelOnGiveUpFailureIsNotReported: a CancelOperation that fails
// changes nothing of the wait's end: Wait returns the timeout, and the
// cancellation's error is not in its chain ("its error is not
// reported").
func TestCancelOnGiveUpFailureIsNotReported(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &ops{}
		s.add("operations/slow", &job{answers: []answer{{progress: 1}}})
		cancelErr := status.Error(codes.FailedPrecondition, "cannot cancel")
		cc := &recordingCanceller{err: cancelErr}
		w, err := gcpwait.New(client{serve(t, s)}.JobOperation, gcpwait.WithCancelOnGiveUp(cc, 0))
		if err != nil {
			t.Fatal(err)
		}
		_, err = w.Wait(t.Context(), "operations/slow", time.Minute)
		var we *waiter.Error
		if !errors.Is(err, waiter.ErrTimeout) || !errors.As(err, &we) || errors.Is(err, cancelErr) {
			t.Fatalf("Wait = %v, want the timeout alone", err)
		}
		if len(cc.names) != 1 {
			t.Errorf("CancelOperation calls = %d, want 1", len(cc.names))
		}
	})
}

// TestCancelOnGiveUpBadArguments: a nil Canceller, a nil pointer in one
// (a client that was never made) and a negative timeout are errors when
// the waiter is built, matching waiter.ErrInvalidOption and reported as
// waiter.WithOnGiveUp's, not a panic when the wait gives up.
func TestCancelOnGiveUpBadArguments(t *testing.T) {
	for _, tc := range []struct {
		name string
		opt  waiter.Option
	}{
		{"nil", gcpwait.WithCancelOnGiveUp(nil, 0)},
		{"typed nil", gcpwait.WithCancelOnGiveUp((*lroauto.OperationsClient)(nil), 0)},
		{"negative timeout", gcpwait.WithCancelOnGiveUp(&recordingCanceller{}, -time.Second)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := gcpwait.New(client{}.JobOperation, tc.opt)
			if !errors.Is(err, waiter.ErrInvalidOption) || !strings.Contains(err.Error(), "WithOnGiveUp") {
				t.Errorf("New(WithCancelOnGiveUp(%s)) = %v, want an invalid option naming WithOnGiveUp", tc.name, err)
			}
		})
	}
}
