package waiter_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/clocktest"
	"github.com/waitable/waitable/waiter"
)

type http404 struct{}

func (http404) Error() string       { return "404 Not Found" }
func (http404) HTTPStatusCode() int { return 404 }

func ptr[T any](v T) *T { return &v }

// TestNotFoundLimit: n not-found answers in a row end a wait for a
// resource to appear with FailureNeverAppeared, though an acceptor says
// retry on NotFound; an HTTP 404 counts too; any other answer breaks the
// run.
func TestNotFoundLimit(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		rec := newRecorder(func(n int) (*GetThingOutput, error) {
			if n%2 == 0 {
				return nil, http404{}
			}
			return nil, notFound{}
		})
		retry404 := withAcceptors(thingExists, classify.Acceptor{State: classify.Retry, Matcher: classify.OnHTTPStatus(404)})
		_, err := mustNew(t, retry404, rec.op, waiter.WithNotFoundLimit(3)).Wait(t.Context(), GetThingInput{"a"}, time.Hour)
		var we *waiter.Error
		if !errors.As(err, &we) || we.Failure != waiter.FailureNeverAppeared || len(rec.times()) != 3 ||
			!strings.Contains(err.Error(), "never appeared") || !strings.Contains(err.Error(), "3 not-found answers in a row") {
			t.Fatalf("Wait = %v after %d calls; want FailureNeverAppeared after 3", err, len(rec.times()))
		}

		script := []error{notFound{}, notFound{}, nil, notFound{}, notFound{}, nil}
		rec = newRecorder(func(n int) (*GetThingOutput, error) {
			if n == len(script) {
				return status("success"), nil
			}
			if err := script[n-1]; err != nil {
				return nil, err
			}
			return status("creating"), nil
		})
		if _, err := mustNew(t, thingExists, rec.op, waiter.WithNotFoundLimit(3)).Wait(t.Context(), GetThingInput{"a"}, time.Hour); err != nil {
			t.Errorf("Wait with found answers between = %v, want success", err)
		}
	})
}

// TestNotFoundAfterItWasSeen: a resource found, then not found as many
// times in a row as the limit, disappeared (FailureDisappeared); it did
// not never appear.
func TestNotFoundAfterItWasSeen(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		rec := newRecorder(func(n int) (*GetThingOutput, error) {
			if n == 1 {
				return status("creating"), nil
			}
			return nil, notFound{}
		})
		_, err := mustNew(t, thingExists, rec.op, waiter.WithNotFoundLimit(2)).Wait(t.Context(), GetThingInput{"a"}, time.Hour)
		var we *waiter.Error
		if !errors.As(err, &we) || we.Failure != waiter.FailureDisappeared || len(rec.times()) != 3 ||
			!strings.Contains(err.Error(), "2 not-found answers in a row: the resource disappeared after it was seen") {
			t.Fatalf("Wait = %v after %d calls; want FailureDisappeared after 3", err, len(rec.times()))
		}
	})
}

// TestIdentityRecreated: an identity that changes between two answers
// ends the wait with FailureRecreated, naming both; an error between them
// changes nothing.
func TestIdentityRecreated(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		rec := newRecorder(func(n int) (*GetThingOutput, error) {
			arn := "arn:thing/a/1"
			switch {
			case n == 2:
				return nil, notFound{}
			case n >= 3:
				arn = "arn:thing/a/2"
			}
			return &GetThingOutput{Status: ptr("creating"), Reason: &arn}, nil
		})
		r := mustNew(t, thingExists, rec.op, waiter.WithIdentity("Reason")).Start(t.Context(), GetThingInput{"a"}, time.Hour)
		var last waiter.Attempt[*GetThingOutput]
		for a := range r.Events() {
			last = a
		}
		_, err := r.Result()
		var we *waiter.Error
		if !errors.As(err, &we) || we.Failure != waiter.FailureRecreated || len(rec.times()) != 3 ||
			!strings.Contains(err.Error(), "arn:thing/a/1 became arn:thing/a/2") || last.Checkpoint.End != "failure" || last.Checkpoint.Identity != "arn:thing/a/1" {
			t.Fatalf("Result = %v after %d calls, last event %+v; want FailureRecreated on the 3rd", err, len(rec.times()), last)
		}
	})
}

// TestAppearBadValues: a limit below 1, an empty identity path, or one
// that names no field of the output are refused at New.
func TestAppearBadValues(t *testing.T) {
	for _, o := range []waiter.Option{waiter.WithNotFoundLimit(0), waiter.WithIdentity(""), waiter.WithIdentity("Reasonn")} {
		if _, err := waiter.New(thingExists, readyAfter(1), o); !errors.Is(err, waiter.ErrInvalidOption) {
			t.Errorf("New = %v, want ErrInvalidOption", err)
		}
	}
	_, err := waiter.New(thingExists, readyAfter(1), waiter.WithIdentity("Reasonn"))
	if err == nil || !strings.Contains(err.Error(), "Reason") {
		t.Errorf("New with a misspelled identity = %v, want it to name the field", err)
	}
}

// withAcceptors returns def with acceptors tried before its own.
func withAcceptors(def waiter.Definition, acceptors ...classify.Acceptor) waiter.Definition {
	def.Acceptors = append(acceptors, def.Acceptors...)
	return def
}

// TestIdentityTimestamp: a creation time is an identity, as WithIdentity's
// doc says: a *time.Time path is accepted, compared as an instant (the
// same instant in another location is the same resource), and a new
// instant is a resource recreated. A path that gives an object is refused,
// naming what it gives.
func TestIdentityTimestamp(t *testing.T) {
	type Out struct {
		Status       *string
		CreationTime *time.Time
		Tags         map[string]string
	}
	created := time.Date(2026, 3, 1, 12, 0, 0, 500_000_000, time.UTC)
	def := waiter.Definition{Name: "ThingExists", Acceptors: []classify.Acceptor{
		{State: classify.Success, Matcher: classify.OnOutput("Status", classify.StringEquals, "ready")}}}
	clocktest.Run(t, func(t *testing.T) {
		n := 0
		op := func(context.Context, string) (*Out, error) {
			n++
			at := created.In(time.FixedZone("CET", 3600)) // the same instant
			if n >= 3 {
				at = created.Add(time.Minute) // recreated
			}
			return &Out{Status: ptr("creating"), CreationTime: &at}, nil
		}
		w, err := waiter.New(def, op, waiter.WithIdentity("CreationTime"), waiter.WithDelays(sec, sec))
		if err != nil {
			t.Fatalf("New(WithIdentity(CreationTime)) = %v, want a timestamp accepted", err)
		}
		_, err = w.Wait(t.Context(), "a", time.Hour)
		var we *waiter.Error
		if !errors.As(err, &we) || we.Failure != waiter.FailureRecreated || n != 3 ||
			!strings.Contains(err.Error(), "1772366400.5 became 1772366460.5") {
			t.Fatalf("Wait = %v after %d calls, want FailureRecreated on the 3rd (the creation time moved)", err, n)
		}
	})
	_, err := waiter.New(def, func(context.Context, string) (*Out, error) { return nil, nil }, waiter.WithIdentity("Tags"))
	if !errors.Is(err, waiter.ErrInvalidOption) || !strings.Contains(err.Error(), "must be a string, a number or a timestamp, but the path gives an object") {
		t.Errorf("New(WithIdentity(Tags)) = %v, want an identity that is an object refused", err)
	}
}
