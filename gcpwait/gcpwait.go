package gcpwait

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"time"

	"github.com/googleapis/gax-go/v2"

	"github.com/waitable/waitable/waiter"
)

// Operation is the shape of the wrapper a generated Google Cloud client
// returns for a long-running operation whose response is a message, such
// as spanner admin's *database.CreateDatabaseOperation: R is the
// response (*databasepb.Database), M the metadata
// (*databasepb.CreateDatabaseMetadata).
type Operation[R, M any] interface {
	Poll(ctx context.Context, opts ...gax.CallOption) (R, error)
	Done() bool
	Metadata() (M, error)
	Name() string
}

// EmptyOperation is the shape of the wrapper of a long-running operation
// whose response is google.protobuf.Empty, such as spanner admin's
// *database.UpdateDatabaseDdlOperation: its Poll returns only an error.
type EmptyOperation[M any] interface {
	Poll(ctx context.Context, opts ...gax.CallOption) error
	Done() bool
	Metadata() (M, error)
	Name() string
}

// Status is a long-running operation as one poll found it: the output
// of gcpwait's waiters, so each attempt's event (waiter.Attempt.Output)
// carries the operation's metadata, its progress.
type Status[R, M any] struct {
	// Name is the operation's name.
	Name string
	// Done reports whether the operation has ended.
	Done bool
	// Response is the operation's response, once it has ended without
	// error (the zero R before, and for an EmptyOperation).
	Response R
	// Metadata is the operation's metadata as of this poll: its progress.
	// It is the zero M when the operation carries none (or none that
	// decodes as an M), or when the call failed.
	Metadata M
	// Err is the operation's own error, once it has ended in failure.
	Err error
}

// noRetry turns gax's retries off for one call: the waiter's schedule and
// retry strategy decide when to poll again, so each poll is one RPC.
var noRetry = gax.WithRetry(func() gax.Retryer { return nil })

// Default delays: those of longrunning's Operation.Wait (from 1s to its
// 60s interval), which the waiter draws with jitter.
const (
	defaultMinDelay = time.Second
	defaultMaxDelay = time.Minute
	// defaultNotFound is how many NotFound answers in a row a wait takes
	// (an operation that is not yet visible right after its creation)
	// before it fails.
	defaultNotFound = 5
)

// New returns a waiter for the long-running operations that resume
// rebuilds from their name: a generated client's method, such as
// (*database.DatabaseAdminClient).CreateDatabaseOperation. The wait's
// input is the operation's name (its Name method), so a checkpoint
// resumes the wait in another process.
//
// Each poll rebuilds the wrapper with resume and calls its Poll once,
// with gax's retries off: one GetOperation RPC. The wait succeeds when
// the operation is done, and fails at once with an *OperationError when
// it ended with an error, returning the Status that saw it. A poll whose
// RPC fails with Unavailable, ResourceExhausted, DeadlineExceeded or
// Internal (a REST call's 429 or any 5xx) is retried within the budget
// (never sooner than the service's RetryInfo, or a REST answer's
// Retry-After); NotFound is polled again and counts against the waiter's
// not-found limit, five answers in a row unless waiter.WithNotFoundLimit
// says otherwise (an operation may not be visible yet right after its
// creation); any other code ends the wait. A metadata that reports a
// progress percent (a ProgressPercent, or a Progress that has one, as
// Spanner's do) is each attempt's progress
// (waiter.WithProgress), which refines its estimate of the time left.
//
// The waiter is named after the wrapper's type (CreateDatabase for a
// *CreateDatabaseOperation) and polls from 1s to 60s apart, as
// longrunning's Operation.Wait does, with jitter; opts, applied after
// these defaults, may change them (waiter.WithDelays) and add any of
// package waiter's options, WithCancelOnGiveUp among them.
func New[Op Operation[R, M], R, M any](resume func(name string) Op, opts ...waiter.Option) (*waiter.Waiter[string, Status[R, M]], error) {
	op, err := pollOf[Op, R, M](resume)
	if err != nil {
		return nil, err
	}
	return newWaiter(nameOf[Op](), op, opts)
}

// NewBatch is [New] for many operations in one waiter.Batch, each added
// by its name (Batch.Add): one scheduler goroutine and one timer for all
// of them, and one rate limit (waiter.WithPollRateLimit) that each poll's
// RPC takes a token of. The Operations API reads one operation an RPC, so
// each of the batch's calls polls one operation; calls is how many may be
// in flight at once (0: 4). It takes the operations with a response (an
// [Operation]); those of [NewEmpty] and [NewCompute] have no batch.
func NewBatch[Op Operation[R, M], R, M any](resume func(name string) Op, calls int, opts ...waiter.Option) (*waiter.Batch[string, Status[R, M]], error) {
	op, err := pollOf[Op, R, M](resume)
	if err != nil {
		return nil, err
	}
	one := func(ctx context.Context, names []string) (map[string]Status[R, M], error) {
		st, err := op(ctx, names[0])
		return map[string]Status[R, M]{names[0]: st}, err // the attempt carries the status, error or not
	}
	def := waiter.Definition{Name: nameOf[Op](), MinDelay: defaultMinDelay, MaxDelay: defaultMaxDelay}
	return waiter.NewBatch(def, one, waiter.BatchOptions[string, Status[R, M]]{Size: 1, Calls: calls, Condition: done[R, M]},
		options[R, M](opts)...)
}

// pollOf returns the poll of New's operations.
func pollOf[Op Operation[R, M], R, M any](resume func(name string) Op) (func(context.Context, string) (Status[R, M], error), error) {
	if resume == nil {
		return nil, errors.New("gcpwait: the resume function is nil")
	}
	return func(ctx context.Context, name string) (Status[R, M], error) {
		op := resume(name)
		resp, err := op.Poll(ctx, noRetry)
		st := Status[R, M]{Name: name}
		if err == nil {
			st.Response = resp
		}
		return statusOf(st, op, err)
	}, nil
}

// NewEmpty is [New] for the operations whose response is
// google.protobuf.Empty (an [EmptyOperation]), such as
// (*database.DatabaseAdminClient).UpdateDatabaseDdlOperation.
func NewEmpty[Op EmptyOperation[M], M any](resume func(name string) Op, opts ...waiter.Option) (*waiter.Waiter[string, Status[struct{}, M]], error) {
	if resume == nil {
		return nil, errors.New("gcpwait: the resume function is nil")
	}
	return newWaiter(nameOf[Op](), func(ctx context.Context, name string) (Status[struct{}, M], error) {
		op := resume(name)
		err := op.Poll(ctx, noRetry)
		return statusOf(Status[struct{}, M]{Name: name}, op, err)
	}, opts)
}

// polled is what statusOf reads of a wrapper after its Poll.
type polled[M any] interface {
	Done() bool
	Metadata() (M, error)
}

// statusOf completes st from a wrapper op that has just been polled, with
// Poll's error err: an error of a done operation is the operation's own,
// any other the call's.
func statusOf[R, M any](st Status[R, M], op polled[M], err error) (Status[R, M], error) {
	st.Done = op.Done()
	switch {
	case err != nil && !st.Done:
		return st, callError(err)
	case err != nil:
		st.Err = err
	}
	st.Metadata, _ = op.Metadata() // a metadata that does not decode leaves it zero: the wait goes on
	return st, nil
}

// newWaiter builds the waiter all of the package's constructors return.
func newWaiter[R, M any](name string, op func(context.Context, string) (Status[R, M], error), opts []waiter.Option) (*waiter.Waiter[string, Status[R, M]], error) {
	return waiter.NewFunc(name, op, done[R, M], options[R, M](opts)...)
}

// options are the waiters' own options, then opts: the delays, the
// not-found limit, and the progress the metadata reports, if M has one.
func options[R, M any](opts []waiter.Option) []waiter.Option {
	own := []waiter.Option{
		waiter.WithDelays(defaultMinDelay, defaultMaxDelay),
		waiter.WithNotFoundLimit(defaultNotFound),
	}
	if p := progressOf[M](); p != nil {
		own = append(own, waiter.WithProgress(func(st Status[R, M]) float64 { return p(st.Metadata) }))
	}
	return append(own, opts...)
}

// done is the waiters' condition: an operation done without error ends
// the wait, one done with an error fails it, NotFound polls again (the
// not-found limit counts it), and any other error of the call goes to the
// retry strategy.
func done[R, M any](_ string, st Status[R, M], err error) (bool, error) {
	switch {
	case notFound(err):
		return false, nil
	case err != nil:
		return false, err
	case st.Err != nil:
		return false, &OperationError{Name: st.Name, Err: st.Err}
	}
	return st.Done, nil
}

// nameOf names a waiter after the Go type of the operations it waits
// for: CreateDatabase for *database.CreateDatabaseOperation.
func nameOf[Op any]() string {
	t := reflect.TypeFor[Op]()
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	name, _, _ := strings.Cut(t.Name(), "[") // a generic type's arguments
	if n := strings.TrimSuffix(name, "Operation"); n != "" {
		return n
	}
	return "Operation"
}
