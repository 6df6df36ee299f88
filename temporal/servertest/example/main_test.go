package main

import (
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/waitable/waitable/temporal/internal/leaks"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m, leaks.Options()...) }

// TestExample runs the example: the wait survives its worker's restart.
func TestExample(t *testing.T) {
	var out strings.Builder
	if err := run(t.Context(), &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"worker 1 stopped after 2 attempts", "call 5: job job-42 is done", "job job-42 is done after 5 calls"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
