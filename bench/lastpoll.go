package bench

import (
	"context"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/waiter"
)

// The last-poll rows: when each of the two last-attempt rules of the
// Smithy specification sees a resource that becomes ready during the wait.
// The specification's first rule (aws-sdk-go-v2's waiters, and
// WithFinalReserve(MinDelay)) polls MinDelay before the deadline; its
// current rule (Waitable's default) polls at the end of the budget, less
// the latency seen. The waits run on the waiter's own core (Begin, Step),
// with no jitter draw of chance: the seeds are fixed.

// lastPollDef is DynamoDB's TableExists as its Smithy model writes it:
// 20s to 120s between polls.
var lastPollDef = waiter.Definition{Name: "TableExists", MinDelay: 20 * time.Second, MaxDelay: 120 * time.Second,
	Acceptors: []classify.Acceptor{{State: classify.Success, Matcher: classify.OnSuccess(true)}}}

// LastPollStats is one rule's detection lag over ready times spread across
// a budget.
type LastPollStats struct {
	Rule            string
	Budget          time.Duration
	P50, P90, Worst time.Duration // from ready to the end of the poll that sees it
	Missed          int           // ready times the wait never saw
	Requests        float64       // per wait
	MinSpacing      time.Duration // the least time between two polls' starts
}

// lastPollRules are the two rules, as the final reserve the waiter keeps.
var lastPollRules = []struct {
	name    string
	reserve *time.Duration // nil: the default, the latency seen
}{
	{"current rule (Waitable's default): the final poll at the end of the budget", nil},
	{"first rule (aws-sdk-go-v2, WithFinalReserve(MinDelay)): MinDelay before the deadline", ptrTo(20 * time.Second)},
}

func ptrTo[T any](v T) *T { return &v }

// RunLastPoll waits, for each ready time from 1s to the budget less 1s in
// steps of a second and each of seeds jitter seeds, with calls of 50ms,
// under each rule.
func RunLastPoll(budget time.Duration, seeds int) []LastPollStats {
	const latency = 50 * time.Millisecond
	var out []LastPollStats
	for _, rule := range lastPollRules {
		opts := []waiter.Option{}
		if rule.reserve != nil {
			opts = append(opts, waiter.WithFinalReserve(*rule.reserve))
		}
		var ready time.Duration
		w, err := waiter.New(lastPollDef, func(ctx context.Context, _ string) (bool, error) { return true, nil }, opts...)
		if err != nil {
			panic(err)
		}
		st := LastPollStats{Rule: rule.name, Budget: budget, MinSpacing: budget}
		var lags []time.Duration
		requests, waits := 0, 0
		t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		for ready = time.Second; ready < budget; ready += time.Second {
			for seed := range seeds {
				s, err := w.Begin(t0, budget, uint64(seed)+1)
				if err != nil {
					panic(err)
				}
				waits++
				var last time.Time
				for at := t0; ; at = s.Next {
					requests++
					if !last.IsZero() {
						st.MinSpacing = min(st.MinSpacing, at.Sub(last))
					}
					last = at
					j := waiter.Judgment{Acceptor: -1, State: classify.Retry}
					if at.Sub(t0)+latency > ready {
						j = waiter.Judgment{Acceptor: 0, State: classify.Success}
					}
					a, err := w.Step(s, waiter.Answer[bool]{Start: at, Latency: latency, Judgment: j}, at.Add(latency))
					s = a.Checkpoint
					if a.Checkpoint.End == "" {
						continue
					}
					if err == nil {
						lags = append(lags, at.Add(latency).Sub(t0)-ready)
					} else {
						st.Missed++
					}
					break
				}
			}
		}
		slices.Sort(lags)
		if n := len(lags); n > 0 {
			st.P50, st.P90, st.Worst = lags[n/2], lags[n*9/10], lags[n-1]
		}
		st.Requests = float64(requests) / float64(waits)
		out = append(out, st)
	}
	return out
}

// writeLastPoll writes the last-poll table.
func writeLastPoll(w io.Writer, rows []LastPollStats) {
	fmt.Fprintln(w, "Last poll: DynamoDB's TableExists (20s to 120s between polls), calls of 50ms, the table ready at each second of the budget, 20 jitter seeds each; lag from ready to the end of the poll that sees it:")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| budget | rule | p50 lag | p90 lag | worst lag | never seen | requests a wait | least spacing of polls |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	for _, r := range rows {
		fmt.Fprintf(w, "| %v | %s | %v | %v | %v | %d | %.2f | %v |\n", r.Budget, r.Rule, r.P50.Round(10*time.Millisecond),
			r.P90.Round(10*time.Millisecond), r.Worst.Round(10*time.Millisecond), r.Missed, r.Requests, r.MinSpacing.Round(10*time.Millisecond))
	}
}
