// Package tfwait runs a Terraform provider's waits, written as a
// terraform-plugin-sdk [retry.StateChangeConf], on Waitable's waiter:
// the caller's budget used well, transient refresh errors retried within
// it, time through an injected clock, and the SDK's own error types
// returned, so that a provider's errors.As keeps working.
//
//	conf := &retry.StateChangeConf{
//		Pending: []string{"creating"},
//		Target:  []string{"available"},
//		Refresh: statusCluster(ctx, conn, id),
//		Timeout: d.Timeout(schema.TimeoutCreate),
//	}
//	w, err := tfwait.StateChange(conf)
//	if err != nil {
//		return err
//	}
//	out, err := tfwait.Result(w.Wait(ctx, struct{}{}, conf.Timeout)) // where the provider had conf.WaitForStateContext(ctx)
//
// [StateChange] returns a *waiter.Waiter, as every adapter of Waitable's
// does: its output is each refresh's record ([Refresh]), and the wait keeps
// nothing else, so a provider's wait can also be Started (its events say
// each refresh, a Poke brings the next one forward when something says the
// resource changed), run in a waiter.Group with others, and resumed from
// its waiter.Checkpoint by another process. [Result] turns what a wait
// returned into what WaitForStateContext returns. A provider on
// terraform-plugin-framework, which has no wait helper, gives a refresh
// that takes the poll's context to [StateChangeFunc]. In tests,
// [waiter.WithClock] (or a testing/synctest bubble) makes a wait of twenty
// minutes take none.
//
// # The fields of StateChangeConf
//
// Each field keeps its meaning; where Waitable's rule differs, it says so.
//
//   - Pending: the states that poll again. Any other state, neither Pending
//     nor Target, ends the wait with a [*retry.UnexpectedStateError] and that
//     refresh's result. An empty Pending polls again on any state.
//   - Target: the states that end the wait with the result of the refresh
//     that reached one. An empty Target waits for the object to be gone: a
//     nil result from the refresh is the success.
//   - Refresh: called once a poll, in the goroutine that waits. A nil result
//     (the interface nil, not a typed nil pointer) is "not found". Its error:
//     see "Refresh errors" below.
//   - Timeout: the wait's budget, Delay included, as in the SDK; it must be
//     positive, and the wait's maxWait (give the waiter's Wait or Start
//     conf.Timeout). A deadline of the context that comes sooner is the
//     wait's. Out of time, the wait ends with a [*retry.TimeoutError] whose
//     LastState and LastError are those of the last refresh judged (see
//     "The final poll" below), and a nil result.
//   - Delay: the time before the first refresh ([waiter.WithInitialDelay]),
//     shortened to a context's deadline that comes sooner. A Delay of
//     Timeout or more makes no refresh, as in the SDK, whose Timeout comes
//     first: the wait ends at Timeout with a [*retry.TimeoutError] whose
//     LastState is empty (or at once with ctx's error when ctx is cancelled).
//   - MinTimeout, PollInterval: the schedule. The SDK's delay doubles from
//     200ms up to 10s, no shorter than MinTimeout; a PollInterval under
//     180s replaces it with a fixed delay. Waitable keeps those bounds as
//     the Smithy schedule's MinDelay and MaxDelay ([waiter.WithDelays]) and
//     draws each delay from [MinDelay, delay] with jitter, as Smithy waiters
//     do, so that many waits do not poll in step: polls come sooner than the
//     SDK's (a change is seen sooner, with more refreshes in a long wait).
//     [waiter.WithJitter]([backoff.High]) gives the SDK's delays exactly,
//     for a MinTimeout up to 10s. A MinTimeout over 10s stays the shortest
//     delay (and the longest: every delay is MinTimeout), where the SDK
//     alternates MinTimeout and 10s: with a MinTimeout of 30s its refreshes
//     come at 0, 30, 40, 70 and 80s, tfwait's at 0, 30, 60 and 90s.
//   - NotFoundChecks: how many nil results in a row are allowed (0 means the
//     SDK's 20) when a Target is awaited; the next one ends the wait with a
//     [*retry.NotFoundError] whose Retries counts them
//     ([waiter.WithNotFoundLimit]), also when an option of the caller's sets
//     another limit. Any other answer starts the count again. A refresh error
//     that says not found (a 404) is an error, not a nil result: it ends the
//     wait as the SDK does, returned as the refresh returned it. The
//     NotFoundError's Retries counts the nil results the wait saw (the SDK
//     counts those in a row: the two differ only when a result came between
//     runs of nil results).
//   - ContinuousTargetOccurence: how many target answers in a row end the
//     wait (0 means 1) ([waiter.WithStability]), confirmed at MinDelay (the
//     SDK confirms at the delay it had reached). Any other answer starts the
//     count again: a pending state, as in the SDK, but also a nil result, an
//     unknown state or an error retried, which the SDK lets through. The
//     poll after it comes at the schedule's delay for its place in the wait,
//     the confirmations counted among the polls, where the SDK goes on
//     doubling the delay it had: with the SDK's other defaults, three
//     pending answers, two target ones and a pending one make a gap of 6.4s
//     where the SDK's is 1.6s (within MaxDelay, 10s, always).
//
// # Where Waitable's rules differ
//
// Refresh errors. The SDK ends the wait on any refresh error. Here the
// waiter's retry strategy tells transient errors from fatal ones: a throttle,
// a 5xx, a timeout or a refused connection (what an API error says in a
// *classify.CallError or through its ErrorCode or HTTPStatusCode methods,
// or a net.Error) is retried on the
// schedule, within the budget, never sooner than a Retry-After the error
// carries. That is what a provider asks of a wait on a cloud API that
// stumbles: a 503 twenty minutes into a create should not fail the apply. A
// wait that meets only transient errors until its deadline ends with a
// [*retry.TimeoutError] whose LastError is the last of them. Any other error
// ends the wait at once, returned as the refresh returned it, with the result
// returned beside it, as the SDK does. [waiter.WithRetryStrategy](nil) makes
// every refresh error fatal, the SDK's rule.
//
// The final poll. The SDK times out wherever its sleep stands when Timeout
// comes; a refresh in flight then has a 30s grace period, and its answer is
// judged (a target state still ends the wait with success); after the grace
// period the SDK returns and leaves the refresh running. Here the final poll
// is timed to end before the deadline (less the refresh's latency seen so
// far, see [waiter.WithFinalReserve]), so a resource that reaches its target
// in the last seconds is seen. A refresh that returns after the deadline is
// not judged: the wait ends with a [*retry.TimeoutError] whose LastState is
// that of the last refresh judged that returned no error, and with no
// LastError, whatever the late one answered.
// [StateChangeFunc]'s refresh gets a context that ends at the deadline: one
// that honours it ends the wait at Timeout. StateChange's Refresh takes no
// context and cannot be cut short: one in flight at the deadline is waited
// for, however long it takes, and the wait returns when it does.
//
// The context. The SDK's Refresh takes no context; [StateChangeFunc]'s
// refresh gets the poll's context, which ends at the wait's deadline and
// with the caller's. A refresh that returns once that context has ended is
// not judged. A cancelled context ends the wait with a nil result and
// context.Canceled, as in the SDK; a context's deadline, which the SDK
// reports as context.DeadlineExceeded, is the wait's deadline here,
// reported as a [*retry.TimeoutError].
//
// Other options. [StateChange] takes any [waiter.Option] after the mapping
// (the waiter's own after tfwait's, so the caller's win):
// [waiter.WithTelemetry] for a span per wait and per poll, [waiter.WithClock],
// [waiter.WithPollRateLimit] to share an API's rate limit among waits. A wait
// ended by an option of its own ([waiter.WithMaxPolls],
// [waiter.WithTransientLimit]) returns the waiter's [*waiter.Error] (from
// [Result] too).
//
// What it does not do: it does not replace the SDK's retry.RetryContext or
// change a StateChangeConf, whose defaults WaitForStateContext writes into it
// and StateChange does not.
package tfwait
