// Package gcpwait waits for Google Cloud's long-running operations with
// Waitable's waiters: the caller's budget, transient errors retried
// within it, failure at once, an event per poll with the operation's
// metadata and progress, checkpoints, Group and Batch ([NewBatch]) under
// one rate limit.
//
//	op, err := admin.UpdateDatabaseDdl(ctx, req)
//	w, err := gcpwait.NewEmpty(admin.UpdateDatabaseDdlOperation) // any generated XxxOperation(name)
//	st, err := w.Wait(ctx, op.Name(), 10*time.Minute)
//
// [New] (and [NewEmpty], for operations whose response is
// google.protobuf.Empty) takes the method of a generated client that
// rebuilds an operation's wrapper from its name: the operation's name is
// the wait's input, so a wait saved as a waiter.Checkpoint is carried on
// by another process. [NewCompute] does the same for Compute Engine's
// operations, through their Get. Each poll is one RPC: gax's retries are
// off for the waiter's calls, whose schedule and retry strategy decide
// when to poll again. Unavailable, ResourceExhausted, DeadlineExceeded and
// Internal (a REST call's 429 or any 5xx) are transient, never polled
// again sooner than the service's RetryInfo or a REST answer's
// Retry-After (an HTTP date measured from the answer's Date, on the
// service's clock); NotFound, which an operation may answer right after
// its creation, counts against the waiter's not-found limit; an operation
// that ended with an error fails the wait at once with an
// [*OperationError], and the wait returns the [Status] that saw it. The
// errors of the calls carry what package classify reads (the code, the
// HTTP status, the hint) in a *classify.CallError around the call's own.
// Where the metadata reports a progress percent, each attempt's estimate
// of the time left reads it (waiter.WithProgress).
// [WithCancelOnGiveUp] cancels the operation when the wait times out.
//
// Next to longrunning's Operation.Wait, which backs off from 1s to 60s on
// the wall clock and ends at the first error of any poll: the same
// schedule by default, on the waiter's clock (tests run in virtual time),
// within a budget, with each poll's progress in its event.
//
// What it does not do: it does not start operations or wrap Google's
// clients (their methods fit as they are), and it does not import the
// compute module, whose operations it takes by their shape
// ([ComputeOperation]).
package gcpwait
