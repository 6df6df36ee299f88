package main

import (
	"bytes"
	"regexp"
	"strconv"
	"testing"
	"testing/synctest"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestBatch: every instance ends running or terminated, with calls of
// about 100 instances each, far fewer than one per instance and poll.
func TestBatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out bytes.Buffer
		if err := run(t.Context(), &out, 2000, 1); err != nil {
			t.Fatalf("run: %v\n%s", err, out.String())
		}
		m := regexp.MustCompile(`^1980 instances running, \[20 terminated\], in [\d.]+s with (\d+) DescribeInstances calls \((\d+) instances a call\)\n$`).FindStringSubmatch(out.String())
		if m == nil {
			t.Fatalf("output: %q", out.String())
		}
		perCall, _ := strconv.Atoi(m[2])
		if perCall < 50 {
			t.Errorf("%d instances a call, want calls of about 100", perCall)
		}
	})
}
