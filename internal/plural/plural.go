// Package plural writes a count and its noun in English: "1 poll",
// "0 polls", "3 polls". Every noun the module counts takes a plain "s".
package plural

import "strconv"

// N returns n and noun, with an "s" after the noun unless n is 1:
// N(1, "transient error") is "1 transient error", N(3, "poll") is
// "3 polls".
func N[T ~int | ~int32 | ~int64](n T, noun string) string {
	return strconv.FormatInt(int64(n), 10) + " " + noun + S(n)
}

// S returns the ending of a noun counted n times: "" for 1, else "s".
func S[T ~int | ~int32 | ~int64](n T) string {
	if n == 1 {
		return ""
	}
	return "s"
}
