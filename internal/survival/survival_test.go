package survival

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const s = time.Second

// TestFitHazen: durations seen between polls, disjoint, unsmoothed: the
// i-th of n sits at (i-0.5)/n, its mass spread evenly over its interval,
// never at a poll's time.
func TestFitHazen(t *testing.T) {
	obs := []Interval{{30 * s, 60 * s}, {90 * s, 120 * s}, {0, 10 * s}, {200 * s, 260 * s}}
	d := fitWith(obs, 0)
	for _, c := range []struct {
		at   time.Duration
		want float64
	}{{5 * s, 0.125}, {10 * s, 0.25}, {20 * s, 0.25}, {45 * s, 0.375}, {105 * s, 0.625}, {230 * s, 0.875}, {260 * s, 1}, {time.Hour, 1}} {
		if got := d.CDF(c.at); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("CDF(%v) = %v, want %v", c.at, got, c.want)
		}
	}
	if q, ok := d.Quantile(0.5); !ok || q != 60*s {
		t.Errorf("Quantile(0.5) = %v, %v; want 60s (where the second ends), true", q, ok)
	}
}

// TestFitTurnbull: overlapping intervals put their mass where they meet
// (Turnbull's innermost intervals): (0,10], (5,15] and (20,30] give half
// the mass to (5,10] and half to (20,30].
func TestFitTurnbull(t *testing.T) {
	d := fitWith([]Interval{{0, 10 * s}, {5 * s, 15 * s}, {20 * s, 30 * s}}, 0)
	for _, c := range []struct {
		at   time.Duration
		want float64
	}{{5 * s, 0}, {10 * s, 2.0 / 3}, {15 * s, 2.0 / 3}, {25 * s, 5.0 / 6}, {30 * s, 1}} {
		if got := d.CDF(c.at); math.Abs(got-c.want) > 1e-6 {
			t.Errorf("CDF(%v) = %v, want %v", c.at, got, c.want)
		}
	}
}

// TestFitCensored: a wait known only to be longer than every wait seen
// done leaves its mass unknown: Top is below 1, and quantiles above it do
// not exist; one longer than some only moves its mass to the later ones.
func TestFitCensored(t *testing.T) {
	d := fitWith([]Interval{{10 * s, 20 * s}, {30 * s, 40 * s}, {50 * s, Censored}}, 0)
	if top := d.Top(); math.Abs(top-2.0/3) > 1e-9 {
		t.Errorf("Top = %v, want 2/3", top)
	}
	if _, ok := d.Quantile(0.9); ok {
		t.Error("Quantile(0.9) exists above Top")
	}
	d = fitWith([]Interval{{10 * s, 20 * s}, {30 * s, 40 * s}, {25 * s, Censored}}, 0)
	if top := d.Top(); math.Abs(top-1) > 1e-9 {
		t.Errorf("Top = %v with the censored one before the last: want 1", top)
	}
	if got := d.CDF(20 * s); math.Abs(got-1.0/3) > 1e-6 {
		t.Errorf("CDF(20s) = %v, want 1/3 (its mass goes to the later one)", got)
	}
	if !fitWith([]Interval{{10 * s, Censored}}, 0).Empty() {
		t.Error("only censored waits: not empty")
	}
	if !Fit(nil).Empty() {
		t.Error("Fit(nil) not empty")
	}
}

// TestRemaining: the time left is a quantile of the durations longer
// than the last poll that saw the wait pending, less the time elapsed;
// with progress, the share not done of a whole wait's.
func TestRemaining(t *testing.T) {
	d := fitWith([]Interval{{90 * s, 100 * s}, {190 * s, 200 * s}, {290 * s, 300 * s}, {390 * s, 400 * s}, {490 * s, 500 * s}}, 0)
	b, ok := d.Remaining(0, 0, 0)
	if !ok || b.P10 != 95*s || b.P50 != 295*s || b.P90 != 495*s {
		t.Errorf("Remaining at the start = %+v, %v; want 95s, 295s, 495s", b, ok)
	}
	b, ok = d.Remaining(300*s, 310*s, 0)
	if !ok || b.P10 != 82*s || b.P50 != 90*s || b.P90 != 188*s {
		t.Errorf("Remaining past the third = %+v, %v; want 82s, 90s, 188s", b, ok)
	}
	b, ok = d.Remaining(0, 0, 0.5)
	if !ok || b.P50 != 147500*time.Millisecond {
		t.Errorf("Remaining with half done = %+v, %v; want p50 half of 295s", b, ok)
	}
	if b, ok = d.Remaining(0, 0, 1); !ok || b != (Band{}) {
		t.Errorf("Remaining all done = %+v, %v; want zeros", b, ok)
	}
	if _, ok = d.Remaining(500*s, 510*s, 0); ok {
		t.Error("Remaining past every duration known: ok")
	}
	if b, ok = d.Remaining(0, time.Hour, 0); !ok || b != (Band{}) {
		t.Errorf("Remaining with elapsed past all = %+v, %v; want zeros, never negative", b, ok)
	}
}

// TestNext: each poll has the chance p of seeing the end, given the
// polls before saw nothing; past what is known, none.
func TestNext(t *testing.T) {
	d := fitWith([]Interval{{0, 100 * s}}, 0) // uniform on (0, 100s]
	at, ok := d.Next(0, 0.1)
	if !ok || at != 10*s {
		t.Errorf("Next(0, 0.1) = %v, %v; want 10s", at, ok)
	}
	at, ok = d.Next(50*s, 0.1)
	if !ok || at != 55*s {
		t.Errorf("Next(50s, 0.1) = %v, %v; want 55s (10%% of the 50s left)", at, ok)
	}
	if _, ok := d.Next(100*s, 0.1); ok {
		t.Error("Next past every duration: ok")
	}
	if g := d.Gap(0, 0, 0.5, 10*s, 20*s, time.Minute); g != 20*s {
		t.Errorf("Gap = %v, want 20s (kept within the bounds)", g)
	}
	if g := d.Gap(100*s, 100*s, 0.5, 10*s, 20*s, time.Minute); g != time.Minute {
		t.Errorf("Gap past what is known = %v, want the fallback", g)
	}
}

// TestRecent: a service that became faster (or slower) keeps only the
// waits of its new regime, once three of them are past every older one.
func TestRecent(t *testing.T) {
	slow := func(n int) []Interval {
		var obs []Interval
		for i := range n {
			obs = append(obs, Interval{time.Duration(880+i) * s, time.Duration(910+i) * s})
		}
		return obs
	}
	fast := []Interval{{230 * s, 250 * s}, {220 * s, 240 * s}, {260 * s, 270 * s}, {210 * s, 240 * s}}
	for k := range 5 {
		obs := append(slow(10), fast[:k]...)
		want := len(obs)
		if k >= MinRegime {
			want = k
		}
		if got := len(Recent(obs)); got != want {
			t.Errorf("Recent(10 slow, %d fast) keeps %d, want %d", k, got, want)
		}
	}
	back := append(append(slow(10), fast...), slow(3)...)
	if got := Recent(back); len(got) != len(back) {
		t.Errorf("slow again: Recent keeps %d, want all %d (the old regime counts again)", len(got), len(back))
	}
	mixed := []Interval{{10 * s, 20 * s}, {100 * s, 110 * s}, {15 * s, 25 * s}, {105 * s, 115 * s}, {12 * s, 22 * s}, {102 * s, 112 * s}}
	if got := len(Recent(mixed)); got != len(mixed) {
		t.Errorf("two kinds, mixed: Recent keeps %d, want all %d", got, len(mixed))
	}
}

// TestDurationsQuantile: Hazen's rule; a censored wait is longer than
// all.
func TestDurationsQuantile(t *testing.T) {
	ds := Durations{40 * s, 10 * s, 30 * s, 20 * s}
	for _, c := range []struct {
		p    float64
		want time.Duration
	}{{0, 10 * s}, {0.125, 10 * s}, {0.5, 25 * s}, {0.875, 40 * s}, {0.95, 40 * s}} {
		if got, ok := ds.Quantile(c.p); !ok || got != c.want {
			t.Errorf("Quantile(%v) = %v, want %v", c.p, got, c.want)
		}
	}
	if got, _ := append(ds, Censored).Quantile(0.95); got != Censored {
		t.Errorf("with a timeout: Quantile(0.95) = %v, want Censored", got)
	}
	var twenty Durations
	for i := range 20 {
		twenty = append(twenty, time.Duration(i+1)*s)
	}
	if got, _ := twenty.Quantile(0.95); got != 19500*time.Millisecond {
		t.Errorf("of 1s..20s: Quantile(0.95) = %v, want 19.5s", got)
	}
	if _, ok := (Durations{}).Quantile(0.5); ok {
		t.Error("no durations: ok")
	}
}

// TestCalibration: on durations drawn from log-normal distributions, seen
// between polls 30s apart, the band from the 10th to the 90th percentile
// of the time left holds the truth 70% to 90% of the time, after 10 past
// waits as after 20, and its median misses by no more than the mean of
// the past waits' ends does.
func TestCalibration(t *testing.T) {
	for _, c := range []struct {
		name   string
		median time.Duration
		sigma  float64
		n      int
	}{{"narrow/10", 570 * s, 0.15, 10}, {"narrow/20", 570 * s, 0.15, 20}, {"wide/10", 312 * s, 0.45, 10}, {"wide/20", 312 * s, 0.45, 20}} {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, 2))
			draw := func() time.Duration {
				return time.Duration(float64(c.median) * math.Exp(c.sigma*r.NormFloat64()))
			}
			seen := func(d time.Duration) Interval { // polls every 30s from a random phase
				phase := time.Duration(r.Int64N(int64(30 * s)))
				lo := (d-phase)/(30*s)*(30*s) + phase
				if lo > d {
					lo -= 30 * s
				}
				return Interval{max(lo, 0), lo + 30*s}
			}
			in, all := 0, 0
			var errs, naive []float64
			for range 2000 {
				var obs []Interval
				mean := time.Duration(0)
				for range c.n {
					o := seen(draw())
					obs = append(obs, o)
					mean += o.Hi / time.Duration(c.n)
				}
				d := Fit(obs)
				truth := draw()
				for at := time.Duration(0); at < truth; at += 30 * s {
					b, ok := d.Remaining(at, at, 0)
					if !ok {
						break
					}
					left := truth - at
					all++
					if b.P10 <= left && left <= b.P90 {
						in++
					}
					errs = append(errs, math.Abs((b.P50 - left).Seconds()))
					naive = append(naive, math.Abs((max(mean-at, 0) - left).Seconds()))
				}
			}
			cover := float64(in) / float64(all)
			if cover < 0.7 || cover > 0.9 {
				t.Errorf("the band holds the truth %.1f%% of %d times, want 70%% to 90%%", 100*cover, all)
			}
			if e, n := median(errs), median(naive); e > n {
				t.Errorf("the median misses by %.1fs (median), the mean of the past by %.1fs: want no more", e, n)
			}
		})
	}
}

func median(v []float64) float64 {
	s := slices.Sorted(slices.Values(v))
	return s[len(s)/2]
}

// FuzzFit: whatever intervals it is given (negative, reversed, censored,
// years), Fit returns a valid distribution within bounded time and
// memory, its quantiles do not decrease, and the time left is never
// negative nor NaN, its percentiles in order.
func FuzzFit(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8}, 0.3, 100.0)
	f.Add([]byte{0, 0, 0, 0}, 0.0, 0.0)
	f.Add([]byte{255, 255, 1, 0, 255, 0, 255, 255}, 1.5, -1.0)
	f.Fuzz(func(t *testing.T, raw []byte, progress, at float64) {
		var obs []Interval
		for i := 0; i+1 < len(raw) && len(obs) < 2*MaxFit; i += 2 {
			lo := time.Duration(int8(raw[i])) * time.Duration(math.Pow(10, float64(raw[i]%12))) // negative to years
			hi := lo + time.Duration(raw[i+1])*time.Second
			if raw[i+1] == 255 {
				hi = Censored
			}
			if raw[i+1] == 254 {
				hi = lo - time.Second
			}
			obs = append(obs, Interval{lo, hi})
		}
		d := Fit(obs)
		if !d.Valid() {
			t.Fatalf("Fit(%v) = %+v, not valid", obs, d)
		}
		if len(d.At) > 4*MaxFit {
			t.Fatalf("Fit kept %d points of %d intervals", len(d.At), len(obs))
		}
		last := time.Duration(-1)
		for p := 0.0; p <= 1; p += 0.05 {
			q, ok := d.Quantile(p)
			if !ok {
				break
			}
			if q < last || q < 0 {
				t.Fatalf("Quantile(%v) = %v after %v", p, q, last)
			}
			last = q
		}
		if math.IsNaN(at) || math.IsInf(at, 0) {
			at = 0
		}
		elapsed := time.Duration(math.Mod(math.Abs(at), 1e6)) * time.Second
		b, ok := d.Remaining(elapsed/2, elapsed, progress)
		if ok && (b.P10 < 0 || b.P10 > b.P50 || b.P50 > b.P90) {
			t.Fatalf("Remaining = %+v: negative or out of order", b)
		}
		if next, ok := d.Next(elapsed, 0.08); ok && next < elapsed {
			t.Fatalf("Next(%v) = %v, before it", elapsed, next)
		}
	})
}

// BenchmarkFit: what a wait spends learning from a full history (20
// waits seen between polls 30s apart), once each time the history
// changes.
func BenchmarkFit(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	var obs []Interval
	for range 20 {
		d := time.Duration(float64(570*s) * math.Exp(0.15*r.NormFloat64()))
		obs = append(obs, Interval{d - 30*s, d})
	}
	b.ReportAllocs()
	for b.Loop() {
		Fit(obs)
	}
}
