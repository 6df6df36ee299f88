package classify_test

import (
	"strings"
	"testing"

	"github.com/waitable/waitable/classify"
)

// TestNilOptionIsAnError: a nil Option given to Compile is an error that
// says which option is nil, not a panic.
func TestNilOptionIsAnError(t *testing.T) {
	s, err := classify.Compile[struct{}, struct{}](nil, nil)
	if s != nil || err == nil || !strings.Contains(err.Error(), "option 1 of 1 is nil") {
		t.Fatalf("Compile with a nil option = %v, %v; want an error naming option 1 of 1 as nil", s, err)
	}
}
