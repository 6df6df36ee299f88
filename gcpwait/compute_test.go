package gcpwait_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/googleapis/gax-go/v2"
	"github.com/googleapis/gax-go/v2/apierror"
	"google.golang.org/api/googleapi"

	"github.com/waitable/waitable/gcpwait"
	"github.com/waitable/waitable/waiter"
)

// computeStatus stands for computepb.Operation_Status.
type computeStatus int32

func (s computeStatus) String() string { return [...]string{"PENDING", "RUNNING", "DONE"}[s] }

// computeOp has the getters of computepb.Operation that gcpwait reads.
type computeOp struct {
	name     string
	status   computeStatus
	progress int32
	httpCode int32
	httpMsg  string
}

func (o *computeOp) GetName() string               { return o.name }
func (o *computeOp) GetStatus() computeStatus      { return o.status }
func (o *computeOp) GetProgress() int32            { return o.progress }
func (o *computeOp) GetHttpErrorStatusCode() int32 { return o.httpCode }
func (o *computeOp) GetHttpErrorMessage() string   { return o.httpMsg }

// computeGet answers a zone operations client's Get from a script, the
// last answer repeated; a nil answer is a REST error of status code.
type computeGet struct {
	answers []*computeOp
	codes   []int
	calls   int
	retry   []bool // whether each call's options turned gax's retries off
}

func (g *computeGet) get(_ context.Context, name string, opts ...gax.CallOption) (*computeOp, error) {
	g.calls++
	var cs gax.CallSettings
	for _, o := range opts {
		o.Resolve(&cs)
	}
	g.retry = append(g.retry, cs.Retry != nil && cs.Retry() == nil)
	i := min(g.calls, len(g.answers)) - 1
	if g.answers[i] == nil {
		err, _ := apierror.FromError(&googleapi.Error{Code: g.codes[i], Message: "scripted"})
		return nil, err
	}
	op := *g.answers[i]
	op.name = name
	return &op, nil
}

// TestCompute: a compute operation RUNNING, then a 503 of the Get, then
// DONE, succeeds, its progress in the events and each Get made with gax's
// retries off; one DONE with an HTTP error status fails at once with an
// *OperationError over a *googleapi.Error, as compute's own Poll reads it.
func TestCompute(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := &computeGet{
			answers: []*computeOp{{status: 1, progress: 30}, nil, {status: 2, progress: 100}},
			codes:   []int{0, http.StatusServiceUnavailable, 0},
		}
		w, err := gcpwait.NewCompute(g.get)
		if err != nil {
			t.Fatal(err)
		}
		run := w.Start(t.Context(), "operation-123", 10*time.Minute)
		var progress []int32
		for a := range run.Events() {
			if a.Output.Metadata != nil {
				progress = append(progress, a.Output.Metadata.GetProgress())
			}
		}
		if _, err := run.Result(); err != nil {
			t.Fatal(err)
		}
		if want := []int32{30, 100}; !slices.Equal(progress, want) {
			t.Errorf("progress = %v, want %v", progress, want)
		}
		if want := []bool{true, true, true}; !slices.Equal(g.retry, want) {
			t.Errorf("gax retries off, per call = %v, want %v", g.retry, want)
		}

		g = &computeGet{answers: []*computeOp{{status: 2, httpCode: 409, httpMsg: "quota exceeded"}}, codes: []int{0}}
		w, err = gcpwait.NewCompute(g.get)
		if err != nil {
			t.Fatal(err)
		}
		_, err = w.Wait(t.Context(), "operation-124", time.Minute)
		var oe *gcpwait.OperationError
		var ge *googleapi.Error
		if !errors.Is(err, waiter.ErrFailure) || !errors.As(err, &oe) || !errors.As(err, &ge) || ge.Code != 409 {
			t.Fatalf("Wait = %v, want an *OperationError over a 409 *googleapi.Error", err)
		}
		if g.calls != 1 {
			t.Errorf("Get calls = %d, want 1", g.calls)
		}
	})
}
