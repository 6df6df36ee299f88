// Package waiter runs Smithy waiters: it polls an operation until the
// resource reaches the state you want, or provably never will.
//
// A waiter starts as a [Definition]: acceptors and delays, written in Go or
// loaded from a model with [ParseWaitable] (the value of a
// smithy.waiters#waitable trait), [LoadSmithy] (a whole Smithy JSON AST
// model) or [LoadBotocore] (botocore's waiters-2.json). [Definition.Validate]
// checks every rule of the specification and reports all problems at once,
// each naming the waiter, the acceptor and the rule.
//
// What the package deliberately does not do: it does not guess. A model
// that does not decode, a key it does not know in a waiter or an acceptor
// (other than the "description" some real models use for documentation),
// an unknown state or comparator: each is an error naming where it is,
// never a waiter that silently never matches.
package waiter
