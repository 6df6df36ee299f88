package model_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/waitable/waitable/waiter/model"
)

// Load the waiters of a Smithy model.
func ExampleLoadSmithy() {
	doc := `{"smithy": "2.0", "shapes": {
	  "example#Things": {"type": "service", "operations": [{"target": "example#GetThing"}]},
	  "example#GetThing": {"type": "operation", "output": {"target": "example#GetThingOutput"},
	    "traits": {"smithy.waiters#waitable": {"ThingExists": {
	      "acceptors": [
	        {"state": "failure", "matcher": {"output": {"path": "status", "comparator": "stringEquals", "expected": "failed"}}},
	        {"state": "success", "matcher": {"output": {"path": "status", "comparator": "stringEquals", "expected": "success"}}}
	      ],
	      "minDelay": 5}}}}}}`
	c, err := model.LoadSmithy(strings.NewReader(doc))
	if err != nil {
		fmt.Println(err)
		return
	}
	d, _ := c.Get("ThingExists")
	fmt.Println(c.Names(), d.Operation.ID, d.Operation.Service)
	fmt.Println(d.Schedule().MinDelay, d.Schedule().MaxDelay)
	for _, a := range d.Acceptors {
		fmt.Println(a.State, a.Matcher)
	}
	// Output:
	// [ThingExists] example#GetThing example#Things
	// 5s 2m0s
	// failure output: status stringEquals "failed"
	// success output: status stringEquals "success"
}

// Validation reports every problem at once, each naming the waiter, the
// acceptor and the rule.
func ExampleParseWaitable_errors() {
	_, err := model.ParseWaitable([]byte(`{"thingExists": {"acceptors": [
	  {"state": "retry", "matcher": {"output": {"path": "status", "comparator": "equals", "expected": "x"}}}
	], "minDelay": 30, "maxDelay": 10}}`))
	fmt.Println(err)
	// Output:
	// waiter thingExists: name: "thingExists" is not UpperCamelCase letters and digits (^[A-Z][A-Za-z0-9]*$)
	// waiter thingExists: acceptors: none has state success: at least one is required (in the definition, or given to New with WithMatch)
	// waiter thingExists: maxDelay: 10s is less than minDelay 30s
	// waiter thingExists: acceptor 0: comparator: "equals" is not stringEquals, booleanEquals, allStringEquals or anyStringEquals
}

// Botocore's waiters-2.json maps onto the same definitions: a fixed delay
// and a poll limit (MaxPolls, botocore's maxAttempts).
func ExampleLoadBotocore() {
	c, err := model.LoadBotocore(strings.NewReader(`{"version": 2, "waiters": {"BucketExists": {
	  "delay": 5, "maxAttempts": 20, "operation": "HeadBucket",
	  "acceptors": [
	    {"expected": 200, "matcher": "status", "state": "success"},
	    {"expected": 404, "matcher": "status", "state": "retry"}
	  ]}}}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	d, _ := c.Get("BucketExists")
	fmt.Println(d.Operation.ID, d.MinDelay, d.MaxDelay, d.MaxPolls)
	for _, a := range d.Acceptors {
		fmt.Println(a.State, a.Matcher)
	}
	// Output:
	// HeadBucket 5s 5s 20
	// success status: 200
	// retry status: 404
}

// A name the catalog does not hold is an error matching ErrUnknownWaiter
// that suggests the nearest name it does hold.
func ExampleCatalog_Get() {
	c, err := model.LoadBotocore(strings.NewReader(`{"version": 2, "waiters": {"BucketExists": {
	  "delay": 5, "maxAttempts": 20, "operation": "HeadBucket",
	  "acceptors": [{"expected": 200, "matcher": "status", "state": "success"}]}}}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = c.Get("BucketExist")
	fmt.Println(errors.Is(err, model.ErrUnknownWaiter))
	fmt.Println(err)
	// Output:
	// true
	// model: no waiter "BucketExist" in the model; did you mean BucketExists?
}
