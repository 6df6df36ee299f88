package bench

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"time"
)

// Side is one implementation measured in a row: Op runs n operations of
// the row's workload (a call, a run, a match).
type Side struct {
	Name string
	Op   func(n int)
}

// Sample is one side's measurements over the rounds of a row, per
// operation: process CPU time (user + system, from getrusage, so it counts
// the garbage collector and every other thread of the process) and wall
// time, one value per round, and the heap allocations of one extra run.
type Sample struct {
	Name          string
	CPU, Wall     []float64 // ns per op, one per round
	Allocs, Bytes float64   // per op
	N             int       // ops per round
}

// MedianCPU is the median CPU time per op.
func (s Sample) MedianCPU() float64 { return median(s.CPU) }

// Config is how long and how often a row measures.
type Config struct {
	Rounds int           // measurements per side, interleaved
	Target time.Duration // CPU time one measurement aims at
}

// Measure runs the sides interleaved: in each round every side runs once,
// in an order rotated from round to round so that no side always follows
// the same one. Each side first finds the number of ops that takes about
// c.Target of CPU time.
func Measure(c Config, sides ...Side) []Sample {
	out := make([]Sample, len(sides))
	for i, s := range sides {
		out[i] = Sample{Name: s.Name, N: calibrate(s, c.Target)}
		out[i].Allocs, out[i].Bytes = allocsPerOp(s, out[i].N)
	}
	for r := range c.Rounds {
		for k := range sides {
			i := (k + r) % len(sides)
			cpu, wall := timeOps(sides[i], out[i].N)
			out[i].CPU = append(out[i].CPU, cpu)
			out[i].Wall = append(out[i].Wall, wall)
		}
	}
	return out
}

// calibrate returns the ops that take about target of CPU time.
func calibrate(s Side, target time.Duration) int {
	n := 1
	for {
		cpu, _ := timeOps(s, n)
		total := cpu * float64(n)
		if total >= float64(target)/4 || n >= 1<<30 {
			want := int(float64(n) * float64(target) / math.Max(total, 1))
			return max(1, min(want, 4*n))
		}
		n *= 4
	}
}

// timeOps runs n ops and returns CPU and wall nanoseconds per op.
func timeOps(s Side, n int) (cpu, wall float64) {
	runtime.GC()
	c0, w0 := cpuTime(), time.Now()
	s.Op(n)
	c1, w1 := cpuTime(), time.Now()
	return float64(c1-c0) / float64(n), float64(w1.Sub(w0)) / float64(n)
}

// allocsPerOp counts the heap allocations of n ops (all of them: the
// runtime/metrics counter leaves out tiny allocations).
func allocsPerOp(s Side, n int) (allocs, bytes float64) {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	s.Op(n)
	runtime.ReadMemStats(&after)
	return float64(after.Mallocs-before.Mallocs) / float64(n), float64(after.TotalAlloc-before.TotalAlloc) / float64(n)
}

// Ratio is how many times more CPU per op b takes than a, round by round:
// the median and the range over the rounds.
type Ratio struct{ Median, Min, Max float64 }

// RatioOf computes b/a from the CPU times of the same rounds.
func RatioOf(a, b Sample) Ratio {
	rs := make([]float64, min(len(a.CPU), len(b.CPU)))
	for i := range rs {
		rs[i] = b.CPU[i] / a.CPU[i]
	}
	return Ratio{Median: median(rs), Min: slices.Min(rs), Max: slices.Max(rs)}
}

// Overlaps reports whether the ratio's range includes 1: the two sides
// are not told apart by this measurement.
func (r Ratio) Overlaps() bool { return r.Min <= 1 && r.Max >= 1 }

func (r Ratio) String() string {
	s := fmt.Sprintf("%s× [%s–%s]", ratioFmt(r.Median), ratioFmt(r.Min), ratioFmt(r.Max))
	if r.Overlaps() {
		s += " (spread overlaps 1.0×)"
	}
	return s
}

func ratioFmt(x float64) string {
	switch {
	case x >= 10:
		return fmt.Sprintf("%.0f", x)
	case x >= 1:
		return fmt.Sprintf("%.2f", x)
	}
	return fmt.Sprintf("%.3f", x)
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Sorted(slices.Values(xs))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// spread formats a sample's CPU per op as "median [min–max]".
func spread(xs []float64) string {
	if len(xs) == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%s [%s–%s]", nsFmt(median(xs)), nsFmt(slices.Min(xs)), nsFmt(slices.Max(xs)))
}

// nsFmt formats nanoseconds with a unit.
func nsFmt(ns float64) string {
	switch {
	case ns >= 1e9:
		return fmt.Sprintf("%.2f s", ns/1e9)
	case ns >= 1e6:
		return fmt.Sprintf("%.2f ms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.2f µs", ns/1e3)
	}
	return fmt.Sprintf("%.1f ns", ns)
}
