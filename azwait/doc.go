// Package azwait waits on Azure long-running operations with Waitable's
// waiters: any azcore [runtime.Poller] from any Begin method of an Azure
// SDK client, ARM or data plane, polled under the caller's budget.
//
//	poller, err := client.BeginStart(ctx, "rg", "vm1", nil)
//	token, err := poller.ResumeToken() // save it: a new process resumes from it
//	w, err := azwait.New(func(ctx context.Context, token string) (*runtime.Poller[armcompute.VirtualMachinesClientStartResponse], error) {
//		return client.BeginStart(ctx, "rg", "vm1", &armcompute.VirtualMachinesClientBeginStartOptions{ResumeToken: token})
//	})
//	st, err := w.Wait(ctx, token, 30*time.Minute) // st.Status, st.Result
//
// The wait's input is the poller's resume token, a string: a Checkpoint
// of the wait (every attempt's event carries one) and the token resume
// the wait in another process with [waiter.Waiter.WaitFrom] or
// [waiter.Waiter.StartFrom], with the same deadline and schedule. Each
// poll rebuilds the poller from the token, as the generated Begin methods
// do given a ResumeToken (no request), and makes one HTTP request:
// azcore's own retries are turned off for it (policy.WithRetryOptions with
// MaxRetries -1), because the waiter's schedule and retry strategy decide
// when to poll again. Once the operation has succeeded, the poller's
// Result may make one request more (the final GET of a PUT or PATCH), as
// it does under PollUntilDone. A poller that is done when the resume
// function returns it (built on a synchronous answer) makes no poll: the
// wait ends with its Result.
//
// Each poll is read as azcore reads it, and [Status] says what it saw
// (every attempt's event carries one, with Status "" when there was no
// answer): Succeeded and Completed end the wait with success and the
// operation's result; Failed, Canceled and Cancelled end it at once with
// an [*OperationError] holding the service's error (errors.As finds the
// *azcore.ResponseError), and the wait returns the Status that saw it,
// Done, its Err the same error. An
// answer with status 408 or 429 or 5xx is transient: it is polled again
// within the budget, never sooner than its Retry-After (or retry-after-ms,
// x-ms-retry-after-ms; an HTTP date is measured from the answer's Date,
// on the service's clock, not the process's); a pending answer's
// Retry-After is the next poll's hint too. A poll or final GET that got
// no answer (its connection was reset, say) is transient too, as azcore's
// retry policy would have sent it again under PollUntilDone; an error
// azcore does not retry, a credential's failure, is left as it is, and
// the waiter's default retry strategy ends the wait on it. A 2xx answer
// whose body carries an error object (with a code or a message) and no
// status azcore knows (Succeeded, Completed, Failed, Canceled, Cancelled,
// InProgress) is read as that error (transient if its code is,
// InternalServerError say), never as the operation's end; beside a status
// azcore knows, the status decides: a Succeeded beside an error object is
// the operation's success. A token whose status URL no longer answers
// with a status (such URLs expire, after about 20 minutes for some
// services) is a [*TokenError] matching [ErrTokenExpired]: start the
// operation's wait afresh from a new token. The errors carry what package
// classify reads (the HTTP status, the error code, the hint) in a
// *classify.CallError around the service's.
//
// What azcore keeps to itself, and so what azwait reads: a Poller's
// public surface says whether the operation is done (Done), polls it
// (Poll) and gives its result or error (Result), but not the status word
// it read, the operation's progress, nor the error object of a 2xx answer,
// and its resume token is opaque, which azwait never decodes. azwait reads
// those from each poll's HTTP response, as Azure's long-running operation
// protocol documents it: the status resource's status and
// percentComplete (Azure-AsyncOperation, Operation-Location), a resource's
// properties.provisioningState, the error object, the Retry-After
// headers; an answer that names no status (a Location poller's 202, a
// fake server's) is InProgress while the poller is not done, and
// Succeeded once its Result is. The percentComplete is the wait's
// progress (Status.PercentComplete, and waiter.WithProgress for each
// attempt's estimate of the time left).
//
// [NewBatch] waits for many operations under one scheduler and one rate
// limit (waiter.WithPollRateLimit): ARM throttles a subscription's reads,
// and many waits each on a schedule of its own run into it.
//
// [ProvisioningState] is the definition for ARM resources that change
// without a long-running operation: GET the resource until its
// properties.provisioningState is Succeeded, Failed or Canceled, with [Call]
// making each GET one request, retried as a poll is.
//
// Telemetry: the waiter's spans (one per wait, one per attempt; see
// package telemetry) and azcore's own (one per Poll and one per HTTP
// request, when the client's ClientOptions.TracingProvider is set) are
// made apart: azwait hands each poll the context the waiter gives its
// attempt, and azcore's tracer decides what to make of it. azcore's span
// of PollUntilDone has no counterpart: the wait's own span stands for it.
//
// What it does not do: it does not keep pollers between polls (the token
// holds their state, and a poller is not safe for concurrent use), so a
// Location URL that a service changes while polling is not carried from
// one poll to the next. The first poll comes at once: give
// waiter.WithInitialDelay for a Retry-After of the Begin response.
package azwait
