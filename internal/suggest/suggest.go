// Package suggest finds the names nearest a misspelled one, for errors
// that say "did you mean".
package suggest

import "strings"

// Nearest returns the candidate equal to name but for case, or else the
// one fewest edits from it (ignoring case) when that is at most max edits;
// "" when none is that close.
func Nearest(name string, candidates []string, max int) string {
	low := strings.ToLower(name)
	best, bestDist := "", max+1
	for _, c := range candidates {
		lc := strings.ToLower(c)
		if lc == low {
			return c
		}
		if d := Distance(low, lc); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// Distance is the Levenshtein distance between a and b, in bytes.
func Distance(a, b string) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
