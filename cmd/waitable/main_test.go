package main

import (
	"bufio"
	"bytes"
	"context"
	"debug/buildinfo"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image/png"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// binary is the built command the tests run.
var binary string

func TestMain(m *testing.M) {
	// Run as the AWS CLI of the aws tests.
	if filepath.Base(os.Args[0]) == "aws" {
		os.Exit(fakeAWS())
	}
	// Run as the polled command of the exec tests.
	if counter := os.Getenv("WAITABLE_TEST_COMMAND"); counter != "" {
		os.Exit(fakeCommand(counter))
	}
	dir, err := os.MkdirTemp("", "waitable-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// No test keeps a history but those that ask for one (--history), and
	// none writes to the user's state directory.
	os.Setenv("WAITABLE_HISTORY", "off")
	os.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
	binary = filepath.Join(dir, "waitable")
	goTool, err := exec.LookPath("go") // the go command that runs the tests
	if err != nil {
		goTool = filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	}
	if out, err := exec.Command(goTool, "build", "-o", binary, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
		os.Exit(1)
	}
	code := 0
	func() {
		defer os.RemoveAll(dir)
		goleak.VerifyTestMain(exitCatcher{m, &code})
	}()
	os.Exit(code)
}

// exitCatcher lets TestMain clean up before exiting.
type exitCatcher struct {
	m    *testing.M
	code *int
}

func (e exitCatcher) Run() int { *e.code = e.m.Run(); return *e.code }

// fakeCommand counts its runs in a file and prints {"n": count, "state":
// …}: pending until the third run, then the state WAITABLE_TEST_STATE
// (default done); WAITABLE_TEST_EXIT makes it exit with that status, and
// WAITABLE_TEST_PRINT makes it print that text instead.
func fakeCommand(counter string) int {
	n := 1
	if b, err := os.ReadFile(counter); err == nil {
		n, _ = strconv.Atoi(string(b))
		n++
	}
	os.WriteFile(counter, []byte(strconv.Itoa(n)), 0o644)
	if code := os.Getenv("WAITABLE_TEST_EXIT"); code != "" {
		fmt.Fprintln(os.Stderr, "boom")
		c, _ := strconv.Atoi(code)
		return c
	}
	if text, ok := os.LookupEnv("WAITABLE_TEST_PRINT"); ok {
		fmt.Println(text)
		return 0
	}
	state := "pending"
	if n >= 3 {
		state = os.Getenv("WAITABLE_TEST_STATE")
		if state == "" {
			state = "done"
		}
	}
	fmt.Printf(`{"n": %d, "state": %q}`+"\n", n, state)
	return 0
}

type result struct {
	code           int
	stdout, stderr string
}

func runBinary(t *testing.T, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{code, stdout.String(), stderr.String()}
}

// jobServer answers {"state": "pending"} until call ready, then state;
// the first storm calls answer 503.
func jobServer(t *testing.T, ready int, state string, storm int) (*httptest.Server, *atomic.Int32) {
	var calls atomic.Int32
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(calls.Add(1))
		if r.Header.Get("X-Token") != "secret" {
			http.Error(w, `{"message": "no token"}`, http.StatusUnauthorized)
			return
		}
		if n <= storm {
			http.Error(w, `{"message": "slow down"}`, http.StatusServiceUnavailable)
			return
		}
		st := "pending"
		if n >= ready {
			st = state
		}
		fmt.Fprintf(w, `{"state": %q, "call": %d}`, st, n)
	}))
	t.Cleanup(s.Close)
	return s, &calls
}

var fast = []string{"--min-delay", "5ms", "--max-delay", "5ms", "-H", "X-Token: secret"}

func TestHTTP(t *testing.T) {
	for _, tt := range []struct {
		name         string
		ready, storm int
		state        string
		args         []string
		code         int
		stdout       string
		stderr       []string
	}{
		{"ready after 3 polls", 3, 0, "done", []string{"--success", "state == 'done'", "--failure", "state == 'failed'"},
			0, `{"state": "done", "call": 3}`, []string{"#1", "#3", "success after 3 polls", "seen 2 × no acceptor retry, 1 × acceptor 0 success"}},
		{"failure state stops at once", 2, 0, "failed", []string{"--success", "state == 'done'", "--failure", "state == 'failed'"},
			1, `{"state": "failed", "call": 2}`, []string{"failure after 2 polls", `state == 'failed'`}},
		{"a 503 storm, retried by condition", 1, 6, "done", []string{"--retry", "status=503", "--success", "state == 'done'"},
			0, `{"state": "done", "call": 7}`, []string{"#7", "(status: 503)", "(state == 'done')"}},
		{"a 503 storm without a condition: retried as transient until it passes", 1, 6, "done", []string{"--success", "state == 'done'"},
			0, `{"state": "done", "call": 7}`, []string{"transient error", "HTTP 503", "#7"}},
		{"503 until the end: a timeout with the last answer", 1, 1 << 30, "done", []string{"--success", "state == 'done'", "--max-wait", "300ms"},
			2, `{"message": "slow down"}`, []string{"transient error", "timed out after"}},
		{"OR of conditions", 2, 0, "skipped", []string{"--success", "state == 'done' || state == 'skipped'"},
			0, `{"state": "skipped", "call": 2}`, nil},
		{"an error code", 1, 0, "done", []string{"--failure", "error=HTTP 401", "--success", "ok"},
			1, `{"message": "no token"}`, []string{"failure after 1 poll in "}},
		{"the waiter file", 2, 0, "failed", []string{"--waiter", "testdata/trait.json"},
			1, `{"state": "failed", "call": 2}`, []string{"output: state stringEquals \"failed\""}},
		{"a botocore file's waiter", 3, 0, "done", []string{"--waiter", "testdata/jobs-waiters-2.json", "--name", "JobDone"},
			0, `{"state": "done", "call": 3}`, []string{"success after 3 polls"}},
		{"a botocore file's maxAttempts limits the polls", 5, 0, "done", []string{"--waiter", "testdata/jobs-waiters-2.json", "--name", "JobDone"},
			2, `{"state": "pending", "call": 4}`, []string{"max polls reached after 4 polls"}},
		{"timeout shows the last state", 1000, 0, "done", []string{"--success", "state == 'done'", "--max-wait", "200ms"},
			2, `"state": "pending"`, []string{"timed out after"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := jobServer(t, tt.ready, tt.state, tt.storm)
			args := append([]string{"http", s.URL}, fast...)
			if strings.Contains(tt.name, "error code") {
				args = []string{"http", s.URL, "--min-delay", "5ms", "--max-delay", "5ms"}
			}
			r := runBinary(t, nil, append(args, tt.args...)...)
			if r.code != tt.code || !strings.Contains(r.stdout, tt.stdout) {
				t.Errorf("exit %d, stdout %q; want exit %d and %q\nstderr:\n%s", r.code, r.stdout, tt.code, tt.stdout, r.stderr)
			}
			for _, want := range tt.stderr {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
				}
			}
		})
	}
}

// TestHTTPHangs: a server that never answers: the wait times out at
// --max-wait, not later.
func TestHTTPHangs(t *testing.T) {
	release := make(chan struct{})
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer s.Close()
	defer close(release)
	start := time.Now()
	r := runBinary(t, nil, "http", s.URL, "--success", "ok", "--max-wait", "500ms")
	if r.code != exitTimeout || !strings.Contains(r.stderr, "timeout") {
		t.Errorf("exit %d, stderr %q; want a timeout", r.code, r.stderr)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("took %v", took)
	}
}

// TestJSONLines: --json prints one object per attempt, then the result.
func TestJSONLines(t *testing.T) {
	s, _ := jobServer(t, 3, "done", 0)
	r := runBinary(t, nil, append(append([]string{"http", s.URL}, fast...), "--success", "state == 'done'", "--json")...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines, want 3 attempts and a result:\n%s", len(lines), r.stdout)
	}
	for i, l := range lines[:3] {
		var a attemptJSON
		if err := json.Unmarshal([]byte(l), &a); err != nil || a.Attempt != i+1 {
			t.Errorf("line %d: %v %+v", i, err, a)
		}
	}
	var res resultJSON
	if err := json.Unmarshal([]byte(lines[3]), &res); err != nil || res.Result != "success" || res.Attempts != 3 || !strings.Contains(string(res.Output), `"done"`) || len(res.Seen) != 2 || res.Seen[0].N+res.Seen[1].N != 3 {
		t.Errorf("result %v %+v", err, res)
	}
}

func TestExec(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name   string
		env    []string
		args   []string
		code   int
		stdout string
	}{
		{"done on the third run", nil, []string{"--success", "state == 'done'"}, 0, `"n": 3`},
		{"a failure state", []string{"WAITABLE_TEST_STATE=broken"}, []string{"--success", "state == 'done'", "--failure", "state == 'broken'"}, 1, `"n": 3`},
		{"an exit status as an error code", []string{"WAITABLE_TEST_EXIT=3"}, []string{"--failure", "error=exit 3", "--success", "ok"}, 1, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			counter := filepath.Join(t.TempDir(), "count")
			env := append([]string{"WAITABLE_TEST_COMMAND=" + counter}, tt.env...)
			args := append([]string{"exec", "--min-delay", "5ms", "--max-delay", "5ms"}, tt.args...)
			r := runBinary(t, env, append(args, "--", self)...)
			if r.code != tt.code || !strings.Contains(r.stdout, tt.stdout) {
				t.Errorf("exit %d, stdout %q; want %d, %q\nstderr:\n%s", r.code, r.stdout, tt.code, tt.stdout, r.stderr)
			}
		})
	}
}

// TestOutputNotJSON: output that is not JSON (text, truncated JSON) says
// so on each attempt line and in --json's records, with the parser's
// words and the offset; --text makes @ the output as a string.
func TestOutputNotJSON(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// A failure condition on null ends each wait at its first poll: no
	// test waits on real time.
	for _, tt := range []struct {
		name, print string
		args        []string
		code        int
		want        string // on standard error, or standard output with --json
	}{
		{"text", "hello, I am not JSON", nil, 1, "(output is not JSON: invalid character 'h' looking for beginning of value at offset 0; @ == null)"},
		{"truncated JSON", `{"state": "do`, nil, 1, "(output is not JSON: unexpected end of JSON input at offset 13; @ == null)"},
		{"--json", "hello", []string{"--json"}, 1, `"output_error":"output is not JSON: invalid character 'h' looking for beginning of value at offset 0"`},
		{"--text", "the service is ready", []string{"--text"}, 0, "success  (contains(@, 'ready'))"},
		{"--text --json", "ready", []string{"--text", "--json"}, 0, `"output":"ready"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			env := []string{"WAITABLE_TEST_COMMAND=" + filepath.Join(t.TempDir(), "count"), "WAITABLE_TEST_PRINT=" + tt.print}
			args := append([]string{"exec", "--max-wait", "1m", "--failure", "@ == null", "--success", "contains(@, 'ready')"}, tt.args...)
			r := runBinary(t, env, append(args, "--", self)...)
			if r.code != tt.code || !strings.Contains(r.stderr+r.stdout, tt.want) {
				t.Errorf("exit %d, want %d and %q\nstdout:\n%s\nstderr:\n%s", r.code, tt.code, tt.want, r.stdout, r.stderr)
			}
		})
	}
}

// TestMessagesNameTarget: the summary names what was polled, the URL or
// the command line, not an internal waiter name, and says how many polls
// once.
func TestMessagesNameTarget(t *testing.T) {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"state": "failed"}`))
	}))
	defer s.Close()
	r := runBinary(t, nil, "http", s.URL+"/jobs/42", "--success", "state == 'done'", "--failure", "state == 'failed'")
	if want := "waitable: waiter HTTP (" + s.URL + "/jobs/42): failure after 1 poll in "; r.code != 1 || !strings.Contains(r.stderr, want) || strings.Count(r.stderr, "after 1 poll") != 1 {
		t.Errorf("exit %d, stderr %q; want 1 and %q, once", r.code, r.stderr, want)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env := []string{"WAITABLE_TEST_COMMAND=" + filepath.Join(t.TempDir(), "count"), "WAITABLE_TEST_PRINT=not json"}
	r = runBinary(t, env, "exec", "--failure", "@ == null", "--success", "ok", "--", self, "two words")
	if want := "waiter Command (" + self + " 'two words'): failure after 1 poll"; r.code != 1 || !strings.Contains(r.stderr, want) {
		t.Errorf("exit %d, stderr %q; want 1 and %q", r.code, r.stderr, want)
	}
}

// TestCommandNotRunnable: a command that does not exist exits 127, one
// that is not executable 126, as a shell's do, before any poll, saying so.
func TestCommandNotRunnable(t *testing.T) {
	notExec := filepath.Join(t.TempDir(), "job.sh")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\necho {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, cmd string
		code      int
		stderr    string
	}{
		{"not found", "no-such-command-waitable", 127, "waitable exec: no-such-command-waitable: command not found"},
		{"not found, a path", filepath.Join(t.TempDir(), "missing"), 127, "missing: command not found"},
		{"not executable", notExec, 126, "job.sh: not executable: permission denied"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := runBinary(t, nil, "exec", "--success", "ok", "--max-wait", "1m", "--", tt.cmd)
			if r.code != tt.code || !strings.Contains(r.stderr, tt.stderr) || strings.Contains(r.stderr, "#1") {
				t.Errorf("exit %d, stderr %q; want %d and %q before any poll", r.code, r.stderr, tt.code, tt.stderr)
			}
		})
	}
}

func TestUsage(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"frobnicate"},
		{"http", "http://localhost:1"},
		{"http", "http://localhost:1", "--success", "status == "},
		{"http", "--success", "ok"},
		{"exec", "--success", "ok"},
		{"http", "http://localhost:1", "--waiter", "testdata/trait.json", "--success", "ok"},
		{"http", "http://localhost:1", "--waiter", "testdata/jobs-waiters-2.json"},
		{"http", "http://localhost:1", "--waiter", "testdata/jobs-waiters-2.json", "--name", "JobDon"},
		{"schedule", "--max-wait", "0s"},
		{"schedule", "--reserve", "-1s"},
	} {
		r := runBinary(t, nil, args...)
		if r.code != exitUsage || r.stderr == "" {
			t.Errorf("%q: exit %d, stderr %q; want %d with a message", args, r.code, r.stderr, exitUsage)
		}
	}
	if r := runBinary(t, nil, "--help"); r.code != 0 || !strings.Contains(r.stdout, "Examples:") {
		t.Errorf("--help: exit %d, %q", r.code, r.stdout)
	}
}

// TestVersion: --version and version print the version line of the
// binary's own build information, exit 0, and --help tells of them.
func TestVersion(t *testing.T) {
	info, err := buildinfo.ReadFile(binary)
	if err != nil {
		t.Fatal(err)
	}
	want := versionLine(info, true) + "\n"
	if !strings.HasPrefix(want, "waitable ") || !strings.Contains(want, runtime.Version()) && !strings.Contains(want, " v") {
		t.Errorf("versionLine of the test binary = %q", want)
	}
	for _, arg := range []string{"--version", "-version", "version"} {
		if r := runBinary(t, nil, arg); r.code != 0 || r.stdout != want || r.stderr != "" {
			t.Errorf("waitable %s: exit %d, stdout %q, stderr %q; want exit 0 and %q", arg, r.code, r.stdout, r.stderr, want)
		}
	}
	if r := runBinary(t, nil, "--help"); !strings.Contains(r.stdout, "waitable version") || !strings.Contains(r.stdout, "--version") {
		t.Errorf("--help does not mention version:\n%s", r.stdout)
	}
}

// TestVersionLine: the version line for each kind of build.
func TestVersionLine(t *testing.T) {
	build := func(version string, settings ...string) *debug.BuildInfo {
		info := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/waitable/waitable", Version: version}}
		for i := 0; i+1 < len(settings); i += 2 {
			info.Settings = append(info.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
		}
		return info
	}
	const rev = "82c10fd4a1b2c3d4e5f60718293a4b5c6d7e8f90"
	for _, tt := range []struct {
		name string
		info *debug.BuildInfo
		ok   bool
		want string
	}{
		{"go install @v0.1.0", build("v0.1.0"), true, "waitable v0.1.0"},
		{"a checkout", build("(devel)", "vcs", "git", "vcs.revision", rev, "vcs.modified", "false"), true, "waitable (devel) 82c10fd4a1b2 go1.26.8"},
		{"a checkout with changes", build("(devel)", "vcs.revision", rev, "vcs.modified", "true"), true, "waitable (devel) 82c10fd4a1b2-dirty go1.26.8"},
		{"a checkout, stamped with a pseudo-version", build("v0.1.1-0.20261123230029-82c10fd4a1b2+dirty", "vcs.revision", rev, "vcs.modified", "true"), true,
			"waitable v0.1.1-0.20261123230029-82c10fd4a1b2+dirty go1.26.8"},
		{"a tagged checkout", build("v0.1.0", "vcs.revision", rev, "vcs.modified", "false"), true, "waitable v0.1.0 82c10fd4a1b2 go1.26.8"},
		{"no VCS information", build("(devel)"), true, "waitable (devel) go1.26.8"},
		{"no version at all", build(""), true, "waitable (devel) go1.26.8"},
		{"no build information", nil, false, "waitable (unknown version: the binary carries no build information)"},
	} {
		if got := versionLine(tt.info, tt.ok); got != tt.want {
			t.Errorf("%s: versionLine = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestInterrupt: Ctrl-C cancels the call in flight and exits 130.
func TestInterrupt(t *testing.T) {
	inFlight := make(chan struct{}, 1)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inFlight <- struct{}{}
		<-r.Context().Done() // released when the command cancels the call
	}))
	defer s.Close()
	cmd := exec.CommandContext(t.Context(), binary, "http", s.URL, "--success", "ok", "--max-wait", "1m")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	<-inFlight
	cmd.Process.Signal(syscall.SIGINT)
	var lines []string
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitInterrupted {
		t.Errorf("exit %v, want %d; stderr %q", err, exitInterrupted, lines)
	}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (run with -update to accept):\n%s", path, got)
	}
}

// TestScheduleReadyAndLimit: --ready-at ends each run at its first poll
// that starts then or later and prints how long after the resource was
// ready the waits saw it; --max-attempts caps the polls; each poll's row
// says what share of runs make it.
func TestScheduleReadyAndLimit(t *testing.T) {
	r := runBinary(t, nil, "schedule", "--min-delay", "2s", "--max-delay", "30s", "--max-wait", "2m", "--seeds", "50", "--ready-at", "30s")
	if !strings.Contains(r.stdout, "ready at 30s: seen after p50 ") || strings.Contains(r.stdout, "\n   12 ") || !strings.Contains(r.stdout, "1 (2%)") {
		t.Errorf("exit %d:\n%s", r.code, r.stdout)
	}
	r = runBinary(t, nil, "schedule", "--min-delay", "2s", "--max-delay", "30s", "--max-wait", "2m", "--seeds", "50", "--ready-at", "10m")
	if !strings.Contains(r.stdout, "ready at 10m0s: no wait sees it (0 of 50 runs)") {
		t.Errorf("exit %d:\n%s", r.code, r.stdout)
	}
	r = runBinary(t, nil, "schedule", "--min-delay", "2s", "--max-delay", "30s", "--max-wait", "2m", "--seeds", "50", "--max-attempts", "3")
	if !strings.Contains(r.stdout, "at most 3 polls a wait") || !strings.Contains(r.stdout, "\n    3 ") || strings.Contains(r.stdout, "\n    4 ") {
		t.Errorf("exit %d:\n%s", r.code, r.stdout)
	}
	if r := runBinary(t, nil, "schedule", "--max-attempts", "-1"); r.code != exitUsage {
		t.Errorf("--max-attempts -1: exit %d, want %d", r.code, exitUsage)
	}
}

// TestShare: a share is never rounded to 0% or 100% when it is neither.
func TestShare(t *testing.T) {
	for _, tt := range []struct {
		n, total int
		want     string
	}{{1, 1000, "0.1%"}, {1, 50, "2%"}, {999, 1000, "99.9%"}, {1000, 1000, "100%"}, {0, 10, "0%"}, {1, 100000, "<0.1%"}} {
		if got := share(tt.n, tt.total); got != tt.want {
			t.Errorf("share(%d, %d) = %s, want %s", tt.n, tt.total, got, tt.want)
		}
	}
}

func TestScheduleGolden(t *testing.T) {
	r := runBinary(t, nil, "schedule", "--min-delay", "2s", "--max-delay", "30s", "--max-wait", "2m", "--seeds", "50")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	golden(t, "schedule.golden", r.stdout)
}

func TestLintGolden(t *testing.T) {
	models, _ := filepath.Glob("../../testdata/aws/models/*.json")
	r := runBinary(t, nil, append([]string{"lint"}, models...)...)
	if r.code != 0 {
		t.Errorf("lint of AWS's models: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	golden(t, "lint-aws.golden", r.stdout)
	r = runBinary(t, nil, "lint", "testdata/broken-smithy.json", "testdata/broken-botocore.json")
	if r.code != exitLint || !strings.Contains(r.stderr, "problems") {
		t.Errorf("lint of broken models: exit %d, stderr %q", r.code, r.stderr)
	}
	golden(t, "lint-broken.golden", r.stdout)
	r = runBinary(t, nil, "list", "../../testdata/aws/models/acm-2015-12-08.json")
	if r.code != 0 {
		t.Errorf("list: exit %d %s", r.code, r.stderr)
	}
	golden(t, "list-acm.golden", r.stdout)
}

// TestCountOne: what the command counts reads right when it is one: a
// model of 1 waiter with 1 acceptor, 1 problem, 1 seed, 1 poll.
func TestCountOne(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	const tableExists = `"TableExists": {"delay": %d, "operation": "DescribeTable", "maxAttempts": 25,
	  "acceptors": [{"expected": "ACTIVE", "matcher": "path", "state": "success", "argument": "Table.TableStatus"}]}`
	one := write("one.json", `{"version": 2, "waiters": {`+fmt.Sprintf(tableExists, 20)+`}}`)
	broken := write("broken.json", `{"version": 2, "waiters": {`+fmt.Sprintf(tableExists, 0)+`}}`)
	svg := filepath.Join(dir, "schedule.svg")

	for _, tt := range []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{[]string{"lint", one}, 0, one + ": 1 waiter, ok (paths not checked against shapes: no service model; see --service)\n", ""},
		{[]string{"list", one}, 0, one + ": TableExists on DescribeTable: 1 acceptor, delays 20s to 20s\n", ""},
		{[]string{"lint", broken}, exitLint, "", "waitable lint: 1 problem\n"},
		{[]string{"schedule", "--min-delay", "2s", "--max-delay", "2s", "--max-wait", "100ms", "--latency", "100ms", "--seeds", "1", "--svg", svg},
			0, "call latency 100ms, 1 seed\n", ""},
	} {
		r := runBinary(t, nil, tt.args...)
		if r.code != tt.code || !strings.Contains(r.stdout, tt.stdout) || !strings.Contains(r.stderr, tt.stderr) {
			t.Errorf("waitable %s: exit %d\nstdout:\n%s\nstderr:\n%s\nwant exit %d, stdout with %q, stderr with %q",
				strings.Join(tt.args, " "), r.code, r.stdout, r.stderr, tt.code, tt.stdout, tt.stderr)
		}
	}
	b, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"over 1 seed<", ">1 poll at most;"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the SVG lacks %q", want)
		}
	}
}

// TestScheduleSVGInBrowser opens the SVG in headless Chromium and checks
// the screenshot is not blank.
func TestScheduleSVGInBrowser(t *testing.T) {
	dir := t.TempDir()
	svg := filepath.Join(dir, "schedule.svg")
	if r := runBinary(t, nil, "schedule", "--min-delay", "2s", "--max-delay", "30s", "--max-wait", "2m", "--seeds", "50", "--svg", svg); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	data, _ := os.ReadFile(svg)
	for _, want := range []string{"time since the wait began", "median", "deadline", "prefers-color-scheme: dark", "1m30s"} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("the SVG lacks %q", want)
		}
	}
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium not installed (apt-get install chromium; .ci/run does): skipping the browser test")
	}
	shot := filepath.Join(dir, "shot.png")
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--screenshot="+shot, "--window-size=870,440", "file://"+svg)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, out)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	colors := map[uint32]int{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			r, g, bl, _ := img.At(x, y).RGBA()
			colors[(r>>12)<<8|(g>>12)<<4|bl>>12]++
		}
	}
	if len(colors) < 4 {
		t.Errorf("the screenshot has %d colours: blank", len(colors))
	}
}

// TestHTTPServiceStarting: the --help example, `waitable http URL
// --success ok`, on a service that refuses connections at first and
// listens later: the refusals are transient, and the wait succeeds.
func TestHTTPServiceStarting(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // refused until the service starts
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "http", "http://"+addr+"/health", "--success", "ok", "--max-wait", "30s", "--min-delay", "10ms", "--max-delay", "50ms")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	lines := bufio.NewScanner(stderr)
	refusals := 0
	for refusals < 5 && lines.Scan() {
		log.WriteString(lines.Text() + "\n")
		if strings.Contains(lines.Text(), "connection refused") {
			refusals++
		}
	}
	// The service starts after 5 refusals (more than the retry strategy's
	// 3 attempts, which used to end the wait).
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `{"up": true}`) })}
	ln, err = net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("the port was taken meanwhile: %v", err)
	}
	go srv.Serve(ln)
	defer srv.Close()
	for lines.Scan() {
		log.WriteString(lines.Text() + "\n")
	}
	err = cmd.Wait()
	if err != nil || !strings.Contains(stdout.String(), `"up": true`) || !strings.Contains(log.String(), "transient error") {
		t.Errorf("exit %v, stdout %q; want success after the refusals\nstderr:\n%s", err, stdout.String(), log.String())
	}
}

// TestHTTPRetryAfter: an answer with Retry-After: 1 is polled again no
// sooner than 1s later, though the delays are 5ms: a 503's, and a pending
// 202's.
func TestHTTPRetryAfter(t *testing.T) {
	for _, tt := range []struct {
		name   string
		status int
		body   string
	}{
		{"503", http.StatusServiceUnavailable, `{"message": "busy"}`},
		{"pending 202", http.StatusAccepted, `{"state": "pending"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			var at []time.Time
			s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				at = append(at, time.Now())
				n := len(at)
				mu.Unlock()
				if n == 1 {
					w.Header().Set("Retry-After", "1")
					w.WriteHeader(tt.status)
					fmt.Fprint(w, tt.body)
					return
				}
				fmt.Fprint(w, `{"state": "done"}`)
			}))
			defer s.Close()
			r := runBinary(t, nil, "http", s.URL, "--success", "state == 'done'", "--min-delay", "5ms", "--max-delay", "5ms")
			mu.Lock()
			defer mu.Unlock()
			if r.code != 0 || len(at) != 2 || at[1].Sub(at[0]) < time.Second {
				t.Errorf("exit %d, %d calls; want success on the 2nd, no sooner than 1s after the first\nstderr:\n%s", r.code, len(at), r.stderr)
			}
		})
	}
}

// TestStable: --stable 3 succeeds only on the third success in a row; a
// flap breaks the streak, and the lines say it; --stable 0 is bad usage.
func TestStable(t *testing.T) {
	var calls atomic.Int32
	states := []string{"done", "done", "pending", "done", "done", "done"}
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(calls.Add(1))
		fmt.Fprintf(w, `{"state": %q}`, states[min(n, len(states))-1])
	}))
	defer s.Close()
	r := runBinary(t, nil, "http", s.URL, "--success", "state == 'done'", "--stable", "3", "--min-delay", "5ms", "--max-delay", "5ms")
	if r.code != 0 || calls.Load() != 6 || !strings.Contains(r.stderr, "2 in a row") || !strings.Contains(r.stderr, "success after 6 polls") {
		t.Errorf("exit %d after %d calls; want success on the 6th\nstderr:\n%s", r.code, calls.Load(), r.stderr)
	}
	if r := runBinary(t, nil, "http", s.URL, "--success", "ok", "--stable", "0"); r.code != exitUsage || !strings.Contains(r.stderr, "--stable 0: at least 1") {
		t.Errorf("--stable 0: exit %d, stderr %q; want bad usage", r.code, r.stderr)
	}
}

// TestNotFoundAndIdentity: --not-found-limit 3 on an endpoint that keeps
// answering 404 (retried by a condition) fails after 3 polls, saying the
// resource never appeared; --identity fails when the id changes.
func TestNotFoundAndIdentity(t *testing.T) {
	var calls atomic.Int32
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		if r.URL.Path == "/missing" {
			http.Error(w, `{"message": "no such job"}`, http.StatusNotFound)
			return
		}
		fmt.Fprintf(w, `{"id": "job-%d", "state": "pending"}`, min(n, 2))
	}))
	defer s.Close()
	r := runBinary(t, nil, "http", s.URL+"/missing", "--retry", "status=404", "--success", "state == 'done'", "--not-found-limit", "3", "--min-delay", "5ms", "--max-delay", "5ms")
	if r.code != exitFailure || calls.Load() != 3 || !strings.Contains(r.stderr, "never appeared") {
		t.Errorf("exit %d after %d calls; want failure after 3\nstderr:\n%s", r.code, calls.Load(), r.stderr)
	}
	calls.Store(0)
	r = runBinary(t, nil, "http", s.URL+"/job", "--success", "state == 'done'", "--identity", "id", "--min-delay", "5ms", "--max-delay", "5ms")
	if r.code != exitFailure || calls.Load() != 2 || !strings.Contains(r.stderr, "job-1 became job-2") {
		t.Errorf("exit %d after %d calls; want failure on the 2nd\nstderr:\n%s", r.code, calls.Load(), r.stderr)
	}
}

// TestScheduleHint: with --hint 10s, no poll comes sooner than 10s after
// the one before (the service's hint), whatever the jitter.
func TestScheduleHint(t *testing.T) {
	sim, err := simulateSchedule(scheduleConfig{minDelay: 2 * time.Second, maxDelay: 30 * time.Second, maxWait: 2 * time.Minute, latency: 100 * time.Millisecond, reserve: -1, hint: 10 * time.Second, seeds: 50}, false)
	if err != nil {
		t.Fatal(err)
	}
	rows := sim.rows
	for i := 1; i < len(rows); i++ {
		if gap := rows[i].lo - rows[i-1].lo; rows[i].runs == 50 && gap < 10*time.Second+100*time.Millisecond {
			t.Errorf("poll %d comes %v after poll %d at the earliest, want at least the 10s hint after the call", i+1, gap, i)
		}
	}
}

// TestScheduleModel: --model FILE --waiter NAME takes a real waiter's
// delays and poll limit from a botocore file, a Smithy model or a trait
// value; flags given override them, as an SDK's override configuration
// does; a name the file lacks is a usage error that suggests the nearest.
func TestScheduleModel(t *testing.T) {
	const boto = "testdata/botocore/waiters-2.json"
	r := runBinary(t, nil, "schedule", "--model", boto, "--waiter", "TableExists", "--max-wait", "20m", "--seeds", "5")
	for _, want := range []string{"waiter TableExists in " + boto + ": ", "min delay 20s, max delay 20s, max wait 20m0s", "at most 25 polls a wait", "\n   25 "} {
		if r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Errorf("exit %d, stdout lacks %q:\n%s%s", r.code, want, r.stdout, r.stderr)
		}
	}
	if strings.Contains(r.stdout, "\n   26 ") {
		t.Errorf("more polls than the model's 25:\n%s", r.stdout)
	}
	// Flags override the model.
	r = runBinary(t, nil, "schedule", "--model", boto, "--waiter", "TableExists", "--max-wait", "20m", "--seeds", "5", "--max-delay", "1m", "--max-attempts", "4")
	if r.code != 0 || !strings.Contains(r.stdout, "min delay 20s, max delay 1m0s") || !strings.Contains(r.stdout, "at most 4 polls a wait") {
		t.Errorf("overrides: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	svg := filepath.Join(t.TempDir(), "s.svg")
	if r := runBinary(t, nil, "schedule", "--model", boto, "--waiter", "TableExists", "--seeds", "5", "--svg", svg); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if data, _ := os.ReadFile(svg); !strings.Contains(string(data), ">When TableExists polls: min delay 20s") || !strings.Contains(string(data), "at most 25 polls a wait") {
		t.Errorf("the SVG does not name the waiter or its poll limit:\n%s", data)
	}
	// A Smithy model: ACM's CertificateValidated polls from 60s, to 120s by default, with no poll limit.
	r = runBinary(t, nil, "schedule", "--model", "../../testdata/aws/models/acm-2015-12-08.json", "--waiter", "CertificateValidated", "--max-wait", "10m", "--seeds", "5")
	if r.code != 0 || !strings.Contains(r.stdout, "min delay 1m0s, max delay 2m0s") || strings.Contains(r.stdout, "at most") || !strings.Contains(r.stdout, "\n    2      1m0.1s ") {
		t.Errorf("Smithy model: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// A trait value of one waiter needs no --waiter.
	r = runBinary(t, nil, "schedule", "--model", "testdata/trait.json", "--seeds", "5")
	if r.code != 0 || !strings.Contains(r.stdout, "waiter JobDone in testdata/trait.json: ") || !strings.Contains(r.stdout, "min delay 2s, max delay 2m0s") {
		t.Errorf("trait: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--model", boto, "--waiter", "TableExist"}, `has no waiter "TableExist"; did you mean TableExists?`},
		{[]string{"--model", boto}, "has 3 waiters (IndexGone, TableExists, TableTypo): choose one with --waiter"},
		{[]string{"--waiter", "TableExists"}, "--waiter names a waiter of --model FILE"},
		{[]string{"--model", "testdata/nonexistent.json", "--waiter", "X"}, "nonexistent.json"},
		{[]string{"--model", "testdata/broken-smithy.json", "--waiter", "X"}, "broken-smithy.json"},
	} {
		r := runBinary(t, nil, append([]string{"schedule"}, tt.args...)...)
		if r.code != exitUsage || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("schedule %q: exit %d, stderr %q; want exit %d and %q", tt.args, r.code, r.stderr, exitUsage, tt.want)
		}
	}
}

// TestScheduleStability: with --stable N (and --stable-for D) a wait that
// sees the resource ready confirms it at the min delay before it ends,
// and the detection lag says so; stability without --ready-at has nothing
// to confirm and is refused.
func TestScheduleStability(t *testing.T) {
	base := []string{"schedule", "--min-delay", "2s", "--max-delay", "30s", "--max-wait", "2m", "--seeds", "50", "--ready-at", "30s"}
	p50 := func(args ...string) time.Duration {
		t.Helper()
		r := runBinary(t, nil, append(base, args...)...)
		_, after, ok := strings.Cut(r.stdout, "seen after p50 ")
		if r.code != 0 || !ok {
			t.Fatalf("%q: exit %d\n%s%s", args, r.code, r.stdout, r.stderr)
		}
		d, err := time.ParseDuration(strings.TrimSuffix(strings.Fields(after)[0], ","))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	once, thrice, held := p50(), p50("--stable", "3"), p50("--stable", "2", "--stable-for", "10s")
	if thrice < once+4*time.Second || thrice > once+5*time.Second {
		t.Errorf("p50 lag %v with --stable 3, %v without: want two confirmations at the 2s min delay (and their latency) more", thrice, once)
	}
	if held < once+10*time.Second {
		t.Errorf("p50 lag %v with --stable-for 10s, %v without: want at least 10s more", held, once)
	}
	r := runBinary(t, nil, append(base, "--stable", "3")...)
	if !strings.Contains(r.stdout, "success must hold for 3 polls in a row: confirmations at the min delay") {
		t.Errorf("the stability is not stated:\n%s", r.stdout)
	}
	if r := runBinary(t, nil, "schedule", "--stable", "2"); r.code != exitUsage || !strings.Contains(r.stderr, "--ready-at") {
		t.Errorf("--stable without --ready-at: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := runBinary(t, nil, "schedule", "--ready-at", "1s", "--stable", "0"); r.code != exitUsage {
		t.Errorf("--stable 0: exit %d, want %d", r.code, exitUsage)
	}
}

// TestScheduleSVGReadyHintStability: the picture shows when the resource
// becomes ready, the service's hint and the stability asked for.
func TestScheduleSVGReadyHintStability(t *testing.T) {
	svg := filepath.Join(t.TempDir(), "s.svg")
	r := runBinary(t, nil, "schedule", "--min-delay", "2s", "--max-delay", "30s", "--max-wait", "2m", "--seeds", "20", "--ready-at", "30s", "--stable", "3", "--hint", "5s", "--svg", svg)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	data, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`class="ready"`, ">ready at 30s<", "success must hold for 3 polls in a row", "polls no sooner than the service&#39;s 5s hint"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the SVG lacks %q", want)
		}
	}
}
