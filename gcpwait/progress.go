package gcpwait

import (
	"reflect"
)

// A metadata's progress, as Google's APIs report it: a progress percent
// (ProgressPercent, an int32 from 0 to 100) on the metadata, or on its
// Progress (Spanner's OperationProgress), or the average of those of its
// Progress list (one per statement of a DDL); or Compute Engine's
// operation's own Progress, an int32 percent.
type progressPercent interface{ GetProgressPercent() int32 }

// progressOf returns the reader of the progress a metadata of type M
// reports, a fraction from 0 to 1 (negative for none); nil when M has
// none. It looks for the methods once, by M's type.
func progressOf[M any]() func(M) float64 {
	t := reflect.TypeFor[M]()
	if t.Implements(reflect.TypeFor[progressPercent]()) {
		return func(m M) float64 {
			if isNil(m) {
				return -1
			}
			return percent(any(m).(progressPercent).GetProgressPercent())
		}
	}
	get, ok := t.MethodByName("GetProgress")
	if !ok || get.Type.NumIn() != 1 || get.Type.NumOut() != 1 {
		return nil
	}
	read := progressReader(get.Type.Out(0))
	if read == nil {
		return nil
	}
	return func(m M) float64 {
		if isNil(m) {
			return -1
		}
		return read(get.Func.Call([]reflect.Value{reflect.ValueOf(m)})[0])
	}
}

// progressReader returns the reader of a GetProgress result of type t:
// an int32 percent, a progressPercent, or a list of them; nil for any
// other type.
func progressReader(t reflect.Type) func(reflect.Value) float64 {
	pp := reflect.TypeFor[progressPercent]()
	switch {
	case t.Kind() == reflect.Int32:
		return func(v reflect.Value) float64 { return percent(int32(v.Int())) }
	case t.Implements(pp):
		return func(v reflect.Value) float64 {
			if v.Kind() == reflect.Pointer && v.IsNil() {
				return -1
			}
			return percent(v.Interface().(progressPercent).GetProgressPercent())
		}
	case t.Kind() == reflect.Slice && t.Elem().Implements(pp):
		return func(v reflect.Value) float64 {
			sum, n := 0.0, 0
			for i := range v.Len() {
				e := v.Index(i)
				if e.Kind() == reflect.Pointer && e.IsNil() {
					continue
				}
				if p := percent(e.Interface().(progressPercent).GetProgressPercent()); p >= 0 {
					sum, n = sum+p, n+1
				}
			}
			if n == 0 {
				return -1
			}
			return sum / float64(n)
		}
	}
	return nil
}

// percent is a percent from 0 to 100 as a fraction, or -1 for none.
func percent(p int32) float64 {
	if p < 0 || p > 100 {
		return -1
	}
	return float64(p) / 100
}

// isNil reports a nil pointer (or interface) M, whose methods may not be
// callable.
func isNil[M any](m M) bool {
	v := reflect.ValueOf(m)
	if !v.IsValid() {
		return true
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Map, reflect.Slice:
		return v.IsNil()
	}
	return false
}
