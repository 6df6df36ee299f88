package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestSchedule(t *testing.T) {
	var out bytes.Buffer
	svg := filepath.Join(t.TempDir(), "s.svg")
	c := config{minDelay: 2 * time.Second, maxDelay: 120 * time.Second, maxWait: 5 * time.Minute, latency: 100 * time.Millisecond, reserve: -1, seeds: 200}
	if err := run(c, &out, svg); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	// The first poll is at 0 and the second 2.1s later, for every seed; the
	// last ends exactly at the deadline.
	for _, want := range []string{"    1          0s          0s          0s  200", "    2        2.1s        2.1s        2.1s  200", "the last poll ends between 5m0s and 5m0s"} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
	b, err := os.ReadFile(svg)
	if err != nil || !bytes.HasPrefix(b, []byte("<svg")) || !bytes.Contains(b, []byte("deadline")) {
		t.Errorf("SVG: %v\n%.200s", err, b)
	}
	if err := run(config{minDelay: 10 * time.Second, maxDelay: time.Second, maxWait: time.Minute, seeds: 1}, &out, ""); err == nil {
		t.Error("min above max accepted")
	}
}
