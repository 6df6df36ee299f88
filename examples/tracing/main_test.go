package main

import (
	"bytes"
	"strings"
	"testing"
	"testing/synctest"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestTracing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out bytes.Buffer
		if err := run(t.Context(), &out, false); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		if len(lines) != 8 || !strings.HasPrefix(lines[0], "create-stream") || !strings.HasPrefix(lines[1], "  wait StreamActive") ||
			!strings.HasPrefix(lines[2], "    attempt") || !strings.HasPrefix(lines[3], "      Kinesis.DescribeStream") {
			t.Errorf("span tree:\n%s", out.String())
		}
	})
}

func TestDelayEvents(t *testing.T) {
	if got := delayEvents(1); got != "1 delay event" {
		t.Errorf("delayEvents(1) = %q", got)
	}
	if got := delayEvents(2); got != "2 delay events" {
		t.Errorf("delayEvents(2) = %q", got)
	}
}
