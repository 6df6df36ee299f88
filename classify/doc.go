// Package classify decides what one attempt's outcome means: which acceptor
// of a waiter matches it ([Set.Match]), and whether an error is worth a
// retry ([Classify]).
//
//	set, err := classify.Compile[*DescribeTableInput, *DescribeTableOutput](def.Acceptors)
//	m := set.Match(in, out, callErr) // m.State: success, failure or retry; m.Index: which acceptor
//	v := classify.Classify(callErr)  // v.Safety, v.Throttle, v.RetryAfter, v.Code...
//
// A failed call's facts (its code, HTTP status, retry-after hint,
// throttle, timeout, whether it may be made again) reach [Classify]
// through one value, a [*CallError], that wraps the vendor's own error;
// [RetryAfterHeader] reads a response's hint in each form a cloud sends.
// Errors that carry the facts in methods of their own (aws-sdk-go-v2's
// ErrorCode, net.Error's Timeout) are read too.
//
// Acceptors follow the Smithy waiters specification: a [State], a
// [Matcher] (output, inputOutput, success or errorType) and, on failure
// acceptors, an optional message. [Compile] turns a list of them into a
// [Set] for an operation's Go input and output types: every JMESPath
// expression is compiled once, checked against those types (a name the
// type lacks, a function's argument of the wrong type, a comparator the
// result can never match: an error before any call is made, naming the
// part at fault and its offset), and then evaluated on each attempt.
// [CheckTypes] checks acceptors against a model's shapes instead.
//
// JMESPath runs on package [github.com/waitable/waitable/jmespath]: Go
// values are read in place through the specification's data model, as
// aws-sdk-go-v2 shapes them: pointers are followed, typed string enums are
// strings, every numeric kind is a number, time.Time is epoch seconds,
// []byte is base64, a nil slice is an empty array. Struct fields are
// keyed by package jmespath's rule ("Struct fields and their keys"): the
// member names of a model where [Compile] is given them
// ([WithMemberNames]; the waiter package gives those of a definition's
// model), else jmespath or json tags, else Go names; an expression's name
// also finds an untagged field by its Go name (status finds Status). A path
// such as Reservations[].Instances[].State.Name runs on a plan of fields
// made once per Go type, allocating nothing; every other expression
// (functions, filters, comparisons) runs on the same values through the
// same engine's evaluator.
//
// What the package deliberately does not do:
//   - It does not call operations, sleep or retry: it only judges an
//     outcome. The waiter and retry packages act on its verdicts.
//   - It does not panic on bad input. An expression that does not parse,
//     or nests deeper than package [jmespath] allows, is an error at [Compile];
//     one that fails on a particular value (a function given the wrong
//     type, a cyclic value read whole) does not match, and the failure is
//     reported in [Match.Err].
//   - It does not make an unmatched error terminal or retryable: [Match]
//     reports the specification's implicit state, and the waiter decides,
//     consulting [Classify].
package classify
