package azwait

import (
	"context"
	"errors"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/waiter"
)

// Resume rebuilds the poller of a long-running operation from its resume
// token, as a generated client's Begin method does when its options carry
// the token in ResumeToken (it makes no request), or
// runtime.NewPollerFromResumeToken with the client's pipeline.
type Resume[T any] func(ctx context.Context, token string) (*runtime.Poller[T], error)

// Status is one poll of a long-running operation: what the operation's
// status was, and its result once it has succeeded. The waiters of [New]
// return it, and each attempt's event carries it: an attempt's Output is
// never nil, whatever its error.
type Status[T any] struct {
	// Status is the operation's status as the poller read it: InProgress
	// or the service's own word for a state that is not terminal
	// (Creating, Updating), or Succeeded, Completed, Failed, Canceled,
	// Cancelled; "" when the poll's answer said nothing of it (an error
	// answer: the operation goes on as it was) or when there was no
	// answer (the request got none, or the token or the resume function
	// gave no poller to poll).
	Status string
	// Done reports a terminal status: the operation succeeded (its result
	// is in Result) or failed (the wait's error holds the service's).
	Done bool
	// HTTPStatus is the status code of the poll's HTTP response; 0 when
	// there was none (no answer, or a poller already done: no poll).
	HTTPStatus int
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

// Definition returns the waiter definition of a long-running operation:
// success once the poll reads a terminal status (a failed operation is an
// error, fatal at once), polls from 2s to 30s apart (azcore's
// PollUntilDone polls every 30s by default) unless a Retry-After says
// later.
func Definition() waiter.Definition {
	return waiter.Definition{
		Name:          "LongRunningOperationDone",
		Documentation: "Wait until an Azure long-running operation reaches a terminal status.",
		Acceptors: []classify.Acceptor{{
			State:   classify.Success,
			Matcher: classify.OnOutput("Done", classify.BooleanEquals, "true"),
		}},
		MinDelay: 2 * time.Second,
		MaxDelay: 30 * time.Second,
	}
}

// New returns a waiter for the long-running operations whose pollers
// resume rebuilds: its input is a poller's resume token, its output the
// operation's [Status]. It waits with [Definition] and [Op]; opts are
// those of waiter.New (WithDelays, WithRetryStrategy, WithPollRateLimit,
// WithTelemetry...).
func New[T any](resume Resume[T], opts ...waiter.Option) (*waiter.Waiter[string, *Status[T]], error) {
	op, err := Op(resume)
	if err != nil {
		return nil, err
	}
	return waiter.New(Definition(), op, opts...)
}

// Op returns the waiter operation that polls the operation a resume token
// names, once: it rebuilds the poller with resume, polls it with azcore's
// retries off (one HTTP request), and reads the answer (see the package
// documentation). A terminal failure is returned as an error that the
// retry strategy calls fatal, holding the *azcore.ResponseError; so is a
// resume function's nil poller with a nil error (the error names the
// resume function), and a Poll that returns neither a response nor an
// error (a custom PollingHandler's). An error of resume is a [*TokenError]
// matching [ErrTokenInvalid].
func Op[T any](resume Resume[T]) (func(ctx context.Context, token string) (*Status[T], error), error) {
	if resume == nil {
		return nil, errors.New("azwait: the resume function is nil")
	}
	return func(ctx context.Context, token string) (*Status[T], error) {
		return poll(ctx, resume, token)
	}, nil
}
