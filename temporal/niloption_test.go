package temporal

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/testsuite"

	"github.com/waitable/waitable/waiter"
)

// TestNilOptionIsAnError: a nil Option given to Register, or a nil
// GroupOption given to StartGroup, is an error that says which option is
// nil, not a panic; StartGroup starts no workflow then.
func TestNilOptionIsAnError(t *testing.T) {
	w, err := waiter.NewFunc("Job",
		func(context.Context, JobInput) (string, error) { return "", nil },
		func(JobInput, string, error) (bool, error) { return true, nil })
	if err != nil {
		t.Fatal(err)
	}
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	if err := Register(env, "Job", w, WithMode(ModeTimers), nil); err == nil || !strings.Contains(err.Error(), "option 2 of 2 is nil") {
		t.Errorf("Register with a nil option = %v, want an error naming option 2 of 2 as nil", err)
	}
	var c client.Client // nil: StartGroup must not reach it
	g, err := StartGroup[JobInput, string](t.Context(), c, "Job", []JobInput{{"j-1"}}, time.Minute, client.StartWorkflowOptions{}, nil)
	if g != nil || err == nil || !strings.Contains(err.Error(), "option 1 of 1 is nil") {
		t.Errorf("StartGroup with a nil option = %v, %v; want an error naming option 1 of 1 as nil", g, err)
	}
}
