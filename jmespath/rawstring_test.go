package jmespath

import (
	"errors"
	"fmt"
	"testing"

	gojmespath "github.com/jmespath/go-jmespath"
)

// rawStringCases are raw string literals and what they denote under the
// current specification (the jmespath.test compliance suite's
// literal.json: "Backslash not followed by single quote is treated as any
// other character"). Within 'raw', \' is a quote; a backslash before any
// other character is itself and that character, so \\ is two backslashes
// (and the second does not escape a quote after it). errAt >= 0 is an
// expression that must be a *SyntaxError at that offset.
//
// goJMESPath is why go-jmespath v0.4.0, this package's differential
// reference, gives something else; empty where it agrees. Where the two
// disagree, the specification wins.
var rawStringCases = []rawStringCase{
	{expr: `'\\'`, want: `\\`, errAt: -1,
		goJMESPath: `a backslash before a backslash escapes nothing, so \' escapes the closing quote: "Unclosed delimiter"`},
	{expr: `'\''`, want: `'`, errAt: -1},
	{expr: `'a\b'`, want: `a\b`, errAt: -1},
	{expr: `'\\\''`, want: `\\'`, errAt: -1},
	{expr: `'\z'`, want: `\z`, errAt: -1},
	{expr: `'foo\'bar'`, want: `foo'bar`, errAt: -1},
	{expr: `'a\\b'`, want: `a\\b`, errAt: -1},
	{expr: `'\\\\'`, want: `\\\\`, errAt: -1,
		goJMESPath: `the last \' escapes the closing quote: "Unclosed delimiter"`},
	{expr: `'a\\'`, want: `a\\`, errAt: -1,
		goJMESPath: `\' escapes the closing quote: "Unclosed delimiter"`},
	{expr: `'\"'`, want: `\"`, errAt: -1},
	{expr: `'\n'`, want: `\n`, errAt: -1},
	{expr: `''`, want: ``, errAt: -1},
	// '\\' is a whole raw string; the quote after it opens one that is
	// never closed.
	{expr: `'\\''`, errAt: 4,
		goJMESPath: `reads \\ as two plain characters and \'' as a quote and the close: "\\'"`},
	{expr: `'\'`, errAt: 0},
	{expr: `'\\`, errAt: 0},
	{expr: `'\\\'`, errAt: 0},
	{expr: `'abc`, errAt: 0},
}

func (c rawStringCase) wantText() string {
	if c.errAt >= 0 {
		return "a syntax error"
	}
	return fmt.Sprintf("%#v", c.want)
}

type rawStringCase struct {
	expr       string
	want       string
	errAt      int
	goJMESPath string
}

// TestRawString: each raw string denotes what the specification says, or
// is a *SyntaxError naming the offset of the quote left open.
func TestRawString(t *testing.T) {
	for _, c := range rawStringCases {
		e, err := Compile(c.expr)
		if c.errAt >= 0 {
			var se *SyntaxError
			if !errors.As(err, &se) || se.Offset != c.errAt {
				t.Errorf("Compile(%s) = %v, want a *SyntaxError at offset %d", c.expr, err, c.errAt)
			}
			continue
		}
		if err != nil {
			t.Errorf("Compile(%s): %v", c.expr, err)
			continue
		}
		got, err := e.Search(nil)
		if err != nil || got != c.want {
			t.Errorf("%s = %#v, %v; want %s", c.expr, got, err, c.wantText())
		}
	}
}

// TestRawStringGoJMESPath: go-jmespath v0.4.0 agrees with the table except
// on the cases listed as its known differences, and on those it does
// differ (so that the list stays true).
func TestRawStringGoJMESPath(t *testing.T) {
	for _, c := range rawStringCases {
		got, err := gojmespath.Search(c.expr, nil)
		agrees := err == nil && c.errAt < 0 && got == c.want || err != nil && c.errAt >= 0
		switch {
		case c.goJMESPath == "" && !agrees:
			t.Errorf("go-jmespath: %s = %#v, %v; want %s: a difference not listed", c.expr, got, err, c.wantText())
		case c.goJMESPath != "" && agrees:
			t.Errorf("go-jmespath: %s = %#v, %v agrees with the specification, but is listed as a known difference", c.expr, got, err)
		}
	}
}
