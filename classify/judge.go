package classify

import (
	"slices"
	"strconv"

	"github.com/waitable/waitable/jmespath"
)

// maxShared is how many acceptors one pass over a path judges: a Match
// records what a pass found in a bit per acceptor, so acceptors from this
// index on, which real waiters never reach, are judged one at a time.
const maxShared = 64

// pathGroup is a path acceptor and the later acceptors that read the same
// document (output, or {input, output}) by the same expression: one
// evaluation of the path, and one pass over its elements, judge them all.
// Bit k of a mask stands for tests[k].
type pathGroup struct {
	tests  []pathTest // the acceptor itself first
	all    uint64     // the allStringEquals tests
	values []expected // the strings the allStringEquals and anyStringEquals tests expect
}

// pathTest is one path acceptor's comparison.
type pathTest struct {
	index      int // the acceptor's index
	comparator Comparator
	expected   string
}

// expected is a string that allStringEquals or anyStringEquals tests
// expect, and which tests do.
type expected struct {
	s     string
	tests uint64
}

// groupPaths gives each path acceptor of cs its group (see pathGroup):
// the later acceptors in it are of index below maxShared.
func groupPaths(cs []compiled) {
	for i := range cs {
		c := &cs[i]
		if c.expr == nil {
			continue
		}
		g := &pathGroup{}
		for j := i; j < max(i+1, min(len(cs), maxShared)); j++ {
			d := &cs[j]
			if d.expr == nil || d.path.Path != c.path.Path || (d.Matcher.InputOutput != nil) != (c.Matcher.InputOutput != nil) {
				continue
			}
			bit := uint64(1) << len(g.tests)
			g.tests = append(g.tests, pathTest{j, d.path.Comparator, d.path.Expected})
			switch d.path.Comparator {
			case AllStringEquals:
				g.all |= bit
			case AnyStringEquals:
			default:
				continue
			}
			if k := slices.IndexFunc(g.values, func(v expected) bool { return v.s == d.path.Expected }); k >= 0 {
				g.values[k].tests |= bit
			} else {
				g.values = append(g.values, expected{d.path.Expected, bit})
			}
		}
		c.group = g
	}
}

// judged is what the passes of one Match found about the acceptors below
// maxShared: which were judged, and which of those matched.
type judged struct{ known, hit uint64 }

// lookup reports whether acceptor i was judged by an earlier pass, and if
// so whether it matched.
func (j *judged) lookup(i int) (matched, ok bool) {
	if i >= maxShared || j.known&(1<<i) == 0 {
		return false, false
	}
	return j.hit&(1<<i) != 0, true
}

// record records in j what a pass of group g over its path found (known,
// hit: see compare) about the acceptors of g after the first, and reports
// whether the first, the acceptor the pass was made for, matched.
func (j *judged) record(g *pathGroup, known, hit uint64) bool {
	for k, t := range g.tests[1:] {
		if bit := uint64(2) << k; known&bit != 0 {
			j.known |= 1 << t.index
			if hit&bit != 0 {
				j.hit |= 1 << t.index
			}
		}
	}
	return hit&1 != 0
}

// compare applies the group's comparisons to res, the result of their
// path, in one pass over res's elements. It returns the tests it
// decided, and those of them that matched. It decides the first test
// always; it stops, leaving others undecided, once the first test that
// may still match has matched.
func (g *pathGroup) compare(res *jmespath.Value) (known, hit uint64) {
	var live uint64 // the tests the elements decide
	for k, t := range g.tests {
		bit := uint64(1) << k
		switch t.comparator {
		case StringEquals:
			s, ok := res.String()
			known |= bit
			if ok && s == t.expected {
				hit |= bit
			}
		case BooleanEquals:
			b, ok := res.Bool()
			known |= bit
			if ok && strconv.FormatBool(b) == t.expected {
				hit |= bit
			}
		case AllStringEquals, AnyStringEquals:
			live |= bit
		default:
			known |= bit
		}
	}
	if settled(live, hit) {
		return known, hit
	}
	n := 0
	res.Elements(func(x jmespath.Value) bool {
		n++
		var eq uint64 // the tests that expect x
		if s, ok := x.String(); ok {
			for _, v := range g.values {
				if s == v.s {
					eq = v.tests
					break
				}
			}
		}
		// allStringEquals is decided by an element it does not expect,
		// anyStringEquals by one it does.
		failed, found := live&g.all&^eq, live&^g.all&eq
		if failed|found == 0 {
			return true
		}
		live &^= failed | found
		known |= failed | found
		hit |= found
		return !settled(live, hit)
	})
	if !settled(live, hit) {
		// Every element seen: allStringEquals still live expected them
		// all, anyStringEquals still live expected none.
		known |= live
		if n > 0 {
			hit |= live & g.all
		}
	}
	return known, hit
}

// settled reports whether a pass is over: no test is live, or the first
// test that may still match (live) or has matched (hit) has matched, so
// that the others cannot change the outcome.
func settled(live, hit uint64) bool {
	open := live | hit
	return live == 0 || open&-open&hit != 0
}
