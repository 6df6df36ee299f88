// Package waiter runs Smithy waiters: it polls an operation until the
// resource reaches the state you want, or provably never will.
//
//	catalog, err := model.LoadSmithy(modelFile) // package waiter/model; or write a Definition in Go
//	def, err := catalog.Get("ClusterActive")
//	w, err := waiter.New(def, describeCluster) // func(context.Context, *In) (*Out, error)
//	out, err := w.Wait(ctx, &DescribeClusterInput{Name: &name}, 20*time.Minute)
//	if errors.Is(err, waiter.ErrTimeout) { /* out shows where the cluster was */ }
//
// A waiter starts as a [Definition]: acceptors and delays, written in Go or
// loaded from a model file (a Smithy JSON AST model, botocore's
// waiters-2.json, the value of a smithy.waiters#waitable trait) with
// package [github.com/waitable/waitable/waiter/model]. [Definition.Validate]
// checks every rule of the specification and reports all problems at once,
// each naming the waiter, the acceptor and the rule. [NewFunc] builds a
// waiter from Go functions alone, in the style of Kubernetes'
// ConditionFunc.
//
// [New] compiles the definition's expressions for the Go types of the
// operation's input and output, keying struct fields (in keys(), values(),
// merge(), to_string, and paths) by package jmespath's rule ("Struct
// fields and their keys") with the member names of the definition's
// [Model]: a model's member names for the fields that stand for members,
// no key for those that do not, for definitions loaded with a model's
// shapes (package model's LoadSmithy and LoadBotocoreService, whose Model
// is a model.Shapes) and those of package awswait; jmespath or json tags,
// else Go names, for definitions with no Model (Go literals, package
// model's ParseWaitable and LoadBotocore).
//
// # The core and its drivers
//
// The rules of the Smithy waiter workflow live in one place, as pure
// functions: [Waiter.Judge] applies the acceptors to one call, and
// [Waiter.Step] applies a judged call (a [Poll]) to a wait's [State] and
// decides what comes next ([Decision]): success, failure, timeout, or the
// delay before the next call. They read no clock and start no goroutine.
// Everything else drives them:
//
//   - [Waiter.Wait] waits in the caller's goroutine, with one timer.
//   - [Waiter.Start] waits in the background and returns a [Run]: its
//     attempts as events ([Run.Events], [Run.Attempts]), its checkpoint,
//     its result. A Run holds no goroutine between calls.
//   - [WaitAll] and [Group] wait for many resources at once.
//   - A wait's State is plain data that round-trips through JSON: every
//     attempt carries it as its Checkpoint, and [Waiter.Resume] or
//     [Waiter.WaitFrom] carry a wait on from it in another process. A
//     durable engine or a simulator can call Begin, Judge and Step
//     themselves (the examples' schedule simulator does).
//
// # The caller's budget rules the wait
//
// maxWait is the caller's, and a wait uses all of it. An error no acceptor
// matches goes to the retry strategy ([WithRetryStrategy]): a transient
// one (a throttle, a 5xx, a timeout, a refused connection) is polled again
// on the schedule, never sooner than the strategy's backoff or the
// service's retry-after hint, for as long as the time lasts, and a wait
// that meets only transient errors ends with [ErrTimeout] holding the last
// one; a fatal one ends the wait at once. The strategy's own attempt count
// and an empty retry quota do not end a wait ([WithTransientLimit] does,
// if you ask). A hint that would pass the deadline ends the wait at once
// with ErrTimeout saying so. The final call starts early enough to end
// before the deadline (the longest latency seen with a margin; see
// [WithFinalReserve]), the last-attempt check counts that latency, and an
// answer returned at the deadline instant is judged; a call cut off by the
// deadline is a timeout in its event ([Attempt].Outcome) and in the
// result.
//
// Time goes through the clock given with [WithClock] (tests use the
// clocktest package), and each delay's jitter is drawn from a seed kept in
// the State, so a resumed or replayed wait makes the same delays.
//
// # What it deliberately does not do
//
// It does not guess. A definition that breaks a rule of the specification
// (an unknown state or comparator, a path that does not compile) is an
// error naming where it is, never a waiter that silently never matches;
// package model does the same for model files that do not decode. It
// does not retry inside a call: the operation is called once per attempt
// (retry.Do inside it makes a single attempt), and errors no acceptor
// matches go to the waiter's retry strategy, so that retries are never
// stacked on retries. And it does not keep what nobody reads: a
// Run keeps at most its event buffer of unread attempts.
package waiter
