package main

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestEventStream reads the SSE stream as a client would: every attempt of
// every wait, in order, then each wait's end, then the end of the stream.
func TestEventStream(t *testing.T) {
	srv := httptest.NewServer(handler(time.Millisecond))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	last := map[string]int{}
	ended := map[string]string{}
	sawEnd := false
	for sc := bufio.NewScanner(resp.Body); sc.Scan(); {
		line := sc.Text()
		if line == "event: end" {
			sawEnd = true
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok || sawEnd {
			continue
		}
		var e event
		if err := json.Unmarshal([]byte(data), &e); err != nil {
			t.Fatal(err)
		}
		if e.Done {
			ended[e.Wait] = e.Error
			continue
		}
		if e.Attempt != last[e.Wait]+1 {
			t.Errorf("%s: attempt %d after %d", e.Wait, e.Attempt, last[e.Wait])
		}
		last[e.Wait] = e.Attempt
	}
	if !sawEnd || last["api"] != 3 || last["worker"] != 5 || last["batch"] != 4 || ended["api"] != "" || !strings.Contains(ended["batch"], "failure") {
		t.Errorf("attempts %v, ended %v, end %v", last, ended, sawEnd)
	}
}

// TestPageInChromium loads the page in headless Chromium, which follows
// the event stream and draws the timelines; the test reads the final DOM.
// It skips when Chromium is not installed (.ci/run installs it).
func TestPageInChromium(t *testing.T) {
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium not installed (apt-get install chromium; .ci/run does): skipping the browser test")
	}
	srv := httptest.NewServer(handler(20 * time.Millisecond))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
		"--user-data-dir="+t.TempDir(), "--virtual-time-budget=20000", "--dump-dom", srv.URL+"/")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, out)
	}
	dom := string(out)
	for _, want := range []string{"all waits ended", `id="wait-api"`, `id="wait-worker"`, `id="wait-batch"`, "#5 SUCCEEDED", "#4 FAILED", "failed</td>"} {
		if !strings.Contains(dom, want) {
			t.Errorf("the page lacks %q:\n%s", want, dom)
		}
	}
}
