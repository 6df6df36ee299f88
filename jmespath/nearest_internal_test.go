package jmespath

import (
	"testing"

	suggestpkg "github.com/waitable/waitable/internal/suggest"
)

// TestNearestIsSuggest: nearest, repeated here so that the package
// imports no other package of its module, answers as internal/suggest's
// Nearest does.
func TestNearestIsSuggest(t *testing.T) {
	candidates := []string{"status", "Status", "state", "items", "Items", "name", "ClusterName", "id", ""}
	for _, name := range []string{"statuss", "STATUS", "stat", "itmes", "nmae", "clustername", "x", "", "identity"} {
		for max := 0; max <= 3; max++ {
			if got, want := nearest(name, candidates, max), suggestpkg.Nearest(name, candidates, max); got != want {
				t.Errorf("nearest(%q, max %d) = %q, internal/suggest says %q", name, max, got, want)
			}
		}
	}
}
