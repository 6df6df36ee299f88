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
// # Which entry point
//
// Most callers should use [Waiter.Wait]: it waits in the caller's
// goroutine, with one timer, and returns the last output and nil or an
// [*Error]. The others:
//
//   - [Waiter.Start] waits in a goroutine of its own and returns a [Run]:
//     its attempts as they happen ([Run.Events]), its latest
//     [Checkpoint], [Run.Poke] for an event that says the resource may
//     have changed, and its result.
//   - [WaitAll] and [Group] wait for many resources at once, each as
//     Start does (a goroutine each), with a concurrency limit and
//     fail-fast if you ask ([GroupOptions]).
//   - [NewBatch] is the tool for mass waits (thousands of resources), and
//     for an API that describes many in one call: one goroutine and one
//     timer poll them all, in calls of up to [BatchOptions].Size keys.
//   - [Waiter.WaitFrom] and [Waiter.StartFrom] carry a wait on from a
//     Checkpoint saved by another process.
//   - [Waiter.Begin], [Waiter.Call] and [Waiter.Step] are the core, for a
//     driver of your own (a durable workflow, a simulator): they read no
//     clock and start no goroutine, and every rule of the workflow lives
//     in Step ([Waiter.Judge] applies the acceptors alone).
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
// deadline is a timeout in its event (its Checkpoint's End) and in the
// result.
//
// Time goes through the clock given with [WithClock] (tests use the
// clocktest package), and each delay's jitter is drawn from a seed kept in
// the Checkpoint, so a resumed or replayed wait makes the same delays.
//
// # What it deliberately does not do
//
// It does not guess. A definition that breaks a rule of the specification
// (an unknown state or comparator, a path that does not compile) is an
// error naming where it is, never a waiter that silently never matches;
// package model does the same for model files that do not decode. It
// does not abandon a call: the operation runs in the wait's goroutine
// and honours its context, as Go's functions do, so a wait ends when its
// call returns (only a Batch member ends at its deadline with its call in
// flight, because that call serves other keys). It does not retry inside
// a call: the operation is called once per attempt
// (retry.Do inside it makes a single attempt), and errors no acceptor
// matches go to the waiter's retry strategy, so that retries are never
// stacked on retries. And it does not keep what nobody reads: a Run keeps
// at most 16 unread attempts (WithEventBuffer: fewer, or none). It does
// not save nanoseconds in a loop that sleeps for seconds: the loop is one
// select a reader can follow, and NewBatch, not cleverness, is the tool
// for mass waits.
package waiter
