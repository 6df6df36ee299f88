package model_test

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/waitable/waitable/waiter"
	"github.com/waitable/waitable/waiter/model"
)

// TestLoadErrorsSayWhere: what a user gets for a broken or mistaken file:
// the line and column of a syntax or type error, a hint when the file is
// of the other kind, and no Go type names of this package.
func TestLoadErrorsSayWhere(t *testing.T) {
	data, err := os.ReadFile("../../testdata/aws/models/neptune-graph-2023-11-29.json")
	if err != nil {
		t.Fatal(err)
	}
	// A stray comma on line 3,847.
	lines := strings.Split(string(data), "\n")
	lines[3846] += ","
	broken := strings.Join(lines, "\n")
	botocore := `{"version": 2, "waiters": {"ThingExists": {"delay": 5, "maxAttempts": 10, "operation": "GetThing", "acceptors": []}}}`
	smithy := `{"smithy": "2.0", "shapes": {}}`
	for _, tt := range []struct {
		name string
		load func() error
		want []string
	}{
		{"syntax error in a model", func() error { _, err := model.LoadSmithy(strings.NewReader(broken)); return err }, []string{"line 3847, column"}},
		{"botocore file to LoadSmithy", func() error { _, err := model.LoadSmithy(strings.NewReader(botocore)); return err }, []string{"botocore waiters-2.json", "LoadBotocore"}},
		{"Smithy model to LoadBotocore", func() error { _, err := model.LoadBotocore(strings.NewReader(smithy)); return err }, []string{"Smithy JSON AST model", "LoadSmithy"}},
		{"Smithy model to ParseWaitable", func() error { _, err := model.ParseWaitable([]byte(smithy)); return err }, []string{"Smithy JSON AST model", "LoadSmithy"}},
		{"type error", func() error {
			_, err := model.LoadSmithy(strings.NewReader(`{"smithy": "2.0", "shapes": []}`))
			return err
		},
			[]string{"line 1, column", "shapes", "an array where an object"}},
		{"type error in botocore", func() error {
			_, err := model.LoadBotocore(strings.NewReader(`{"version": 2, "waiters": {"A": {"delay": "5"}}}`))
			return err
		}, []string{"line 1, column", "delay", "a string where an integer"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.load()
			if !errors.Is(err, model.ErrInvalid) {
				t.Fatalf("error %v, want one matching ErrInvalid", err)
			}
			for _, want := range tt.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q lacks %q", err, want)
				}
			}
			for _, internal := range []string{"model.smithy", "model.botocore", "model.source", "json.RawMessage", "Go value of type"} {
				if strings.Contains(err.Error(), internal) {
					t.Errorf("error %q names %q", err, internal)
				}
			}
		})
	}
}

// TestCatalogGetSuggests: an unknown name is an error naming the nearest.
func TestCatalogGetSuggests(t *testing.T) {
	data, err := os.ReadFile("../../testdata/aws/models/neptune-graph-2023-11-29.json")
	if err != nil {
		t.Fatal(err)
	}
	c, err := model.LoadSmithy(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if d, err := c.Get("GraphAvailable"); err != nil || d.Name != "GraphAvailable" {
		t.Errorf("Get(GraphAvailable) = %v, %v", d.Name, err)
	}
	_, err = c.Get("graphavailable")
	if !errors.Is(err, model.ErrUnknownWaiter) || !strings.Contains(err.Error(), `no waiter "graphavailable"`) || !strings.Contains(err.Error(), "did you mean GraphAvailable?") {
		t.Errorf("Get(graphavailable) = %v, want ErrUnknownWaiter suggesting GraphAvailable", err)
	}
}

// TestSpecRulesOnModels: two rules of the specification that need the
// model: an output matcher on an operation with no output, and two
// waiters of one trait whose names differ only in case.
func TestSpecRulesOnModels(t *testing.T) {
	noOutput := `{"smithy": "2.0", "shapes": {
	  "example#Things": {"type": "service", "operations": [{"target": "example#Ping"}]},
	  "example#Ping": {"type": "operation", "traits": {"smithy.waiters#waitable": {"Pinged": {"acceptors": [
	    {"state": "success", "matcher": {"output": {"path": "ok", "comparator": "booleanEquals", "expected": "true"}}}]}}}}}}`
	_, err := model.LoadSmithy(strings.NewReader(noOutput))
	if !errors.Is(err, waiter.ErrInvalidDefinition) || !strings.Contains(err.Error(), "waiter Pinged: acceptor 0: matcher: an output matcher on example#Ping, which has no output") {
		t.Errorf("LoadSmithy(output matcher, no output) = %v", err)
	}
	twins := `{"ThingExists": {"acceptors": [{"state": "success", "matcher": {"success": true}}]},
	           "Thingexists": {"acceptors": [{"state": "success", "matcher": {"success": true}}]}}`
	_, err = model.ParseWaitable([]byte(twins))
	if !errors.Is(err, waiter.ErrInvalidDefinition) || !strings.Contains(err.Error(), "case-insensitively") {
		t.Errorf("ParseWaitable(names differing in case) = %v", err)
	}
}

// TestEveryDecodingProblem: a model's decoding problems are each reported,
// where they are, not only the first: unknown keys, values of the wrong
// type, in the waiter and in each acceptor, in every kind of file.
func TestEveryDecodingProblem(t *testing.T) {
	for _, tt := range []struct {
		name string
		load func() error
		want []string
	}{
		{"waitable trait", func() error {
			_, err := model.ParseWaitable([]byte(`{"A": {"minDelay": "5", "maxDelai": 3, "acceptors": [
				{"state": "done", "matcher": {"success": true}, "mesage": "m"},
				{"state": "success", "matcher": {"success": "yes"}}]}}`))
			return err
		}, []string{
			`A: line 1, column 20: minDelay: a string where an integer is expected`,
			`A: line 1, column 25: unknown field "maxDelai"`,
			`A.acceptors[0]: line 2, column 15: classify: unknown acceptor state "done"`,
			`A.acceptors[0]: line 2, column 53: unknown field "mesage"`,
			`A.acceptors[1]: line 3, column 53: matcher.success: a string where a boolean is expected`,
		}},
		{"Smithy model", func() error {
			_, err := model.LoadSmithy(strings.NewReader(`{"smithy": "2.0", "shapes": {
				"ex#S": {"type": "structure", "traits": []},
				"ex#A": {"type": "operation", "traits": {"smithy.waiters#waitable": {"A": {"acceptors": [{"state": "success", "matcher": {"success": true}}], "minDelay": true}}}}}}`))
			return err
		}, []string{
			`shapes["ex#S"]: line 2, column 45: traits: an array where an object is expected`,
			`A: line 3, column 159: minDelay: a boolean where an integer is expected`,
		}},
		{"botocore document", func() error {
			_, err := model.LoadBotocore(strings.NewReader(`{"version": 2, "comment": "x", "waiters": {
				"A": {"delay": "5", "maxAttempts": 3, "operation": "Op", "acceptors": [
					{"matcher": "path", "argument": "a", "expected": "x", "state": "succes", "extra": 1}]},
				"B": {"delay": 5, "maxAttempts": 3, "operation": "Op", "acceptors": [{"matcher": "error", "expected": "E", "state": "success"}]}}}`))
			return err
		}, []string{
			`line 1, column 16: unknown field "comment"`,
			`waiters.A: line 2, column 20: delay: a string where an integer is expected`,
			`waiters.A.acceptors[0]: line 3, column 69: classify: unknown acceptor state "succes"`,
			`waiters.A.acceptors[0]: line 3, column 79: unknown field "extra"`,
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.load()
			if !errors.Is(err, model.ErrInvalid) {
				t.Fatalf("error %v, want one matching ErrInvalid", err)
			}
			for _, want := range tt.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error\n%s\nlacks %q", err, want)
				}
			}
			if n := strings.Count(err.Error(), "\n") + 1; n != len(tt.want) {
				t.Errorf("%d problems, want %d:\n%s", n, len(tt.want), err)
			}
		})
	}
}
