package jmespath

import (
	"encoding/json"
	"strings"
	"testing"

	gojmespath "github.com/jmespath/go-jmespath"
)

func seedCorpus(f *testing.F) {
	for _, suite := range complianceDirs {
		for _, file := range loadCompliance(f, suite.dir) {
			for _, s := range file.suites {
				given, _ := json.Marshal(s.Given)
				for _, c := range s.Cases {
					f.Add(c.Expression, string(given))
				}
			}
		}
	}
	for _, c := range rawStringCases {
		f.Add(c.expr, `{"a": "\\\\"}`)
	}
}

// FuzzCompile: any expression compiles or is refused with an error; any
// that compiles evaluates on a document without panicking.
func FuzzCompile(f *testing.F) {
	seedCorpus(f)
	f.Fuzz(func(t *testing.T, expr, doc string) {
		e, err := Compile(expr)
		if err != nil {
			return
		}
		var v any
		if json.Unmarshal([]byte(doc), &v) != nil {
			v = nil
		}
		e.Search(v)
		if m, ok := mirrorOf(fromJSON(v)); ok {
			e.Search(m.Interface())
		}
	})
}

// knownFault reports expressions where go-jmespath v0.4.0 is wrong, so a
// difference from it is expected: it panics on a call of a non-name
// (@(foo)), accepts [:::] and other slices of four parts, and reads a
// backslash before a backslash in a raw string as nothing special, so that
// '\\' and 'a\\' are unterminated (rawStringCases lists each such
// difference with the specification's answer); a bare &expression is a
// value it returns as {}.
func knownFault(expr string) bool {
	return strings.ContainsAny(expr, `(&\`) || strings.Contains(expr, ":::")
}

// FuzzDifferential: on JSON values, this engine and go-jmespath agree on
// whether an expression compiles and on its result, except where
// go-jmespath has a known fault.
func FuzzDifferential(f *testing.F) {
	seedCorpus(f)
	f.Fuzz(func(t *testing.T, expr, doc string) {
		// An object's members have no order in JMESPath (go-jmespath
		// reads Go maps in random order), so a result that depends on
		// it (foo.* | [0]) cannot be compared; wildcard.json of the
		// compliance suite covers these.
		if knownFault(expr) || len(expr) > 200 || strings.Contains(expr, "*") || strings.Contains(expr, "values") || strings.Contains(expr, "keys") {
			return
		}
		var v any
		if json.Unmarshal([]byte(doc), &v) != nil {
			return
		}
		theirs, theirErr := func() (res any, err error) {
			defer func() {
				if r := recover(); r != nil {
					err = errPanic
				}
			}()
			return gojmespath.Search(expr, v)
		}()
		if theirErr == errPanic {
			return
		}
		e, err := Compile(expr)
		if err != nil {
			// go-jmespath accepts much the grammar refuses ({a:b c:d}, *[0,
			// slices with step 0 on non-arrays): a refusal of ours is
			// checked by the compliance suite's syntax cases, not here.
			return
		}
		ours, err := e.Search(v)
		if (err != nil) != (theirErr != nil) {
			if theirErr != nil && strings.Contains(theirErr.Error(), "nvalid") {
				return // go-jmespath's type errors are raised on fewer paths than the specification's
			}
			t.Fatalf("%q on %s: error %v, go-jmespath error %v", expr, doc, err, theirErr)
		}
		if err == nil {
			a, _ := json.Marshal(ours)
			b, _ := json.Marshal(theirs)
			if string(a) != string(b) {
				t.Fatalf("%q on %s: %s, go-jmespath %s", expr, doc, a, b)
			}
		}
	})
}

var errPanic = jsonErr("go-jmespath panicked")

type jsonErr string

func (e jsonErr) Error() string { return string(e) }
