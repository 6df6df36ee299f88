// Package a has doc links that do not resolve:
//
//   - [Missing], a name a does not declare;
//   - [Exported], a name only a test file declares;
//   - [T.Missing], a member T does not have;
//   - [b.Missing], a name another package of the repository does not declare;
//   - [b.U.Missing], a member its type does not have;
//   - [example.com/repo/nowhere], a package that is not there;
//   - [io.Missing], a name the standard library does not declare;
//   - [*strings.Builder.Missing], a member its type does not have;
//   - [go.uber.org/goleak.Missing], a name a required module does not declare.
//
// These resolve: [T], [*T], [T.M], [T.Field], [T.Promoted], [T.Read],
// [T.Inner], [I.Method], [Alias.M], [V], [C], [F], [b], [b.U], [b.U.M],
// [example.com/repo/b], [example.com/repo/b.U.M], [io], [io.Reader],
// [strings.Builder.Len], [context.Context.Done], [encoding/json.Decoder],
// [go.uber.org/goleak.VerifyTestMain], [a.T].
// This is not checked: [github.com/nobody/nothing.Missing].
// These are not links: [0], x[i], [i], []byte, [a, b], [lowercase], [Text].
//
//	[Missing] in a code block is no link.
//
// [Text]: https://example.com
package a

import (
	"io"

	"example.com/repo/b"
)

// T is a type.
type T struct {
	// Field is a field; [Gone] is not declared.
	Field int
	Inner
	io.Reader
}

// M is a method; so is not [T.Gone].
func (T) M() {}

// Inner is embedded in [T].
type Inner struct{ Promoted int }

// I is an interface.
type I interface {
	// Method is a method.
	Method()
}

// Alias is [T].
type Alias = T

// V, C and F are declared.
var V b.U

const C = 1

func F() {}
