package waiter_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/telemetry"
	"github.com/waitable/waitable/waiter"
	"github.com/waitable/waitable/waiter/model"
)

func TestValidate(t *testing.T) {
	good := []classify.Acceptor{{State: classify.Success, Matcher: classify.OnSuccess(true)}}
	tests := []struct {
		name string
		def  waiter.Definition
		want []string // one substring per problem, in order
	}{
		{"valid", waiter.Definition{Name: "ThingExists", Acceptors: good}, nil},
		{"sub-second delay", waiter.Definition{Name: "A", Acceptors: good, MinDelay: 500 * time.Millisecond}, []string{"waiter A: minDelay: 500ms is less than 1s"}},
		{"lower-case name", waiter.Definition{Name: "thingExists", Acceptors: good}, []string{`waiter thingExists: name: "thingExists" is not UpperCamelCase`}},
		{"name with underscore", waiter.Definition{Name: "Thing_Exists", Acceptors: good}, []string{"name:"}},
		{"empty name", waiter.Definition{Acceptors: good}, []string{"waiter (no name): name:"}},
		{"no acceptors", waiter.Definition{Name: "A"}, []string{"waiter A: acceptors: there are none"}},
		{"no success acceptor", waiter.Definition{Name: "A", Acceptors: []classify.Acceptor{{State: classify.Retry, Matcher: classify.OnSuccess(true)}}}, []string{"none has state success"}},
		{"min above max", waiter.Definition{Name: "A", Acceptors: good, MinDelay: 30 * time.Second, MaxDelay: 10 * time.Second}, []string{"waiter A: maxDelay: 10s is less than minDelay 30s"}},
		{"min above default max", waiter.Definition{Name: "A", Acceptors: good, MinDelay: 300 * time.Second}, []string{"maxDelay: 2m0s is less than minDelay 5m0s"}},
		{"negative delays", waiter.Definition{Name: "A", Acceptors: good, MinDelay: -time.Second, MaxDelay: -time.Second}, []string{"minDelay: -1s is negative", "maxDelay: -1s is negative"}},
		{"negative polls", waiter.Definition{Name: "A", Acceptors: good, MaxPolls: -1}, []string{"maxPolls: -1 is negative"}},
		{"every problem at once", waiter.Definition{Name: "bad", Acceptors: []classify.Acceptor{
			{State: classify.Retry, Matcher: classify.OnOutput("a[", classify.StringEquals, "x")},
			{State: classify.Failure, Matcher: classify.OnOutput("a", "equals", "x")},
			{State: classify.Retry, Matcher: classify.OnOutput("a", classify.BooleanEquals, "yes")},
		}}, []string{"name:", "none has state success", "waiter bad: acceptor 0: path:", "waiter bad: acceptor 1: comparator:", "waiter bad: acceptor 2: expected:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.def.Validate()
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate() = nil, want %d problems", len(tt.want))
			}
			problems := err.(interface{ Unwrap() []error }).Unwrap()
			if len(problems) != len(tt.want) {
				t.Fatalf("Validate() found %d problems, want %d:\n%v", len(problems), len(tt.want), err)
			}
			for i, p := range problems {
				if !strings.Contains(p.Error(), tt.want[i]) {
					t.Errorf("problem %d = %q, want it to contain %q", i, p, tt.want[i])
				}
				var de *waiter.DefinitionError
				if !errors.As(p, &de) || !errors.Is(p, waiter.ErrInvalidDefinition) {
					t.Errorf("problem %d (%v) is not a *DefinitionError matching ErrInvalidDefinition", i, p)
				}
			}
		})
	}
}

// TestMessageReadsTheOutput: a failure acceptor's message reads the
// output, as smithy-lang/smithy#3151 defines it: a trait whose message
// names an output field is accepted by New, and the failure's Error
// carries the message. An errorType failure has no output, so no message.
func TestMessageReadsTheOutput(t *testing.T) {
	type Out struct{ Status *string }
	defs, err := model.ParseWaitable([]byte(`{"ThingReady": {"acceptors": [
		{"state": "failure", "message": "Status", "matcher": {"output": {"path": "Status", "expected": "failed", "comparator": "stringEquals"}}},
		{"state": "failure", "message": "Status", "matcher": {"errorType": "Boom"}},
		{"state": "success", "matcher": {"output": {"path": "Status", "expected": "ready", "comparator": "stringEquals"}}}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		out     *Out
		err     error
		message string
	}{
		{&Out{Status: ptr("failed")}, nil, "failed"},
		{nil, boomCode{}, ""},
	} {
		w, err := waiter.New(defs[0], func(context.Context, string) (*Out, error) { return tt.out, tt.err },
			waiter.WithTelemetry(telemetry.Settings{Off: true}))
		if err != nil {
			t.Fatalf("New = %v, want the trait accepted", err)
		}
		_, err = w.Wait(t.Context(), "a", time.Minute)
		var we *waiter.Error
		if !errors.As(err, &we) || we.Failure != waiter.FailureAcceptor || we.Message != tt.message {
			t.Errorf("Wait = %v, want a failure acceptor's with message %q", err, tt.message)
		}
	}
}

// boomCode is a service error whose code is Boom.
type boomCode struct{}

func (boomCode) Error() string     { return "boom" }
func (boomCode) ErrorCode() string { return "Boom" }
