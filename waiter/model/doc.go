// Package model reads waiters from model files into [waiter.Definition]
// values: a whole Smithy JSON AST model ([LoadSmithy]), botocore's
// waiters-2.json ([LoadBotocore], or [LoadBotocoreService] with the
// service's service-2.json beside it), or the value of one
// smithy.waiters#waitable trait ([ParseWaitable]).
//
// Use it when the waiters you run are written in a model, not in Go. A
// definition written as a Go literal, or a waiter built with
// waiter.NewFunc, needs package waiter alone; AWS's own waiters come ready
// from package awswait.
//
//	catalog, err := model.LoadSmithy(modelFile)
//	def, err := catalog.Get("ClusterActive") // errors.Is(err, model.ErrUnknownWaiter) for a misspelled name
//	w, err := waiter.New(def, describeCluster) // func(context.Context, *In) (*Out, error)
//
// Each loader reports every problem at once (joined with errors.Join). A
// problem with the document's form is an [*Error], matching [ErrInvalid],
// that says where it is: the path in the model and, from the JSON decoder,
// the line and column. A waiter that decodes but breaks a rule of the
// Smithy waiters specification is a [*waiter.DefinitionError], matching
// [waiter.ErrInvalidDefinition], from [waiter.Definition.Validate]. What
// is suspicious but allowed, as Smithy's validator warns about it, is in
// [Catalog.Warnings].
//
// Definitions from [LoadSmithy] and [LoadBotocoreService] carry a
// [*Shapes] as their Operation.Model: [waiter.New] then keys your Go
// types' fields by the model's member names (status, not Status).
// Those from [ParseWaitable] and [LoadBotocore] carry none, and keep
// package waiter's rule for Go types.
//
// # What it deliberately does not do
//
// It does not guess. A document that does not decode, a key it does not
// know in a waiter or an acceptor (other than the "description" some real
// models use for documentation), an unknown state or matcher: each is an
// error naming where it is, never a waiter that silently never matches.
// A document of another kind than the loader reads (a botocore file given
// to LoadSmithy, say) is an error that names the loader to use.
//
// It reads JSON only: a model written in the Smithy IDL is converted to
// the JSON AST first (the Smithy CLI's smithy ast command does it). It
// reads bytes it is given and fetches nothing, and it knows no Go
// operation: the function a waiter polls is the caller's.
package model
