package waitname

import (
	"net/netip"
	"testing"
)

type region string

type key struct{ id int }

func TestFor(t *testing.T) {
	for _, c := range []struct {
		in   any
		n    int
		want string
	}{
		{"i-123", 1, "i-123"},
		{region("eu-west-1"), 2, "eu-west-1"},
		{42, 3, "42"},
		{uint8(7), 4, "7"},
		{netip.MustParseAddr("10.0.0.1"), 5, "10.0.0.1"}, // a fmt.Stringer
		{key{9}, 6, "#6"},
		{&key{9}, 7, "#7"},
		{nil, 8, "#8"},
		{3.5, 9, "#9"},
	} {
		if got := For(c.in, c.n); got != c.want {
			t.Errorf("For(%#v, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}
