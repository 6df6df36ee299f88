package waiter

import "testing"

// reserveStack must grow the stack, not the heap: a pad that escaped would
// cost an allocation of 5 KB per attempt.
func TestReserveStackDoesNotAllocate(t *testing.T) {
	if n := testing.AllocsPerRun(100, reserveStack); n != 0 {
		t.Fatalf("reserveStack allocates %v times a call, want 0", n)
	}
}
