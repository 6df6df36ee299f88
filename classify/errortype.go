package classify

import (
	"reflect"
	"strings"
)

// ErrorMatches reports whether err matches the errorType name of an
// acceptor. name may be an absolute shape ID ("com.amazonaws.s3#NotFound"):
// only its name part after '#' counts, as the specification says.
//
// It looks along the whole error chain, through Unwrap() error and
// Unwrap() []error (so joined errors too), depth first, in two passes:
//
//  1. an error whose ErrorCode() string method returns the name (what
//     aws-sdk-go-v2's modelled and generic API errors implement);
//  2. an error whose Go type is named so (after dereferencing pointers),
//     for errors that carry no code, such as a *NotFound with no method.
//
// A nil err never matches.
func ErrorMatches(err error, name string) bool {
	if err == nil {
		return false
	}
	if i := strings.LastIndexByte(name, '#'); i >= 0 {
		name = name[i+1:]
	}
	if name == "" {
		return false
	}
	byCode := walkErrors(err, func(e error) bool {
		c, ok := e.(interface{ ErrorCode() string })
		return ok && c.ErrorCode() == name
	})
	return byCode || walkErrors(err, func(e error) bool {
		t := reflect.TypeOf(e)
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		return t.Name() == name
	})
}

// walkErrors reports whether f holds for err or any error it wraps. The
// walk is bounded so that a chain with a cycle cannot hang it.
func walkErrors(err error, f func(error) bool) bool {
	var buf [8]error // no allocation for ordinary chains
	stack := append(buf[:0], err)
	for steps := 0; len(stack) > 0 && steps < 1000; steps++ {
		e := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if e == nil {
			continue
		}
		if f(e) {
			return true
		}
		switch u := e.(type) {
		case interface{ Unwrap() error }:
			stack = append(stack, u.Unwrap())
		case interface{ Unwrap() []error }:
			for i := len(u.Unwrap()) - 1; i >= 0; i-- { // keep the order: first child first
				stack = append(stack, u.Unwrap()[i])
			}
		}
	}
	return false
}
