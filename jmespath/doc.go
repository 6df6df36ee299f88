// Package jmespath evaluates JMESPath expressions on Go values, in place,
// through the Smithy JMESPath data model: the model a Smithy waiter's
// output and inputOutput matchers read.
//
//	e, err := jmespath.Compile("Reservations[].Instances[].State.Name")
//	v, err := e.Eval(out) // out is a *ec2.DescribeInstancesOutput, or any Go value
//	v.Elements(func(name jmespath.Value) bool { … })
//
// Nothing is converted that the expression does not reach: a field is read
// where it lies, and a path of fields, indexes, projections and flattens
// over static Go types (a pointer to a struct, a struct) is planned once
// per Go type, its fields found by name then, and runs without allocating.
// Every other expression (functions, filters, comparisons, multi-selects)
// runs on the same data model through one evaluator.
//
// The Smithy JMESPath data model for Go values, as this package reads them:
//
//	Go value                                  JMESPath
//	nil pointer, nil interface                null
//	bool                                      boolean
//	string and string kinds (typed enums)     string
//	[]byte                                    string (standard base64)
//	ints, uints, floats, *big.Int, *big.Float number (a float32 as its shortest decimal: 1.2, not 1.2000000476837158)
//	time.Time                                 number: epoch seconds with fraction
//	slice, array (a nil slice too)            array (a nil slice is [], not null)
//	map with string keys (a nil map too)      object
//	struct                                    object of its exported fields, keyed as below
//	a Smithy document (MarshalSmithyDocument) the JSON it marshals to
//	an aws-sdk-go-v2 union member             object of one key, the member's name
//	anything else (chan, func, complex)       null
//
// The grammar and the functions are those of the JMESPath specification
// (jmespath.org), checked against its compliance suite.
//
// # Limits
//
// An expression nests at most 256 levels (parentheses, brackets,
// sub-expressions, operators); a deeper one is a [*SyntaxError]. Real
// waiters nest fewer than 10. An evaluation that reads a value whole
// (comparing with ==, to_string, sort, a result returned by [Expr.Search])
// reads at most 1,048,576 (2^20) values, nested at most 512 levels deep;
// a larger or deeper one (a cycle of pointers, or pointers shared so widely
// that the value expands exponentially) fails with [ErrTooLarge] instead of
// running without end.
//
// # Struct fields and their keys
//
// An object read from a struct has a member for each exported field
// (promoted fields too; an embedded struct itself is not one), listed
// (by keys(), values(), the * projection, length(), merge(), to_string, ==
// and in results) under a key:
//
//   - with [WithMemberNames], the member name the model gives the field; a
//     field the model gives "-" is no member: it is neither listed nor
//     found;
//   - else the field's `jmespath:"key"` tag, whatever it holds;
//   - else the name part of its `json:"name,opts"` tag; a field tagged
//     `json:"-"` is no member;
//   - else its Go name.
//
// An expression's name finds the member whose key it is (one whose key is
// not its Go name first); failing that, a field that no tag renames whose
// Go name is the name with its first letter upper-cased (Smithy's member
// "status" finds aws-sdk-go-v2's field Status). Map keys are found
// exactly. [Fields] and [Lookup] apply the same rule to a struct type.
package jmespath
