package main

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/retry"
	"go.uber.org/goleak"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/clocktest"
	"github.com/waitable/waitable/waiter"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// slowAPI's cluster is not found at first, then CREATING until readyAt,
// then ACTIVE (or FAILED); one describe answers 503.
type slowAPI struct {
	readyAt time.Time
	final   string
	calls   int
}

// unavailable is the API's 503, as its client reports it.
var unavailable = &classify.CallError{Code: "ServiceUnavailable", StatusCode: 503}

func (a *slowAPI) DescribeCluster(_ context.Context, id string) (*Cluster, error) {
	a.calls++
	switch {
	case a.calls <= 2:
		return nil, nil
	case a.calls == 6:
		return nil, unavailable
	case time.Now().Before(a.readyAt):
		return &Cluster{ID: id, Status: "CREATING"}, nil
	}
	return &Cluster{ID: id, Status: a.final}, nil
}

// TestREADMEProgram runs the README's wait on a create of 18 minutes
// under a 20-minute timeout, in virtual time: ACTIVE, FAILED, and one
// that outlasts the timeout.
func TestREADMEProgram(t *testing.T) {
	if c, err := waitClusterActive(t.Context(), activeAPI{}, "demo", time.Minute); err != nil || c.Status != "ACTIVE" {
		t.Fatalf("waitClusterActive(activeAPI) = %v, %v, want ACTIVE", c, err)
	}
	for _, tc := range []struct {
		name    string
		final   string
		readyIn time.Duration
		check   func(c *Cluster, err error) bool
	}{
		{"ACTIVE", "ACTIVE", 18 * time.Minute, func(c *Cluster, err error) bool { return err == nil && c.Status == "ACTIVE" }},
		{"FAILED", "FAILED", 18 * time.Minute, func(c *Cluster, err error) bool {
			var u *retry.UnexpectedStateError
			return errors.As(err, &u) && u.State == "FAILED" && c.Status == "FAILED"
		}},
		{"timeout", "ACTIVE", 25 * time.Minute, func(c *Cluster, err error) bool {
			var te *retry.TimeoutError
			return errors.As(err, &te) && te.LastState == "CREATING" && c == nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clocktest.Run(t, func(t *testing.T) {
				start := time.Now()
				api := &slowAPI{readyAt: start.Add(tc.readyIn), final: tc.final}
				c, err := waitClusterActive(t.Context(), api, "demo", 20*time.Minute, waiter.WithClock(clocktest.Clock()))
				t.Logf("%d describes in %v: %v, %v", api.calls, time.Since(start), c, err)
				if !tc.check(c, err) {
					t.Errorf("waitClusterActive() = %v, %v", c, err)
				}
				if time.Since(start) > 20*time.Minute {
					t.Errorf("waitClusterActive() took %v, more than its 20m timeout", time.Since(start))
				}
			})
		})
	}
}
