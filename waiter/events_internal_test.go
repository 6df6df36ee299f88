package waiter

import (
	"errors"
	"reflect"
	"testing"
	"time"
)

// TestKeptAttemptKeepsEveryField: an attempt kept in a Run's ring comes
// back whole, every field of Attempt set (a field added to Attempt and not
// to kept fails here).
func TestKeptAttemptKeepsEveryField(t *testing.T) {
	var a Attempt[string]
	v := reflect.ValueOf(&a).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Int, reflect.Int64:
			f.SetInt(int64(i + 1))
		case reflect.Uint8:
			f.SetUint(uint64(i + 1))
		case reflect.String:
			f.SetString(v.Type().Field(i).Name)
		case reflect.Interface:
			f.Set(reflect.ValueOf(errors.New(v.Type().Field(i).Name)))
		case reflect.Struct:
			switch f.Addr().Interface().(type) {
			case *time.Time:
				f.Set(reflect.ValueOf(time.Unix(int64(i), 0)))
			case *State:
				f.Set(reflect.ValueOf(State{Version: StateVersion, Waiter: "w", Attempts: 3}))
			default:
				t.Fatalf("field %s: no value for %s", v.Type().Field(i).Name, f.Type())
			}
		default:
			t.Fatalf("field %s: no value for %s", v.Type().Field(i).Name, f.Type())
		}
	}
	cp := a.Checkpoint
	k := keep(&a, &cp)
	if got := k.attempt(nil); !reflect.DeepEqual(got, a) {
		t.Fatalf("kept and back:\n%+v\nwant\n%+v", got, a)
	}
	live := cp
	k = keep(&a, nil)
	if got := k.attempt(&live); !reflect.DeepEqual(got, a) {
		t.Fatalf("kept with a live checkpoint and back:\n%+v\nwant\n%+v", got, a)
	}
}
