// Package waitname names a wait of a fan-out after its input, as errors
// and progress show it: the same name in process (waiter.Go, WaitAll)
// and in a durable group (package temporal).
package waitname

import (
	"fmt"
	"reflect"
)

// For names the nth wait of a fan-out (from 1) after its input in: its
// text for strings, integers and fmt.Stringers, else "#n".
func For(in any, n int) string {
	switch v := in.(type) {
	case string:
		return v
	case fmt.Stringer:
		return v.String()
	}
	switch reflect.ValueOf(in).Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.String:
		return fmt.Sprint(in)
	}
	return fmt.Sprintf("#%d", n)
}
