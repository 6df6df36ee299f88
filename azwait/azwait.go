package azwait

import (
	"context"
	"errors"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"

	"github.com/waitable/waitable/waiter"
)

// Resume rebuilds the poller of a long-running operation from its resume
// token, as a generated client's Begin method does when its options carry
// the token in ResumeToken (it makes no request), or
// runtime.NewPollerFromResumeToken with the client's pipeline.
type Resume[T any] func(ctx context.Context, token string) (*runtime.Poller[T], error)

// Status is one poll of a long-running operation: what the operation's
// status was, its progress, and how it ended once it has: its result, or
// the service's error. The waiters of [New] and [NewBatch] return it, and
// each attempt's event carries it: an attempt's Output is never nil,
// whatever its error. A wait that ends on the operation's failure returns
// the Status that saw it (Done, with Err).
type Status[T any] struct {
	// Status is the operation's status as the poll read it: InProgress
	// or the service's own word for a state that is not terminal
	// (Creating, Updating), or Succeeded, Completed, Failed, Canceled,
	// Cancelled; "" when the poll's answer said nothing of it (an error
	// answer: the operation goes on as it was) or when there was no
	// answer (the request got none, or the token or the resume function
	// gave no poller to poll).
	Status string
	// Done reports a terminal status: the operation succeeded (its result
	// is in Result) or failed (Err).
	Done bool
	// Err is the service's error, an *azcore.ResponseError, once the
	// operation has failed or was canceled; nil otherwise.
	Err error
	// HTTPStatus is the status code of the poll's HTTP response; 0 when
	// there was none (no answer, or a poller already done: no poll).
	HTTPStatus int
	// PercentComplete is the operation's progress as its status resource
	// reports it (percentComplete, from 0 to 100); 0 when the answer says
	// none.
	PercentComplete float64
	// Result is the operation's result, once it has succeeded.
	Result T
	// After is the response's hint of when to poll again (Retry-After),
	// 0 for none.
	After time.Duration
}

// RetryAfter returns the response's hint of when to poll again: the
// waiter polls no sooner.
func (s *Status[T]) RetryAfter() time.Duration {
	if s == nil {
		return 0
	}
	return s.After
}

// The name and schedule of the waiters of [New] and [NewBatch]: polls
// from 2s to 30s apart (azcore's PollUntilDone polls every 30s by
// default) unless a Retry-After says later.
const (
	waiterName      = "LongRunningOperationDone"
	defaultMinDelay = 2 * time.Second
	defaultMaxDelay = 30 * time.Second
)

// New returns a waiter for the long-running operations whose pollers
// resume rebuilds: its input is a poller's resume token, its output the
// operation's [Status]. It polls with [Op] from 2s to 30s apart,
// and its rule is the operation's: the wait succeeds once the operation
// has succeeded, and fails at once, with waiter.ErrFailure, once it has
// failed or was canceled, the wait's error holding an [*OperationError]
// (and so the *azcore.ResponseError) and its output the Status that saw
// it; an error of the poll goes to the retry strategy. Each attempt's
// estimate of the time left (waiter.WithProgress) reads the operation's
// PercentComplete. opts, applied after these, are those of waiter.New
// (WithDelays, WithRetryStrategy, WithPollRateLimit, WithTelemetry...).
func New[T any](resume Resume[T], opts ...waiter.Option) (*waiter.Waiter[string, *Status[T]], error) {
	op, err := Op(resume)
	if err != nil {
		return nil, err
	}
	return waiter.NewFunc(waiterName, op, done[T], options[T](opts)...)
}

// NewBatch returns a waiter.Batch for many long-running operations, each
// added by its resume token (Batch.Add), with [New]'s rule and schedule:
// one scheduler goroutine and one timer for all of them, and one rate
// limit (waiter.WithPollRateLimit) that each poll's request takes a token
// of, as ARM's throttling of a subscription asks. Azure has no read of
// many operations in one request, so each of the batch's calls polls one
// operation, one HTTP request; calls is how many may be in flight at
// once (0: 4).
func NewBatch[T any](resume Resume[T], calls int, opts ...waiter.Option) (*waiter.Batch[string, *Status[T]], error) {
	op, err := Op(resume)
	if err != nil {
		return nil, err
	}
	one := func(ctx context.Context, tokens []string) (map[string]*Status[T], error) {
		st, err := op(ctx, tokens[0])
		return map[string]*Status[T]{tokens[0]: st}, err // the attempt carries the status, error or not
	}
	return waiter.NewBatch(waiter.Definition{Name: waiterName}, one,
		waiter.BatchOptions[string, *Status[T]]{Size: 1, Calls: calls, Condition: done[T]}, options[T](opts)...)
}

// options are the waiters' own options, their schedule and the progress
// the operation reports, then opts.
func options[T any](opts []waiter.Option) []waiter.Option {
	return append([]waiter.Option{
		waiter.WithDelays(defaultMinDelay, defaultMaxDelay),
		waiter.WithProgress(func(st *Status[T]) float64 {
			if st == nil {
				return -1
			}
			return st.PercentComplete / 100
		}),
	}, opts...)
}

// done is the waiters' rule: an operation that succeeded ends the wait,
// one that failed fails it with an *OperationError, and an error of the
// poll goes to the retry strategy.
func done[T any](_ string, st *Status[T], err error) (bool, error) {
	switch {
	case err != nil:
		return false, err
	case st.Err != nil:
		return false, &OperationError{Status: st.Status, Err: st.Err}
	}
	return st.Done, nil
}

// Op returns the waiter operation that polls the operation a resume token
// names, once: it rebuilds the poller with resume, polls it with azcore's
// retries off (one HTTP request), and reads the answer (see the package
// documentation). An operation that failed is no error of the call: its
// Status is Done with the service's error in Err, for the rule of [New]
// to judge. A poll that cannot be made, a resume function's nil poller
// with a nil error (the error names the resume function) or a Poll that
// returns neither a response nor an error (a custom PollingHandler's), is
// an error that the retry strategy calls fatal. An error of resume is a
// [*TokenError] matching [ErrTokenInvalid].
func Op[T any](resume Resume[T]) (func(ctx context.Context, token string) (*Status[T], error), error) {
	if resume == nil {
		return nil, errors.New("azwait: the resume function is nil")
	}
	return func(ctx context.Context, token string) (*Status[T], error) {
		return poll(ctx, resume, token)
	}, nil
}
