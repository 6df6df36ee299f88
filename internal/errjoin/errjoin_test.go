package errjoin

import (
	"errors"
	"slices"
	"testing"
)

func TestSplit(t *testing.T) {
	a, b := errors.New("a"), errors.New("b")
	for _, tt := range []struct {
		err  error
		want []error
	}{{nil, nil}, {a, []error{a}}, {errors.Join(a, b), []error{a, b}}, {errors.Join(a), []error{a}}} {
		if got := Split(tt.err); !slices.Equal(got, tt.want) {
			t.Errorf("Split(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}
