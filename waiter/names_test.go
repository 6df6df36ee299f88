package waiter_test

import (
	"context"
	"testing"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/waiter"
)

// TestGoOnlyJSONTags: a definition with no model (a Go literal) keys a Go
// struct's fields by their json tags; json:"-" hides a field; a field
// without a tag keeps its Go name.
func TestGoOnlyJSONTags(t *testing.T) {
	type Out struct {
		Status string `json:"status"`
		Token  string `json:"-"`
		Region string
	}
	def := waiter.Definition{Name: "Tagged", Acceptors: []classify.Acceptor{{
		State:   classify.Success,
		Matcher: classify.OnOutput("contains(keys(@), 'status') && !contains(keys(@), 'Token') && contains(keys(@), 'Region') && status == 'READY'", classify.BooleanEquals, "true"),
	}}}
	w, err := waiter.New(def, func(context.Context, any) (*Out, error) { return nil, nil })
	if err != nil {
		t.Fatal(err)
	}
	if j := w.Judge(nil, &Out{Status: "READY", Token: "secret", Region: "eu"}, nil); j.State != classify.Success {
		t.Errorf("Judge = %+v, want success", j)
	}
}
