package main

import (
	"bytes"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestFanout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out bytes.Buffer
		if err := run(t.Context(), &out, 1000, time.Second); err != nil {
			t.Fatalf("run: %v\n%s", err, out.String())
		}
		if s := out.String(); !strings.Contains(s, "1000/1000 done, 20 failed") || !strings.Contains(s, "980 volumes available, 20 failed") {
			t.Errorf("output:\n%s", s)
		}
	})
}
