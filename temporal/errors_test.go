package temporal

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"go.temporal.io/sdk/testsuite"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/telemetry"
	"github.com/waitable/waitable/waiter"
)

// apiError is an error with a code and an HTTP status, as aws-sdk-go-v2's
// modelled errors have.
type apiError struct {
	code   string
	status int
}

func (e *apiError) Error() string       { return e.code + ": the job is not there" }
func (e *apiError) ErrorCode() string   { return e.code }
func (e *apiError) HTTPStatusCode() int { return e.status }

// thingNotFound is an error of a type named NotFound with no code and no
// status: the waiter's core does not take it for a not-found answer.
type thingNotFound struct{}

func (thingNotFound) Error() string { return "no such thing" }

// jobAppears retries on the errors that say the job is not there yet.
var jobAppears = waiter.Definition{
	Name: "JobAppears",
	Acceptors: []classify.Acceptor{
		{State: classify.Success, Matcher: classify.OnOutput("State", classify.StringEquals, "done")},
		{State: classify.Retry, Matcher: classify.OnErrorType("ResourceNotFoundException")},
		{State: classify.Retry, Matcher: classify.OnErrorType("thingNotFound")},
	},
}

type errScenario struct {
	name    string
	def     waiter.Definition
	err     error // every call's error
	opts    []waiter.Option
	reason  error
	failure waiter.Failure
	kind    errKind  // what crosses of the last call's error
	matches []string // names classify.ErrorMatches finds, as in process
}

var notThere = &apiError{"ResourceNotFoundException", 404}

var errScenarios = []errScenario{
	{name: "a coded 4xx error ends the wait", def: jobDone, err: fmt.Errorf("describe j-1: %w", notThere),
		reason: waiter.ErrFailure, failure: waiter.FailureError,
		kind: errKind{Code: "ResourceNotFoundException", Type: "apiError", StatusCode: 404}, matches: []string{"ResourceNotFoundException", "apiError"}},
	{name: "404s in a row: the job never appeared", def: jobAppears, err: notThere, opts: []waiter.Option{waiter.WithNotFoundLimit(3)},
		reason: waiter.ErrFailure, failure: waiter.FailureNeverAppeared,
		kind: errKind{Code: "ResourceNotFoundException", Type: "apiError", StatusCode: 404}, matches: []string{"ResourceNotFoundException", "apiError"}},
	{name: "a NotFound type with no code or status is no not-found answer", def: jobAppears, err: thingNotFound{}, opts: []waiter.Option{waiter.WithNotFoundLimit(3)},
		reason: waiter.ErrTimeout, kind: errKind{Type: "thingNotFound"}, matches: []string{"thingNotFound"}},
	{name: "a plain error has no type", def: jobDone, err: fmt.Errorf("describe j-1: %w", errors.New("connection lost")),
		reason: waiter.ErrFailure, failure: waiter.FailureError},
}

func newErrWaiter(t *testing.T, sc errScenario, calls *atomic.Int32) *waiter.Waiter[JobInput, JobOutput] {
	op := func(context.Context, JobInput) (JobOutput, error) {
		calls.Add(1)
		return JobOutput{}, sc.err
	}
	opts := append([]waiter.Option{waiter.WithDelays(2*time.Second, 2*time.Second), waiter.WithTelemetry(telemetry.Settings{Off: true})}, sc.opts...)
	w, err := waiter.New(sc.def, op, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestErrorsAcross: an operation's error comes back from a wait on
// Temporal as an *OperationError with its code, type name and status, in
// both modes; classify matches it as it matches the original in process;
// and the waiter's core judges it in the workflow as in process, so that
// WithNotFoundLimit ends the wait after the same polls.
func TestErrorsAcross(t *testing.T) {
	for _, mode := range []Mode{ModeTimers, ModeHeartbeat} {
		for _, sc := range errScenarios {
			t.Run(mode.String()+"/"+sc.name, func(t *testing.T) {
				var wantErr error
				var wantCalls atomic.Int32
				synctest.Test(t, func(t *testing.T) {
					_, wantErr = newErrWaiter(t, sc, &wantCalls).Wait(t.Context(), JobInput{"j-1"}, time.Minute)
				})
				run := func(t *testing.T) { errorsAcross(t, sc, mode, wantErr, int(wantCalls.Load())) }
				if mode == ModeHeartbeat {
					// The activity sleeps on real time: a bubble makes it virtual.
					synctest.Test(t, run)
					return
				}
				run(t)
			})
		}
	}
}

func errorsAcross(t *testing.T, sc errScenario, mode Mode, wantErr error, wantCalls int) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.SetTestTimeout(time.Hour) // in heartbeat mode, of the bubble's virtual time
	var calls atomic.Int32
	if err := Register(env, "JobAppears", newErrWaiter(t, sc, &calls), WithMode(mode)); err != nil {
		t.Fatal(err)
	}
	env.ExecuteWorkflow(WorkflowName("JobAppears"), request[JobInput]{Input: JobInput{"j-1"}, MaxWait: time.Minute})
	if !env.IsWorkflowCompleted() {
		t.Fatal("the workflow did not complete")
	}
	err := decode(env.GetWorkflowError())

	var we, wantWe *waiter.Error
	if !errors.As(err, &we) || !errors.As(wantErr, &wantWe) {
		t.Fatalf("error %v, in process %v; want *waiter.Errors", err, wantErr)
	}
	if !errors.Is(err, sc.reason) || !errors.Is(wantErr, sc.reason) || we.Failure != sc.failure || wantWe.Failure != sc.failure {
		t.Errorf("error %v (%v), in process %v (%v); want %v (%v)", err, we.Failure, wantErr, wantWe.Failure, sc.reason, sc.failure)
	}
	if got := int(calls.Load()); got != wantCalls || we.Attempts != wantCalls {
		t.Errorf("%d calls, %d attempts; in process %d calls", got, we.Attempts, wantCalls)
	}

	var oe *OperationError
	if !errors.As(err, &oe) {
		t.Fatalf("errors.As(%v, *OperationError) found none; Err is %T", err, we.Err)
	}
	if got := (errKind{Code: oe.Code, Type: oe.Type, StatusCode: oe.StatusCode}); got != sc.kind {
		t.Errorf("the error's kind is %+v, want %+v", got, sc.kind)
	}
	if oe.Error() != wantWe.Err.Error() {
		t.Errorf("the error's message is %q, in process %q", oe.Error(), wantWe.Err.Error())
	}
	for _, name := range append(sc.matches, "Throttling") {
		want := name != "Throttling"
		if got, inProcess := classify.ErrorMatches(err, name), classify.ErrorMatches(wantErr, name); got != want || inProcess != want {
			t.Errorf("classify.ErrorMatches(err, %q) = %t, in process %t; want %t", name, got, inProcess, want)
		}
	}
	if got, want := classify.Classify(err).StatusCode, classify.Classify(wantErr).StatusCode; got != want {
		t.Errorf("classify reads the status %d, in process %d", got, want)
	}

	// The attempts say the kind too.
	v, qerr := env.QueryWorkflow(QueryProgress)
	var p Progress
	if qerr != nil || v.Get(&p) != nil || len(p.Attempts) == 0 {
		t.Fatalf("progress: %v, %+v", qerr, p)
	}
	last := p.Attempts[len(p.Attempts)-1]
	if got := (errKind{Code: last.ErrCode, Type: last.ErrType, StatusCode: last.ErrStatusCode}); got != sc.kind || last.Err != sc.err.Error() {
		t.Errorf("the last attempt's error is %q %+v, want %q %+v", last.Err, got, sc.err.Error(), sc.kind)
	}
}

// opWrapper wraps an error with more than a message, as smithy-go's
// OperationError does.
type opWrapper struct{ err error }

func (e *opWrapper) Error() string { return "operation DescribeJob: " + e.err.Error() }
func (e *opWrapper) Unwrap() error { return e.err }

// TestKindOf: which code, type name and status an error's kind takes.
func TestKindOf(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want *errKind
	}{
		{"nil", nil, nil},
		{"a message", errors.New("boom"), nil},
		{"a wrapped message", fmt.Errorf("describe: %w", errors.New("boom")), nil},
		{"a coded error, wrapped", fmt.Errorf("describe: %w", &apiError{"Throttling", 0}), &errKind{Code: "Throttling", Type: "apiError"}},
		{"the code's type, not its wrapper's", &opWrapper{notThere}, &errKind{Code: "ResourceNotFoundException", Type: "apiError", StatusCode: 404}},
		{"no code: the outermost type that says more than a message", &opWrapper{thingNotFound{}}, &errKind{Type: "opWrapper"}},
		{"joined", errors.Join(errors.New("a"), thingNotFound{}), &errKind{Type: "thingNotFound"}},
		{"an unnamed type is passed over", struct{ *opWrapper }{&opWrapper{thingNotFound{}}}, &errKind{Type: "thingNotFound"}},
		{"crossed already: its kind", fmt.Errorf("x: %w", &OperationError{Message: "m", Type: "thingNotFound"}), &errKind{Type: "thingNotFound"}},
		{"rebuilt in the workflow: its kind", judged("m", &errKind{Code: "C", Type: "T", StatusCode: 409}), &errKind{Code: "C", Type: "T", StatusCode: 409}},
	} {
		got := kindOf(tc.err)
		if (got == nil) != (tc.want == nil) || got != nil && *got != *tc.want {
			t.Errorf("%s: kindOf(%v) = %+v, want %+v", tc.name, tc.err, got, tc.want)
		}
	}
}
