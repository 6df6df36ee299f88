package classify_test

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/waitable/waitable/classify"
)

// Compile a waiter's acceptors for the operation's Go types, then judge
// attempts with them.
func ExampleCompile() {
	type Table struct {
		TableStatus *string
	}
	type DescribeTableOutput struct {
		Table *Table
	}
	status := func(s string) *DescribeTableOutput { return &DescribeTableOutput{Table: &Table{TableStatus: &s}} }

	set, err := classify.Compile[any, *DescribeTableOutput]([]classify.Acceptor{
		{State: classify.Success, Matcher: classify.OnOutput("Table.TableStatus", classify.StringEquals, "ACTIVE")},
		{State: classify.Retry, Matcher: classify.OnErrorType("ResourceNotFoundException")},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, out := range []*DescribeTableOutput{status("CREATING"), status("ACTIVE")} {
		m := set.Match(nil, out, nil)
		fmt.Println(*out.Table.TableStatus, "→", m.State, "by acceptor", m.Index)
	}
	m := set.Match(nil, nil, errors.New("AccessDeniedException"))
	fmt.Println("an unmatched error →", m.State, "by acceptor", m.Index)
	// Output:
	// CREATING → retry by acceptor -1
	// ACTIVE → success by acceptor 0
	// an unmatched error → failure by acceptor -1
}

// Paths are checked against the Go types before any call is made.
func ExampleCompile_typo() {
	type Output struct{ Status string }
	_, err := classify.Compile[any, Output]([]classify.Acceptor{
		{State: classify.Success, Matcher: classify.OnOutput("Statuss", classify.StringEquals, "READY")},
	})
	fmt.Println(err)
	// Output:
	// acceptor 0: path: Statuss: type error at offset 0: field "Statuss" does not exist on classify_test.Output (did you mean Status?)
}

type throttled struct{}

func (throttled) Error() string     { return "slow down" }
func (throttled) ErrorCode() string { return "ThrottlingException" }

// Classify tells a retry strategy what an error means.
func ExampleClassify() {
	v := classify.Classify(fmt.Errorf("DescribeTable: %w", throttled{}))
	fmt.Println(v.Safety, v.Throttle, v.Code, v.Reason)
	fmt.Println(classify.Classify(errors.New("mystery")).Retryable(false))
	// Output:
	// yes true ThrottlingException throttled
	// false
}

// An errorType matches by ErrorCode() or by the Go type's name, anywhere on
// the error chain; an absolute shape ID matches by its name part.
func ExampleErrorMatches() {
	err := fmt.Errorf("HeadBucket: %w", throttled{})
	fmt.Println(classify.ErrorMatches(err, "com.amazonaws.dynamodb#ThrottlingException"))
	fmt.Println(classify.ErrorMatches(err, "throttled"))
	// Output:
	// true
	// true
}

// A CallError carries what a service's answer said of a failed call: an
// adapter reads the answer once, and every retry strategy and waiter
// reads the CallError through Classify. The hint's HTTP date is measured
// from the answer's own Date, whatever the caller's clock says.
func ExampleCallError() {
	answer := http.Header{
		"Date":        {"Mon, 23 Nov 2026 12:00:00 GMT"},
		"Retry-After": {"Mon, 23 Nov 2026 12:00:40 GMT"},
	}
	after, _ := classify.RetryAfterHeader(answer, time.Time{})
	err := &classify.CallError{Err: errors.New("the service is busy"), StatusCode: 503, RetryAfter: after}

	v := classify.Classify(fmt.Errorf("poll: %w", err))
	fmt.Println(v.Safety, v.Fault, v.StatusCode, v.RetryAfter)
	// Output:
	// yes server 503 40s
}
