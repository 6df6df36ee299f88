package model_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/jmespath"
	"github.com/waitable/waitable/waiter"
	"github.com/waitable/waitable/waiter/model"
)

// thingModel is a Smithy model of one operation whose output's members are
// named as in EKS (status, name) and reach a list, a map and a union.
const thingModel = `{
  "smithy": "2.0",
  "shapes": {
    "com.example#Things": {"type": "service", "version": "1", "operations": [{"target": "com.example#GetThing"}]},
    "com.example#GetThing": {
      "type": "operation",
      "input": {"target": "com.example#GetThingRequest"},
      "output": {"target": "com.example#GetThingResponse"},
      "traits": {"smithy.waiters#waitable": {
        "ThingHasStatus": {"acceptors": [
          {"state": "failure", "matcher": {"output": {"path": "contains(keys(@), 'ResultMetadata')", "expected": "true", "comparator": "booleanEquals"}}},
          {"state": "success", "matcher": {"output": {"path": "contains(keys(@), 'status')", "expected": "true", "comparator": "booleanEquals"}}}
        ]},
        "ThingPartsListed": {"acceptors": [
          {"state": "success", "matcher": {"output": {"path": "to_string(parts) == '[{\"partName\":\"a\"}]' && keys(tags) == ['k'] && keys(detail) == ['textDetail']", "expected": "true", "comparator": "booleanEquals"}}}
        ]},
        "ThingMerged": {"acceptors": [
          {"state": "success", "matcher": {"inputOutput": {"path": "merge(input, output).thingName", "expected": "t1", "comparator": "stringEquals"}}}
        ]}
      }}
    },
    "com.example#GetThingRequest": {"type": "structure", "members": {"thingName": {"target": "smithy.api#String"}}},
    "com.example#GetThingResponse": {"type": "structure", "mixins": [{"target": "com.example#Named"}], "members": {
      "status": {"target": "smithy.api#String"},
      "parts": {"target": "com.example#Parts"},
      "tags": {"target": "com.example#Tags"},
      "detail": {"target": "com.example#Detail"}
    }},
    "com.example#Named": {"type": "structure", "traits": {"smithy.api#mixin": {}}, "members": {"name": {"target": "smithy.api#String"}}},
    "com.example#Parts": {"type": "list", "member": {"target": "com.example#Part"}},
    "com.example#Part": {"type": "structure", "members": {"partName": {"target": "smithy.api#String"}}},
    "com.example#Tags": {"type": "map", "key": {"target": "smithy.api#String"}, "value": {"target": "com.example#Part"}},
    "com.example#Detail": {"type": "union", "members": {"textDetail": {"target": "smithy.api#String"}, "numberDetail": {"target": "smithy.api#Integer"}}}
  }
}`

// The operation's Go types as aws-sdk-go-v2 generates them: Go names, no
// tags, a ResultMetadata that is no member, a union as an interface.
type (
	GetGadgetInput  struct{ ThingName *string }
	GetGadgetOutput struct {
		Status         string
		Parts          []GadgetPart
		Tags           map[string]GadgetPart
		Detail         GadgetDetail
		Name           *string
		ResultMetadata map[string]string
	}
	GadgetPart   struct{ PartName *string }
	GadgetDetail interface{ isGadgetDetail() }

	GadgetDetailMemberTextDetail struct{ Value string }
)

func (*GadgetDetailMemberTextDetail) isGadgetDetail() {}

func thingOutput() *GetGadgetOutput {
	a := "a"
	return &GetGadgetOutput{
		Status: "ACTIVE", Parts: []GadgetPart{{PartName: &a}}, Tags: map[string]GadgetPart{"k": {}},
		Detail: &GadgetDetailMemberTextDetail{Value: "x"}, ResultMetadata: map[string]string{"RequestId": "r"},
	}
}

func thingWaiter(t *testing.T, name string) *waiter.Waiter[*GetGadgetInput, *GetGadgetOutput] {
	t.Helper()
	c, err := model.LoadSmithy(strings.NewReader(thingModel))
	if err != nil {
		t.Fatal(err)
	}
	def, err := c.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	w, err := waiter.New(def, func(context.Context, *GetGadgetInput) (*GetGadgetOutput, error) { return thingOutput(), nil })
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestModelMemberNames: a waiter loaded from a model keys its output's Go
// fields by the model's member names: contains(keys(@), 'status') matches
// {Status}, a field that stands for no member (ResultMetadata) is not
// listed, and the names reach list elements, map values, a union member
// and a mixin's members.
func TestModelMemberNames(t *testing.T) {
	thing := "t1"
	in := &GetGadgetInput{ThingName: &thing}
	for _, name := range []string{"ThingHasStatus", "ThingPartsListed", "ThingMerged"} {
		j := thingWaiter(t, name).Judge(in, thingOutput(), nil)
		if j.State != classify.Success || j.EvalErr != nil {
			t.Errorf("%s: Judge = %+v, want success", name, j)
		}
	}
}

// TestModelMemberNamesToString: to_string of a struct gives the model's
// member names.
func TestModelMemberNamesToString(t *testing.T) {
	c, err := model.LoadSmithy(strings.NewReader(thingModel))
	if err != nil {
		t.Fatal(err)
	}
	def, _ := c.Get("ThingHasStatus")
	def.Acceptors = []classify.Acceptor{{
		State:   classify.Failure,
		Matcher: classify.OnSuccess(true),
		Message: "to_string(@)",
	}}
	def.Acceptors = append(def.Acceptors, classify.Acceptor{State: classify.Success, Matcher: classify.OnErrorType("Never")})
	w, err := waiter.New(def, func(context.Context, *GetGadgetInput) (*GetGadgetOutput, error) { return nil, nil })
	if err != nil {
		t.Fatal(err)
	}
	out := thingOutput()
	out.Parts, out.Tags, out.Detail = nil, nil, nil
	j := w.Judge(&GetGadgetInput{}, out, nil)
	if want := `{"detail":null,"name":null,"parts":[],"status":"ACTIVE","tags":{}}`; j.State != classify.Failure || j.Message != want {
		t.Errorf("Judge = %+v, want a failure whose message is %s", j, want)
	}
}

// TestModelConflict: one Go struct type that stands for two shapes whose
// members name its fields differently is an error of New, naming both.
func TestModelConflict(t *testing.T) {
	type Both struct{ A, B *string }
	type Out struct{ X, Y Both }
	def := waiter.Definition{
		Name:      "Conflict",
		Acceptors: []classify.Acceptor{{State: classify.Success, Matcher: classify.OnSuccess(true)}},
		Operation: waiter.Operation{Model: &model.Shapes{Output: "Out", Shapes: map[string]model.Shape{
			"Out": {Type: "structure", Members: map[string]string{"x": "S1", "y": "S2"}},
			"S1":  {Type: "structure", Members: map[string]string{"a": "String"}},
			"S2":  {Type: "structure", Members: map[string]string{"b": "String"}},
		}}},
	}
	_, err := waiter.New(def, func(context.Context, any) (*Out, error) { return nil, nil })
	var de *waiter.DefinitionError
	if !errors.As(err, &de) || de.Rule != "model" || !strings.Contains(err.Error(), "stands for shapes S1 and S2") {
		t.Errorf("New = %v, want a model error naming shapes S1 and S2", err)
	}
	// The same shape twice is no conflict.
	def.Operation.Model.(*model.Shapes).Shapes["Out"] = model.Shape{Type: "structure", Members: map[string]string{"x": "S1", "y": "S1"}}
	if _, err := waiter.New(def, func(context.Context, any) (*Out, error) { return nil, nil }); err != nil {
		t.Errorf("New with one shape twice = %v", err)
	}
}

const gadgetWaiters = `{"version": 2, "waiters": {
  "GadgetReady": {"delay": 5, "maxAttempts": 10, "operation": "GetThing", "acceptors": [
    {"matcher": "path", "argument": "contains(keys(@), 'status')", "expected": true, "state": "success"},
    {"matcher": "error", "expected": "NoSuchThing", "state": "failure"}
  ]}
}}`

const gadgetService = `{
  "version": "2.0",
  "metadata": {"serviceId": "Gadgets", "protocol": "rest-json"},
  "operations": {
    "GetThing": {"name": "GetThing", "input": {"shape": "GetThingRequest"}, "output": {"shape": "GetThingResponse"}, "errors": [{"shape": "NoSuchThing"}]},
    "Ping": {"name": "Ping"}
  },
  "shapes": {
    "GetThingRequest": {"type": "structure", "members": {"thingName": {"shape": "String"}}},
    "GetThingResponse": {"type": "structure", "members": {
      "status": {"shape": "String"}, "name": {"shape": "String"},
      "parts": {"shape": "Parts"}, "tags": {"shape": "Tags"}, "detail": {"shape": "Detail"}
    }},
    "Parts": {"type": "list", "member": {"shape": "Part"}},
    "Part": {"type": "structure", "members": {"partName": {"shape": "String"}}},
    "Tags": {"type": "map", "key": {"shape": "String"}, "value": {"shape": "Part"}},
    "Detail": {"type": "structure", "union": true, "members": {"textDetail": {"shape": "String"}}},
    "NoSuchThing": {"type": "structure", "members": {"message": {"shape": "String"}}, "exception": true},
    "String": {"type": "string"}
  }
}`

// TestLoadBotocoreService: with the service model beside waiters-2.json,
// definitions carry the operation's shapes and its member names.
func TestLoadBotocoreService(t *testing.T) {
	c, err := model.LoadBotocoreService(strings.NewReader(gadgetWaiters), strings.NewReader(gadgetService))
	if err != nil {
		t.Fatal(err)
	}
	def, err := c.Get("GadgetReady")
	if err != nil {
		t.Fatal(err)
	}
	op := def.Operation
	if op.ID != "GetThing" || op.Service != "Gadgets" || op.Input != "GetThingRequest" || op.Output != "GetThingResponse" || len(op.Errors) != 1 || op.Errors[0] != "NoSuchThing" {
		t.Errorf("Operation = %+v", op)
	}
	sm, ok := op.Model.(*model.Shapes)
	if !ok || sm.Output != "GetThingResponse" || sm.Shapes["Detail"].Type != "union" || sm.Shapes["Parts"].Member != "Part" || sm.Shapes["Tags"].Member != "Part" || len(sm.Shapes) != 6 {
		t.Errorf("Model = %+v", op.Model)
	}
	w, err := waiter.New(def, func(context.Context, *GetGadgetInput) (*GetGadgetOutput, error) { return nil, nil })
	if err != nil {
		t.Fatal(err)
	}
	if j := w.Judge(&GetGadgetInput{}, thingOutput(), nil); j.State != classify.Success {
		t.Errorf("Judge = %+v, want success: contains(keys(@), 'status') with the model's names", j)
	}
	// Without the service model: Go names.
	c, err = model.LoadBotocore(strings.NewReader(gadgetWaiters))
	if err != nil {
		t.Fatal(err)
	}
	def, _ = c.Get("GadgetReady")
	if def.Operation.Model != nil {
		t.Errorf("LoadBotocore gave a Model: %+v", def.Operation.Model)
	}
	w, err = waiter.New(def, func(context.Context, *GetGadgetInput) (*GetGadgetOutput, error) { return nil, nil })
	if err != nil {
		t.Fatal(err)
	}
	if j := w.Judge(&GetGadgetInput{}, thingOutput(), nil); j.State != classify.Retry {
		t.Errorf("without the service model: Judge = %+v, want retry (Go names: Status)", j)
	}
}

// TestLoadBotocoreServiceErrors: an operation the service lacks, a path
// matcher on an operation without output, and documents given in the
// wrong place are errors that say so.
func TestLoadBotocoreServiceErrors(t *testing.T) {
	for _, tt := range []struct {
		name, waiters, service, want string
	}{
		{"unknown operation", strings.Replace(gadgetWaiters, `"GetThing"`, `"GetThang"`, 1), gadgetService, "waiter GadgetReady: operation: the service model has no operation GetThang"},
		{"no output", strings.Replace(gadgetWaiters, `"GetThing"`, `"Ping"`, 1), gadgetService, "waiter GadgetReady: acceptor 0: matcher: an output matcher on Ping, which has no output"},
		{"swapped", gadgetService, gadgetWaiters, "service: this is a botocore waiters-2.json document"},
		{"service to LoadSmithy", "", "", "this is a botocore service-2.json document (give it to LoadBotocoreService"},
		{"not a service model", gadgetWaiters, `{"metadata": {}, "operations": {}}`, `the service model has no "operations" or no "shapes"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			if tt.waiters == "" {
				_, err = model.LoadSmithy(strings.NewReader(gadgetService))
			} else {
				_, err = model.LoadBotocoreService(strings.NewReader(tt.waiters), strings.NewReader(tt.service))
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// TestShapesRules: a Shapes finds a member's field by package
// jmespath's Go rule (a json tag of its name too), and leaves the types
// its shapes do not reach to the Go rule; ParseWaitable gives no Model.
func TestShapesRules(t *testing.T) {
	type Extra struct{ Note string }
	type Out struct {
		State string `json:"state"`
		Count int
		Extra Extra // the model's member extra targets a simple shape
	}
	m := &model.Shapes{Output: "Out", Shapes: map[string]model.Shape{
		"Out": {Type: "structure", Members: map[string]string{"state": "String", "count": "Integer", "extra": "Document"}},
	}}
	names, err := m.MemberNames(nil, reflect.TypeFor[*Out]())
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, typ := range []reflect.Type{reflect.TypeFor[Out](), reflect.TypeFor[Extra]()} {
		for _, f := range jmespath.Fields(typ, names) {
			keys = append(keys, f.Key)
		}
	}
	if got := strings.Join(keys, " "); got != "state count extra Note" {
		t.Errorf("keys = %s, want state count extra (the model's) then Note (Extra is no shape of it)", got)
	}
	defs, err := model.ParseWaitable([]byte(`{"A": {"acceptors": [{"state": "success", "matcher": {"success": true}}]}}`))
	if err != nil || defs[0].Operation.Model != nil {
		t.Errorf("ParseWaitable = %+v, %v; want a definition with no Model", defs, err)
	}
}

// TestZeroValues: a zero Shapes names no members (the Go rule throughout)
// and a zero Catalog is an empty catalog, as their docs say.
func TestZeroValues(t *testing.T) {
	type Out struct {
		State string `json:"state"`
		Count int
	}
	names, err := (&model.Shapes{}).MemberNames(nil, reflect.TypeFor[*Out]())
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, f := range jmespath.Fields(reflect.TypeFor[Out](), names) {
		keys = append(keys, f.Key)
	}
	if got := strings.Join(keys, " "); got != "state Count" {
		t.Errorf("keys with a zero Shapes = %s, want state Count (the Go rule)", got)
	}
	var c model.Catalog
	if _, err := c.Get("A"); !errors.Is(err, model.ErrUnknownWaiter) || len(c.Names()) != 0 || c.Warnings() != nil {
		t.Errorf("zero Catalog: Get = %v, Names = %v, Warnings = %v; want an empty catalog", err, c.Names(), c.Warnings())
	}
}
