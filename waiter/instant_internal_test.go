package waiter

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// TestInstantIsTimeArithmetic checks that an instant held as a time and a
// duration after it compares and adds as time.Time does with the instant
// itself, saturation included: the final-call and late checks depend on it.
func TestInstantIsTimeArithmetic(t *testing.T) {
	mono := time.Now()
	wall := mono.Round(0) // no monotonic reading, as a State loaded from JSON
	far := time.Unix(1<<40, 0)
	past := time.Unix(-1<<40, 0)
	times := []time.Time{mono, wall, mono.Add(time.Hour), wall.Add(-time.Hour), far, past, {}}
	durs := []time.Duration{0, 1, time.Millisecond, time.Hour, -time.Second, math.MaxInt64 / 2, math.MaxInt64, math.MinInt64 + 1}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		durs = append(durs, time.Duration(r.Int64N(int64(100*time.Hour))-int64(50*time.Hour)))
	}
	for _, at := range times {
		for _, after := range durs {
			if after < 0 || after > time.Duration(math.MaxInt64/2) {
				continue // a latency: never negative, never near the end of Duration
			}
			now := instant{at, after}
			want := at.Add(after)
			if got := now.time(); !got.Equal(want) {
				t.Fatalf("instant{%v, %v}.time() = %v, want %v", at, after, got, want)
			}
			for _, u := range times {
				if got, want := now.until(u), u.Sub(want); got != want {
					t.Errorf("instant{%v, %v}.until(%v) = %v, want %v", at, after, u, got, want)
				}
				if got, want := now.since(u), want.Sub(u); got != want {
					t.Errorf("instant{%v, %v}.since(%v) = %v, want %v", at, after, u, got, want)
				}
			}
			for _, d := range durs {
				if d < 0 || d > time.Duration(math.MaxInt64/4) {
					continue // a delay
				}
				if got, want := now.add(d), want.Add(d); !got.Equal(want) {
					t.Errorf("instant{%v, %v}.add(%v) = %v, want %v", at, after, d, got, want)
				}
			}
		}
	}
}

func TestAddSat(t *testing.T) {
	for _, c := range []struct{ a, b, want time.Duration }{
		{1, 2, 3},
		{5, 0, 5},
		{math.MaxInt64, 0, math.MaxInt64},
		{math.MaxInt64, 1, math.MaxInt64},
		{math.MaxInt64 - 1, 1, math.MaxInt64},
		{math.MaxInt64 - 1, 2, math.MaxInt64},
		{math.MinInt64, -1, math.MinInt64},
		{math.MinInt64 + 1, -2, math.MinInt64},
		{math.MinInt64, math.MaxInt64, -1},
		{-3, 1, -2},
	} {
		if got := addSat(c.a, c.b); got != c.want {
			t.Errorf("addSat(%d, %d) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
