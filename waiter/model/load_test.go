package model_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/waiter"
	"github.com/waitable/waitable/waiter/model"
)

func TestParseWaitable(t *testing.T) {
	defs, err := model.ParseWaitable([]byte(`{
		"ThingExists": {
			"description": "Waits until a thing has been created",
			"acceptors": [
				{"state": "failure", "matcher": {"output": {"path": "status", "comparator": "stringEquals", "expected": "failed"}}},
				{"state": "success", "matcher": {"output": {"path": "status", "comparator": "stringEquals", "expected": "success"}}}
			],
			"minDelay": 5, "maxDelay": 60, "tags": ["things"], "deprecated": true
		},
		"BucketExists": {
			"acceptors": [
				{"state": "success", "matcher": {"success": true}},
				{"state": "retry", "matcher": {"errorType": "NotFound"}}
			]
		}
	}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(defs) != 2 || defs[0].Name != "BucketExists" || defs[1].Name != "ThingExists" {
		t.Fatalf("ParseWaitable = %+v, want BucketExists then ThingExists", defs)
	}
	thing := defs[1]
	if thing.Documentation != "Waits until a thing has been created" || thing.MinDelay != 5*time.Second || thing.MaxDelay != time.Minute || !thing.Deprecated || thing.Tags[0] != "things" {
		t.Errorf("ThingExists = %+v", thing)
	}
	if a := thing.Acceptors[0]; a.State != classify.Failure || a.Matcher.Output.Path != "status" || a.Matcher.Output.Expected != "failed" {
		t.Errorf("ThingExists acceptor 0 = %+v", a)
	}
	if b := defs[0].Schedule(); b.MinDelay != 2*time.Second || b.MaxDelay != 120*time.Second {
		t.Errorf("BucketExists schedule = %+v, want the defaults", b)
	}
}

// TestBadInput: malformed or wrong models give an error that names the
// place and the problem; never a panic.
func TestBadInput(t *testing.T) {
	tests := []struct {
		name, doc, want string
	}{
		{"not JSON", `{`, "the waitable trait must be an object"},
		{"not an object", `[1]`, "the waitable trait must be an object"},
		{"trailing data", `{} {}`, "unexpected data after the JSON value"},
		{"waiter not an object", `{"A": 3}`, "model: A: line 1, column 7: the value: a number where an object is expected"},
		{"unknown waiter key", `{"A": {"acceptors": [], "minDelai": 3}}`, `A: line 1, column 25: unknown field "minDelai"`},
		{"wrong type", `{"A": {"acceptors": "all"}}`, "acceptors: a string where an array is expected"},
		{"float delay", `{"A": {"acceptors": [{"state": "success", "matcher": {"success": true}}], "minDelay": 2.5}}`, "minDelay: the number 2.5 where an integer is expected"},
		{"zero delay", `{"A": {"acceptors": [{"state": "success", "matcher": {"success": true}}], "minDelay": 0}}`, "A.minDelay: 0 seconds is out of range"},
		{"negative delay", `{"A": {"acceptors": [{"state": "success", "matcher": {"success": true}}], "maxDelay": -3}}`, "A.maxDelay: -3 seconds is out of range"},
		{"unknown state", `{"A": {"acceptors": [{"state": "done", "matcher": {"success": true}}]}}`, `A.acceptors[0]: line 1, column 32: classify: unknown acceptor state "done"`},
		{"unknown matcher", `{"A": {"acceptors": [{"state": "success", "matcher": {"outptu": {}}}]}}`, `A.acceptors[0]: line 1, column 54: matcher: unknown member "outptu"`},
		{"unknown comparator", `{"A": {"acceptors": [{"state": "success", "matcher": {"output": {"path": "a", "expected": "x", "comparator": "equals"}}}]}}`, `waiter A: acceptor 0: comparator: "equals" is not`},
		{"invalid JMESPath", `{"A": {"acceptors": [{"state": "success", "matcher": {"output": {"path": "a[?", "expected": "x", "comparator": "stringEquals"}}}]}}`, `waiter A: acceptor 0: path: classify: JMESPath expression "a[?"`},
		{"JMESPath calling a non-function", `{"A": {"acceptors": [{"state": "success", "matcher": {"output": {"path": "@(foo)", "expected": "x", "comparator": "stringEquals"}}}]}}`, "only a name can be called as a function"},
		{"empty acceptors", `{"A": {"acceptors": []}}`, "waiter A: acceptors: there are none"},
		{"two matcher members", `{"A": {"acceptors": [{"state": "success", "matcher": {"success": true, "errorType": "X"}}]}}`, "success, errorType are all set"},
		{"empty errorType", `{"A": {"acceptors": [{"state": "success", "matcher": {"errorType": ""}}]}}`, "errorType is empty"},
		{"message on success", `{"A": {"acceptors": [{"state": "success", "matcher": {"success": true}, "message": "m"}]}}`, "message is allowed on failure acceptors only"},
		{"bad name", `{"a-b": {"acceptors": [{"state": "success", "matcher": {"success": true}}]}}`, `waiter a-b: name: "a-b" is not UpperCamelCase`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defs, err := model.ParseWaitable([]byte(tt.doc))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("ParseWaitable(%s) = %v, %v; want an error containing %q", tt.doc, defs, err, tt.want)
			}
			if !errors.Is(err, model.ErrInvalid) && !errors.Is(err, waiter.ErrInvalidDefinition) {
				t.Errorf("error %v matches neither ErrInvalid nor ErrInvalidDefinition", err)
			}
		})
	}
}

func TestLoadSmithyErrors(t *testing.T) {
	tests := []struct{ name, doc, want string }{
		{"not JSON", `nope`, "line 1, column 2: invalid character"},
		{"no version", `{"shapes": {}}`, `smithy: version "" is not 1.x or 2.x`},
		{"trait on a structure", `{"smithy": "2.0", "shapes": {"ex#S": {"type": "structure", "traits": {"smithy.waiters#waitable": {}}}}}`, "the trait is on a structure, not an operation"},
		{"duplicate names", `{"smithy": "2.0", "shapes": {
			"ex#Svc": {"type": "service", "operations": [{"target": "ex#A"}, {"target": "ex#B"}]},
			"ex#A": {"type": "operation", "traits": {"smithy.waiters#waitable": {"ThingReady": {"acceptors": [{"state": "success", "matcher": {"success": true}}]}}}},
			"ex#B": {"type": "operation", "traits": {"smithy.waiters#waitable": {"Thingready": {"acceptors": [{"state": "success", "matcher": {"success": true}}]}}}}}}`,
			"waiter Thingready: name: the name is taken (case-insensitively) by waiter ThingReady on ex#A"},
		{"bad waiter", `{"smithy": "2.0", "shapes": {"ex#A": {"type": "operation", "traits": {"smithy.waiters#waitable": {"A": {"acceptors": [{"state": "nope"}]}}}}}}`,
			`model: shapes["ex#A"].traits["smithy.waiters#waitable"].A.acceptors[0]: line 1, column 129: classify: unknown acceptor state "nope"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := model.LoadSmithy(strings.NewReader(tt.doc))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("LoadSmithy = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestLoadSmithyResources(t *testing.T) {
	doc := `{"smithy": "2.0", "shapes": {
		"ex#Svc": {"type": "service", "resources": [{"target": "ex#Thing"}]},
		"ex#Thing": {"type": "resource", "read": {"target": "ex#GetThing"}},
		"ex#GetThing": {"type": "operation", "input": {"target": "ex#In"}, "output": {"target": "smithy.api#Unit"},
			"traits": {"smithy.waiters#waitable": {"ThingExists": {"acceptors": [
				{"state": "success", "matcher": {"success": true}},
				{"state": "retry", "matcher": {"errorType": "ex#NotFound"}}]}}}}}}`
	c, err := model.LoadSmithy(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	d, _ := c.Get("ThingExists")
	if d.Operation.Service != "ex#Svc" || d.Operation.Input != "ex#In" || d.Operation.Output != "" {
		t.Errorf("operation = %+v, want service ex#Svc through the resource, no output", d.Operation)
	}
	if w := c.Warnings(); len(w) != 1 || !strings.Contains(w[0], `errorType "ex#NotFound" is not among the errors of ex#GetThing`) {
		t.Errorf("Warnings() = %q", w)
	}
}

func TestLoadBotocore(t *testing.T) {
	doc := `{"version": 2, "waiters": {
		"BucketExists": {"delay": 5, "maxAttempts": 20, "operation": "HeadBucket", "acceptors": [
			{"expected": 200, "matcher": "status", "state": "success"},
			{"expected": 404, "matcher": "status", "state": "retry"}]},
		"KeyPairExists": {"delay": 5, "maxAttempts": 6, "operation": "DescribeKeyPairs", "acceptors": [
			{"expected": true, "matcher": "pathAll", "state": "success", "argument": "length(KeyPairs[].KeyName) > ` + "`0`" + `"},
			{"expected": "InvalidKeyPair.NotFound", "matcher": "error", "state": "retry"}]},
		"FunctionActive": {"delay": 5, "maxAttempts": 60, "operation": "GetFunction", "acceptors": [
			{"expected": false, "matcher": "error", "state": "success"},
			{"expected": true, "matcher": "path", "state": "failure", "argument": "Failed"},
			{"expected": 3, "matcher": "pathAny", "state": "retry", "argument": "Counts"}]}}}`
	c, err := model.LoadBotocore(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(c.Names(), ","); got != "BucketExists,FunctionActive,KeyPairExists" {
		t.Errorf("Names() = %s", got)
	}
	b, _ := c.Get("BucketExists")
	if b.MinDelay != 5*time.Second || b.MaxDelay != 5*time.Second || b.MaxPolls != 20 || b.Operation.ID != "HeadBucket" || b.Acceptors[1].Matcher.HTTPStatus != 404 {
		t.Errorf("BucketExists = %+v", b)
	}
	f, _ := c.Get("FunctionActive")
	if s := f.Acceptors[0].Matcher.Success; s == nil || !*s {
		t.Errorf(`error false should be "no error" (success: true): %+v`, f.Acceptors[0].Matcher)
	}
	if p := f.Acceptors[1].Matcher.Output; p.Path != "(Failed) == `true`" || p.Comparator != classify.BooleanEquals {
		t.Errorf("path with a boolean: %+v", p)
	}
	set, err := classify.Compile[any, any](f.Acceptors)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		out  map[string]any
		want int
	}{
		{map[string]any{"Failed": true}, 0}, // success: true comes first
		{map[string]any{"Counts": []any{1.0, 3.0}}, 0},
	} {
		if m := set.Match(nil, tt.out, nil); m.Index != tt.want {
			t.Errorf("FunctionActive on %v = %+v", tt.out, m)
		}
	}
	// The acceptors after the first, alone, show the translations work.
	rest, _ := classify.Compile[any, any](f.Acceptors[1:])
	if m := rest.Match(nil, map[string]any{"Failed": true}, nil); m.Index != 0 {
		t.Errorf("(Failed) == true: %+v", m)
	}
	if m := rest.Match(nil, map[string]any{"Counts": []any{1.0, 3.0}}, nil); m.Index != 1 || m.Err != nil {
		t.Errorf("pathAny 3: %+v", m)
	}
	if m := rest.Match(nil, map[string]any{"Counts": 3.0}, nil); m.Index != -1 || m.Err != nil {
		t.Errorf("pathAny on a non-array must not match (as botocore): %+v", m)
	}
	// pathAll true on a boolean never matches in botocore, nor in its
	// translation: Compile says so, wherever the output's type.
	k, _ := c.Get("KeyPairExists")
	if _, err := classify.Compile[any, any](k.Acceptors); err == nil || !strings.Contains(err.Error(), "but length(KeyPairs[].KeyName) > `0` is a boolean") {
		t.Errorf("KeyPairExists compiles: %v; want its pathAll on a boolean refused", err)
	}
	kset, _ := classify.Compile[any, any](k.Acceptors[1:])
	if m := kset.Match(nil, nil, &apiError{code: "InvalidKeyPair.NotFound"}); m.Index != 0 {
		t.Errorf("KeyPairExists's other acceptor: %+v", m)
	}
}

func TestLoadBotocoreErrors(t *testing.T) {
	tests := []struct{ name, doc, want string }{
		{"version 1", `{"version": 1, "waiters": {}}`, "version: 1 is not 2"},
		{"unknown top key", `{"version": 2, "waiters": {}, "x": 1}`, `unknown field "x"`},
		{"no delay", `{"version": 2, "waiters": {"A": {"maxAttempts": 3, "operation": "Op", "acceptors": [{"expected": 200, "matcher": "status", "state": "success"}]}}}`, "waiters.A.delay: 0 seconds is out of range"},
		{"no attempts", `{"version": 2, "waiters": {"A": {"delay": 3, "operation": "Op", "acceptors": [{"expected": 200, "matcher": "status", "state": "success"}]}}}`, "waiters.A.maxAttempts: 0 is not a positive number"},
		{"unknown matcher", `{"version": 2, "waiters": {"A": {"delay": 3, "maxAttempts": 3, "operation": "Op", "acceptors": [{"expected": 1, "matcher": "pathSome", "state": "success"}]}}}`, `waiters.A.acceptors[0]: unknown matcher "pathSome"`},
		{"status not int", `{"version": 2, "waiters": {"A": {"delay": 3, "maxAttempts": 3, "operation": "Op", "acceptors": [{"expected": "200", "matcher": "status", "state": "success"}]}}}`, "matcher status expects an integer HTTP status"},
		{"path without argument", `{"version": 2, "waiters": {"A": {"delay": 3, "maxAttempts": 3, "operation": "Op", "acceptors": [{"expected": "x", "matcher": "path", "state": "success"}]}}}`, "matcher path needs an argument"},
		{"missing expected", `{"version": 2, "waiters": {"A": {"delay": 3, "maxAttempts": 3, "operation": "Op", "acceptors": [{"matcher": "path", "argument": "a", "state": "success"}]}}}`, "expected is missing"},
		{"no success", `{"version": 2, "waiters": {"A": {"delay": 3, "maxAttempts": 3, "operation": "Op", "acceptors": [{"expected": 404, "matcher": "status", "state": "retry"}]}}}`, "waiter A: acceptors: none has state success"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := model.LoadBotocore(strings.NewReader(tt.doc))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("LoadBotocore = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func FuzzParseWaitable(f *testing.F) {
	f.Add([]byte(`{"A": {"acceptors": [{"state": "success", "matcher": {"success": true}}]}}`))
	f.Add([]byte(`{"A": {"acceptors": [{"state": "success", "matcher": {"output": {"path": "a[].b", "expected": "x", "comparator": "allStringEquals"}}}], "minDelay": 3}}`))
	f.Add([]byte(`{"A": {"acceptors": [{"state": "failure", "matcher": {"errorType": "X"}, "message": "@(x)"}]}}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		defs, err := model.ParseWaitable(data)
		for _, d := range defs {
			if err := d.Validate(); err != nil {
				t.Fatalf("ParseWaitable returned an invalid definition: %v", err)
			}
			if _, err := classify.Compile[any, any](d.Acceptors); err != nil {
				t.Fatalf("ParseWaitable returned a definition that does not compile: %v", err)
			}
		}
		_ = err
	})
}

func FuzzLoadBotocore(f *testing.F) {
	f.Add([]byte(`{"version": 2, "waiters": {"A": {"delay": 5, "maxAttempts": 3, "operation": "Op", "acceptors": [{"expected": 200, "matcher": "status", "state": "success"}]}}}`))
	f.Add([]byte(`{"version": 2, "waiters": {"A": {"delay": 5, "maxAttempts": 3, "operation": "Op", "acceptors": [{"expected": [1], "matcher": "pathAll", "argument": "a", "state": "success"}]}}}`))
	f.Add([]byte(`{"version": 2, "waiters": {"A": {"delay": 5, "maxAttempts": 3, "operation": "Op", "acceptors": [{"expected": "x", "matcher": "pathAny", "argument": "a[", "state": "success"}]}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := model.LoadBotocore(bytes.NewReader(data))
		if err != nil {
			return
		}
		for _, n := range c.Names() {
			d, _ := c.Get(n)
			set, err := classify.Compile[any, any](d.Acceptors)
			if err != nil {
				t.Fatalf("LoadBotocore returned a definition that does not compile: %v", err)
			}
			set.Match(nil, map[string]any{"a": []any{1.0, "x"}}, nil) // must not panic
		}
	})
}
