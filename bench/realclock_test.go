package bench

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

// TestRealClockRows runs every side of the real-clock row at a small size,
// polls a nanosecond apart, under context.Background and under a
// cancellable context, and writes its table.
func TestRealClockRows(t *testing.T) {
	const n = 200
	for _, cancellable := range []bool{false, true} {
		ctx := context.Background()
		if cancellable {
			ctx = t.Context()
		}
		runs := map[int][][]RealStats{n: make([][]RealStats, len(RealSides))}
		for i, side := range RealSides {
			st, err := RunRealClock(ctx, side, n, time.Nanosecond)
			if err != nil {
				t.Fatalf("RunRealClock(%q, %d) = %v", side, n, err)
			}
			if st.Finish < st.Polled || st.Live > n {
				t.Errorf("RunRealClock(%q, %d) = %v: figures out of order", side, n, st)
			}
			runs[n][i] = append(runs[n][i], st)
		}
		var buf bytes.Buffer
		WriteRealClock(&buf, []int{n}, runs, 1, cancellable)
		for _, side := range RealSides {
			if !strings.Contains(buf.String(), "| "+side+" | 200 | ") {
				t.Errorf("the real-clock table has no row for %s:\n%s", side, buf.String())
			}
		}
		if got := strings.Contains(buf.String(), "under a cancellable caller's context"); got != cancellable {
			t.Errorf("cancellable %t: the title says a cancellable context: %t:\n%s", cancellable, got, buf.String())
		}
	}
}
