// Package b does not import a, but names it: [a.T] resolves, [a.Nope] does
// not.
package b

// U is a type with a method [U.M].
type U struct{}

// M is a method.
func (U) M() {}
