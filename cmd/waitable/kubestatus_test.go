package main

import (
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
)

// klogLine is a line klog writes (E1206 04:02:07.123456 ...).
var klogLine = regexp.MustCompile(`(?m)^[IWEF]\d{4} `)

// TestKubeServerTrouble: waitable kube exits 69 (EX_UNAVAILABLE) when the
// API server cannot be reached or answers 5xx until the deadline, 77
// (EX_NOPERM) when it refuses our credentials or the resource (401,
// 403); the last line names the server and the last error, and no klog
// line reaches standard error.
func TestKubeServerTrouble(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	l.Close()
	faulty := func(fault func(path string) int) string {
		api := newFakeAPI(t, readyWidget("a", "Running"))
		api.fault = fault
		return kubeconfig(t, api.Server, "fake", api.URL, "ns")
	}
	widgets := func(code int) func(string) int {
		return func(path string) int {
			if strings.Contains(path, "/widgets") {
				return code
			}
			return 0
		}
	}
	for _, tt := range []struct {
		name       string
		kubeconfig string
		code       int
		want       string
	}{
		{"refused", kubeconfig(t, nil, "gone", closed, ""), exitUnavailable,
			"waitable kube: the API server " + closed + " could not be reached: "},
		{"discovery 503", faulty(func(string) int { return http.StatusServiceUnavailable }), exitUnavailable, "could not be reached: "},
		{"discovery 401", faulty(func(string) int { return http.StatusUnauthorized }), exitNoPerm, "refused access: "},
		{"widgets 403", faulty(widgets(http.StatusForbidden)), exitNoPerm, "refused access: "},
		{"widgets 500", faulty(widgets(http.StatusInternalServerError)), exitUnavailable, "could not be reached: "},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := runBinary(t, nil, "kube", "--kubeconfig", tt.kubeconfig, "--for", "condition=Ready", "widget/a", "--timeout", "2s")
			lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
			last := lines[len(lines)-1]
			if r.code != tt.code || !strings.Contains(last, tt.want) {
				t.Errorf("exit %d, last line of stderr %q; want %d, %q\nstderr:\n%s", r.code, last, tt.code, tt.want, r.stderr)
			}
			if klogLine.MatchString(r.stderr) {
				t.Errorf("stderr has klog lines:\n%s", r.stderr)
			}
		})
	}
}

// TestKubeOutlastsAServerThatRestarts: an API server that cannot answer at
// first (its discovery answers 503, as one that restarts does) is tried
// again until the deadline, a progress line saying so each time; the wait
// then goes on, and succeeds. --timeout=0 checks once: it does not try
// again.
func TestKubeOutlastsAServerThatRestarts(t *testing.T) {
	restarting := func() string {
		api := newFakeAPI(t, readyWidget("a", "Running"))
		var requests atomic.Int32
		api.fault = func(string) int {
			if requests.Add(1) <= 2 {
				return http.StatusServiceUnavailable
			}
			return 0
		}
		return kubeconfig(t, api.Server, "fake", api.URL, "ns")
	}
	r := runBinary(t, nil, "kube", "--kubeconfig", restarting(), "--for", "condition=Ready", "widget/a", "--timeout", "30s")
	if r.code != exitSuccess || !strings.Contains(r.stderr, "could not be reached: ") || !strings.Contains(r.stderr, "; trying again in ") {
		t.Errorf("exit %d, stderr %q; want 0, after a line that says the server could not be reached and is tried again", r.code, r.stderr)
	}
	r = runBinary(t, nil, "kube", "--kubeconfig", restarting(), "--for", "condition=Ready", "widget/a", "--timeout", "0")
	if r.code != exitUnavailable || strings.Contains(r.stderr, "trying again") {
		t.Errorf("--timeout=0: exit %d, stderr %q; want 69 at once", r.code, r.stderr)
	}
}
