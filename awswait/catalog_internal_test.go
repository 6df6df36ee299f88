package awswait

import (
	"encoding/json"
	"testing"
)

// TestEveryServiceDecodes: each service's embedded waiters decode, and
// together they are every waiter embedded.
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
		pkgs[name] = true
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
