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
// over a pointer to a struct runs as pointer arithmetic planned once per Go
// type, without allocating. Every other expression (functions, filters,
// comparisons, multi-selects) runs on the same data model through one
// evaluator.
//
// The grammar and the functions are those of the JMESPath specification
// (jmespath.org), checked against its compliance suite. Expressions nest at
// most MaxDepth levels; an evaluation that would read more than MaxNodes
// values whole (a cycle of pointers, or widely shared pointers, under
// to_string or ==) fails with ErrTooLarge instead of running without end.
package jmespath
