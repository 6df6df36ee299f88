package clocktest_test

import (
	"context"
	"fmt"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/waitable/waitable/clocktest"
)

// waitReady is the kind of code a test drives: it checks a resource every
// 5 seconds of its clock until the resource is ready.
func waitReady(ctx context.Context, clk clock.Clock, ready func() bool) error {
	for !ready() {
		t := clk.Timer(5 * time.Second)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
	}
	return nil
}

// A test of a waiting loop with Mock: each Step waits until the loop has
// armed its timer, then moves time to the timer's deadline. No real time
// passes and the test cannot move time too early. (In a test function,
// clocktest.Run with the real clock is simpler still: see the package doc.)
func ExampleMock_Step() {
	m := clocktest.NewMock()
	start := m.Now()
	checks := 0
	ready := func() bool {
		checks++
		fmt.Printf("check %d at +%v\n", checks, m.Since(start))
		return checks == 3
	}
	done := make(chan error)
	go func() { done <- waitReady(context.Background(), m, ready) }()

	m.Step() // the first 5s wait ends
	m.Step() // the second ends
	fmt.Println("result:", <-done)
	// Output:
	// check 1 at +0s
	// check 2 at +5s
	// check 3 at +10s
	// result: <nil>
}

// WaitArmed lets a test look at the timer the code armed before deciding
// how far to move time.
func ExampleMock_WaitArmed() {
	m := clocktest.NewMock()
	go func() { m.Sleep(90 * time.Second) }()
	a := m.WaitArmed(1)
	fmt.Println(a.Kind, a.Delay)
	m.Add(a.Delay)
	// Output:
	// Sleep 1m30s
}
