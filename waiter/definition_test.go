package waiter_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/waiter"
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
