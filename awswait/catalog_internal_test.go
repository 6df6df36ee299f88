package awswait

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/waitable/waitable/waiter/model"
)

// TestEveryServiceDecodes: each service's embedded waiters decode, found by
// the service's Go package name ("arcregionswitch" for botocore's
// arc-region-switch), and together they are every waiter embedded.
func TestEveryServiceDecodes(t *testing.T) {
	var e embedded
	if err := json.Unmarshal(waitersJSON, &e); err != nil {
		t.Fatal(err)
	}
	want, pkgs := len(e.Smithy), map[string]bool{}
	for _, s := range e.Smithy {
		pkgs[packageName(s.SDKID)] = true
	}
	toPkg := map[string]string{}
	for p, b := range botocoreNames {
		toPkg[b] = p
	}
	for name, doc := range e.Botocore {
		var d struct{ Waiters map[string]json.RawMessage }
		if err := json.Unmarshal(doc, &d); err != nil {
			t.Fatal(err)
		}
		want += len(d.Waiters)
		if p, ok := toPkg[name]; ok {
			name = p
		}
		pkgs[notAlnum.ReplaceAllString(name, "")] = true
	}
	got := 0
	for p := range pkgs {
		defs, err := serviceWaiters(p)
		if err != nil {
			t.Errorf("%s: %v", p, err)
		}
		got += len(defs)
	}
	if got != want {
		t.Errorf("the services' waiters number %d, want %d", got, want)
	}
	t.Logf("%d services, %d waiters", len(pkgs), got)
}

// DescribeTableInput stands for dynamodb.DescribeTableInput: definition
// reads only its name.
type DescribeTableInput struct{}

// TestUnknownWaiter: a name the service has no waiter of, or a service
// with no waiters at all, is an error matching model.ErrUnknownWaiter, as
// Catalog.Get's is, and suggests the nearest names.
func TestUnknownWaiter(t *testing.T) {
	in := reflect.TypeFor[DescribeTableInput]()
	if d, err := definition("dynamodb", in, "TableExists"); err != nil || d.Name != "TableExists" {
		t.Fatalf("definition(TableExists) = %v, %v", d.Name, err)
	}
	tests := []struct {
		pkg, name, want string
	}{
		{"dynamodb", "TableExist", `awswait: dynamodb has no waiter "TableExist" (did you mean TableExists?)`},
		{"dynamodb", "Nothing", `awswait: dynamodb has no waiter "Nothing" (it has TableExists, TableNotExists)`},
		{"awswait", "TableExists", "awswait: AWS publishes no waiters for awswait (the package of awswait.DescribeTableInput)"},
	}
	for _, tt := range tests {
		_, err := definition(tt.pkg, in, tt.name)
		if !errors.Is(err, model.ErrUnknownWaiter) || err.Error() != tt.want {
			t.Errorf("definition(%s, %s) = %v, want %q matching model.ErrUnknownWaiter", tt.pkg, tt.name, err, tt.want)
		}
	}
	// A waiter of the service that polls another operation is not an
	// unknown name.
	type GetThingInput struct{}
	_, err := definition("dynamodb", reflect.TypeFor[GetThingInput](), "TableExists")
	if err == nil || errors.Is(err, model.ErrUnknownWaiter) {
		t.Errorf("definition(TableExists) on GetThingInput = %v, want an error that is not ErrUnknownWaiter", err)
	}
}
