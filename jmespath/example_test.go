package jmespath_test

import (
	"fmt"

	"github.com/waitable/waitable/jmespath"
)

type InstanceState struct{ Name string }
type Instance struct {
	InstanceId *string
	State      *InstanceState
}
type Reservation struct{ Instances []Instance }
type DescribeInstancesOutput struct{ Reservations []Reservation }

func ExampleExpr_Eval() {
	id := "i-1"
	out := &DescribeInstancesOutput{Reservations: []Reservation{
		{Instances: []Instance{{InstanceId: &id, State: &InstanceState{Name: "running"}}}},
		{Instances: []Instance{{State: &InstanceState{Name: "pending"}}}},
	}}
	e, err := jmespath.Compile("Reservations[].Instances[].State.Name")
	if err != nil {
		panic(err)
	}
	v, err := e.Eval(out) // reads out in place, allocating nothing
	if err != nil {
		panic(err)
	}
	running, total := 0, 0
	v.Elements(func(name jmespath.Value) bool {
		total++
		if s, _ := name.String(); s == "running" {
			running++
		}
		return true
	})
	fmt.Println(running, "of", total, "running")
	// Output: 1 of 2 running
}

func ExampleExpr_Search() {
	out := &DescribeInstancesOutput{Reservations: []Reservation{
		{Instances: []Instance{{State: &InstanceState{Name: "running"}}, {State: &InstanceState{Name: "pending"}}}},
	}}
	e, err := jmespath.Compile("length(Reservations[].Instances[?State.name == 'pending'][])")
	if err != nil {
		panic(err)
	}
	n, err := e.Search(out)
	fmt.Println(n, err)
	// Output: 1 <nil>
}

func ExampleCompile_errors() {
	_, err := jmespath.Compile("Reservations[].Instances[.State")
	fmt.Println(err)
	_, err = jmespath.Compile("lenght(Reservations)")
	fmt.Println(err)
	// Output:
	// syntax error at offset 25: expected a number, ":" or "*" after "[", found "."
	// syntax error at offset 0: unknown function lenght()
}
