package readme

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// repo is the repository's root, seen from this folder.
const repo = "../.."

// programs are the README's programs, each run by a test below.
var programs = []string{"awswait", "batch", "checkpoint", "eta", "fanout", "start", "wait"}

var (
	goBlock    = regexp.MustCompile("(?ms)^```go\n(.*?)^```$")
	excerptTag = regexp.MustCompile(`^<!-- excerpt: (\S+) -->$`)
)

// readmes are the READMEs whose Go blocks are excerpts: the
// repository's and its modules'. In those whose every is true, every Go
// block is one; in the others, those that follow an excerpt comment.
var readmes = []struct {
	path  string
	every bool
}{
	{"README.md", true},
	{"awswait/README.md", true},
	{"azwait/README.md", true},
	{"gcpwait/README.md", true},
	{"tfwait/README.md", true},
	{"temporal/README.md", false}, // its sketches of the API are not programs
}

// TestREADMEExcerpts: every Go block of the READMEs follows an
// <!-- excerpt: PATH --> comment (PATH from the repository's root), and
// its lines are PATH's: runs of lines, split at "// …" lines, each found
// in PATH in order, line for line (leading white space aside). Every
// program of this folder has an excerpt and a test that runs it.
func TestREADMEExcerpts(t *testing.T) {
	inREADME := map[string]bool{}
	for _, r := range readmes {
		readme, err := os.ReadFile(filepath.Join(repo, filepath.FromSlash(r.path)))
		if err != nil {
			t.Fatal(err)
		}
		blocks := goBlock.FindAllSubmatchIndex(readme, -1)
		if len(blocks) == 0 {
			t.Errorf("%s has no Go block", r.path)
		}
		for _, b := range blocks {
			line := bytes.Count(readme[:b[0]], []byte("\n")) + 1
			before := strings.TrimRight(string(readme[:b[0]]), "\n")
			m := excerptTag.FindStringSubmatch(before[strings.LastIndexByte(before, '\n')+1:])
			if m == nil {
				if r.every {
					t.Errorf("%s:%d: a Go block with no <!-- excerpt: PATH --> comment before it: "+
						"every Go block of the README is an excerpt of a program that a test builds and runs", r.path, line)
				}
				continue
			}
			inREADME[m[1]] = true
			program, err := os.ReadFile(filepath.Join(repo, filepath.FromSlash(m[1])))
			if err != nil {
				t.Errorf("%s:%d: %v", r.path, line, err)
				continue
			}
			if at, ok := excerptOf(string(readme[b[2]:b[3]]), string(program)); !ok {
				t.Errorf("%s:%d: the excerpt's line %d is not in %s, in order", r.path, line, at+1, m[1])
			}
		}
	}
	mains, err := filepath.Glob(filepath.Join("*", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range mains {
		name := filepath.Base(filepath.Dir(m))
		if !inREADME["examples/readme/"+name+"/main.go"] {
			t.Errorf("examples/readme/%s has no excerpt in a README: remove it, or quote it after "+
				"<!-- excerpt: examples/readme/%s/main.go -->", name, name)
		}
		if !slices.Contains(programs, name) {
			t.Errorf("examples/readme/%s has no test that runs it", name)
		}
	}
}

// excerptOf reports whether excerpt's lines are program's: its runs of
// lines, split at "// …" lines, each found whole in program, after the
// run before it. Leading white space and blank lines do not count. at is
// the excerpt's first line that is not, when ok is false.
func excerptOf(excerpt, program string) (at int, ok bool) {
	var lines []string
	for _, l := range strings.Split(program, "\n") {
		lines = append(lines, strings.TrimSpace(l))
	}
	from := 0 // where the next run may start in program
	var run []string
	runStart := 0
	flush := func() bool {
		if len(run) == 0 {
			return true
		}
		for i := from; i+len(run) <= len(lines); i++ {
			if slices.Equal(lines[i:i+len(run)], run) {
				from, run = i+len(run), nil
				return true
			}
		}
		return false
	}
	for i, l := range strings.Split(strings.TrimRight(excerpt, "\n"), "\n") {
		switch l = strings.TrimSpace(l); {
		case l == "// …" || l == "// ...":
			if !flush() {
				return runStart, false
			}
		case l == "":
		default:
			if len(run) == 0 {
				runStart = i
			}
			run = append(run, l)
		}
	}
	if !flush() {
		return runStart, false
	}
	return 0, true
}

// build builds the program of folder name.
func build(t *testing.T, name string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), name)
	goTool, err := exec.LookPath("go") // the go command that runs the tests
	if err != nil {
		goTool = filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	}
	if out, err := exec.Command(goTool, "build", "-o", bin, "./"+name).CombinedOutput(); err != nil {
		t.Fatalf("go build ./%s: %v\n%s", name, err, out)
	}
	return bin
}

type result struct {
	code           int
	stdout, stderr string
	elapsed        time.Duration
}

// run runs a built program; env replaces the environment's AWS_
// variables, so that no profile or endpoint of the machine's applies.
func run(t *testing.T, env []string, bin string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "AWS_") }), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String(), elapsed: time.Since(start)}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(r.stderr, "panic") {
		t.Errorf("%s %s panicked:\n%s", filepath.Base(bin), strings.Join(args, " "), r.stderr)
	}
	return r
}

// check compares a run with what it should have done. A timeout path
// must end long before the programs' budgets (a minute or more): the
// service's Retry-After passes the deadline, so the wait ends at once.
func (r result) check(t *testing.T, what string, code int, stdout string, stderr ...string) {
	t.Helper()
	if r.code != code {
		t.Errorf("%s: exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", what, r.code, code, r.stdout, r.stderr)
	}
	if !regexp.MustCompile("^" + stdout + "$").MatchString(r.stdout) {
		t.Errorf("%s: stdout\n%s\nwant it to match\n%s", what, r.stdout, stdout)
	}
	for _, s := range stderr {
		if !strings.Contains(r.stderr, s) {
			t.Errorf("%s: stderr lacks %q:\n%s", what, s, r.stderr)
		}
	}
	if r.elapsed > 10*time.Second {
		t.Errorf("%s: took %v: the wait did not end at once", what, r.elapsed)
	}
}

// health answers 200 on /ok, 410 on /gone, a 503 with a Retry-After of an
// hour on /busy, and on /starting a 503 without one, then 200.
func health(t *testing.T) *httptest.Server {
	var starting atomic.Int32
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ok":
		case "/gone":
			w.WriteHeader(http.StatusGone)
		case "/busy":
			w.Header().Set("Retry-After", "3600")
			w.WriteHeader(http.StatusServiceUnavailable)
		case "/starting":
			if starting.Add(1) == 1 {
				w.WriteHeader(http.StatusServiceUnavailable)
			}
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

const hourPastDeadline = "the service asked to retry after 1h0m0s, past the deadline"

func TestWait(t *testing.T) {
	t.Parallel()
	bin := build(t, "wait")
	s := health(t)
	run(t, nil, bin, s.URL+"/ok").check(t, "healthy", 0, regexp.QuoteMeta(s.URL+"/ok is healthy\n"))
	run(t, nil, bin, s.URL+"/starting").check(t, "a 503, then healthy", 0, regexp.QuoteMeta(s.URL+"/starting is healthy\n"))
	run(t, nil, bin, s.URL+"/gone").check(t, "gone", 1, "",
		"waiter ServiceHealthy: failure after 1 poll", "the service was removed")
	run(t, nil, bin, s.URL+"/busy").check(t, "a Retry-After past the budget", 1, "",
		"waiter ServiceHealthy: timed out after 1 poll", hourPastDeadline)
}

// jobs answers GET /{id} with {"state": …}: the states of states[id] in
// turn, the last one repeated; an id ending in -slow adds a Retry-After
// of an hour. GET /?id=a&id=b answers for many: {"a": {"state": …}, …},
// and calls records the ids of each such call.
type jobs struct {
	mu     sync.Mutex
	states map[string][]string
	calls  [][]string
}

func (j *jobs) serve(t *testing.T) *httptest.Server {
	next := func(id string) string {
		st := j.states[strings.TrimSuffix(id, "-slow")]
		if len(st) == 0 {
			return "unknown"
		}
		s := st[0]
		if len(st) > 1 {
			j.states[strings.TrimSuffix(id, "-slow")] = st[1:]
		}
		return s
	}
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		j.mu.Lock()
		defer j.mu.Unlock()
		var body any
		if id := strings.TrimPrefix(r.URL.Path, "/"); id != "" {
			body = map[string]string{"state": next(id)}
			if strings.HasSuffix(id, "-slow") {
				w.Header().Set("Retry-After", "3600")
			}
		} else {
			ids := r.URL.Query()["id"]
			j.calls = append(j.calls, ids)
			all := map[string]map[string]string{}
			for _, id := range ids {
				all[id] = map[string]string{"state": next(id)}
				if strings.HasSuffix(id, "-slow") {
					w.Header().Set("Retry-After", "3600")
				}
			}
			body = all
		}
		json.NewEncoder(w).Encode(body)
	}))
	t.Cleanup(s.Close)
	return s
}

func TestStart(t *testing.T) {
	t.Parallel()
	bin := build(t, "start")
	j := &jobs{states: map[string][]string{"42": {"queued", "running", "done"}, "43": {"running", "failed"}, "44": {"running"}}}
	s := j.serve(t)
	run(t, nil, bin, s.URL+"/42").check(t, "done", 0,
		`#1 queued: retry\n#2 running: retry\n#3 done: success\ndone\n`)
	run(t, nil, bin, s.URL+"/43").check(t, "failed", 1,
		`#1 running: retry\n#2 failed: failure\n`,
		`waiter JobDone: failure after 2 polls`, `acceptor 1 matched (output: State stringEquals "failed")`)
	run(t, nil, bin, s.URL+"/44-slow").check(t, "a Retry-After past the budget", 1,
		`#1 running: retry\n`,
		"waiter JobDone: timed out after 1 poll", hourPastDeadline)
}

// TestETA: one Waiter, waiting for jobs in turn, says nothing of the time
// left for the first four, then how long each has left; a job three times
// slower than the others is said to be slower than usual.
func TestETA(t *testing.T) {
	t.Parallel()
	bin := build(t, "eta")
	var mu sync.Mutex
	first := map[string]time.Time{}
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		job := strings.TrimPrefix(r.URL.Path, "/")
		mu.Lock()
		if _, ok := first[job]; !ok {
			first[job] = time.Now()
		}
		took := time.Since(first[job])
		mu.Unlock()
		state, lasts := "running", 300*time.Millisecond
		if job == "slow" {
			lasts = time.Second
		}
		if took >= lasts {
			state = "done"
		}
		fmt.Fprintf(w, `{"state": %q}`, state)
	}))
	t.Cleanup(s.Close)
	r := run(t, nil, bin, s.URL, "j1", "j2", "j3", "j4", "j5", "j6", "slow")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	for _, job := range []string{"j1", "j2", "j3", "j4"} {
		if strings.Contains(r.stdout, job+": about") {
			t.Errorf("%s, with fewer than 4 waits before it, has an estimate:\n%s", job, r.stdout)
		}
	}
	for _, want := range []string{"j5: about", "j6: about", "slow: slower than 95% of the", "slow done"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
}

func TestFanout(t *testing.T) {
	t.Parallel()
	bin := build(t, "fanout")
	s := health(t)
	ok, busy := s.URL+"/ok", s.URL+"/busy"
	run(t, nil, bin, ok, ok+"?b", ok+"?c").check(t, "all healthy", 0,
		regexp.QuoteMeta(ok+" healthy: true\n"+ok+"?b healthy: true\n"+ok+"?c healthy: true\n"))
	run(t, nil, bin, ok, busy, ok+"?c").check(t, "one busy past the budget", 1,
		regexp.QuoteMeta(ok+" healthy: true\n"+busy+" healthy: false\n"+ok+"?c healthy: true\n"),
		"1 of 3 waits did not succeed: "+busy+": timed out after 1 poll")
}

func TestBatch(t *testing.T) {
	t.Parallel()
	bin := build(t, "batch")
	j := &jobs{states: map[string][]string{"a": {"running", "done"}, "b": {"done"}, "c": {"running", "running", "failed"}}}
	s := j.serve(t)
	run(t, nil, bin, s.URL, "a", "b").check(t, "done", 0, "a done\nb done\n")
	j.mu.Lock()
	if want := [][]string{{"a", "b"}, {"a"}}; fmt.Sprint(j.calls) != fmt.Sprint(want) {
		t.Errorf("calls %v, want %v: the two jobs in one call, then the one still running", j.calls, want)
	}
	j.states = map[string][]string{"c": {"running", "failed"}, "d": {"running"}}
	j.mu.Unlock()
	run(t, nil, bin, s.URL, "c").check(t, "failed", 1, "",
		`waiter JobDone (c): failure after 2 polls`, `acceptor 1 matched (output: State stringEquals "failed")`)
	run(t, nil, bin, s.URL, "d-slow").check(t, "a Retry-After past the budget", 1, "",
		"waiter JobDone (d-slow): timed out after 1 poll", hourPastDeadline)
}

func TestCheckpoint(t *testing.T) {
	t.Parallel()
	bin := build(t, "checkpoint")
	var mode atomic.Value // "starting": a 503; "ok"; "busy": a 503 with a Retry-After of an hour
	mode.Store("starting")
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch mode.Load() {
		case "busy":
			w.Header().Set("Retry-After", "3600")
			w.WriteHeader(http.StatusServiceUnavailable)
		case "starting":
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	t.Cleanup(s.Close)
	dir := t.TempDir()
	file := filepath.Join(dir, "wait.json")

	// The first process polls once, saves its wait and is killed.
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, s.URL, file)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	cmd.Process.Kill()
	cmd.Wait()
	if line != "poll 1 retry\n" || err != nil {
		t.Fatalf("the first process printed %q (%v), want poll 1 retry", line, err)
	}
	saved, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	again := filepath.Join(dir, "again.json")
	if err := os.WriteFile(again, saved, 0o600); err != nil {
		t.Fatal(err)
	}

	// The next one carries the wait on: its first poll is the wait's second.
	mode.Store("ok")
	run(t, nil, bin, s.URL, file).check(t, "resumed, then healthy", 0, regexp.QuoteMeta("poll 2 success\n"+s.URL+" is healthy\n"))
	if _, err := os.Stat(file); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the checkpoint file is still there after the wait ended: %v", err)
	}
	mode.Store("busy")
	run(t, nil, bin, s.URL, again).check(t, "resumed, then a Retry-After past the budget", 1, "poll 2 retry\n",
		"waiter ServiceHealthy: timed out after 2 polls", hourPastDeadline)

	// A damaged checkpoint is refused.
	damaged := bytes.Replace(saved, []byte(`"attempts":1,`), []byte(`"attempts":9,`), 1)
	if bytes.Equal(damaged, saved) {
		t.Fatalf("no \"attempts\":1 in the checkpoint to damage: %s", saved)
	}
	if err := os.WriteFile(again, damaged, 0o600); err != nil {
		t.Fatal(err)
	}
	run(t, nil, bin, s.URL, again).check(t, "a damaged checkpoint", 1, "", "checkpoint: corrupt: checksum mismatch")
}

// eks is EKS's DescribeCluster for the cluster demo, over restJson1:
// GET /clusters/demo answers as mode says.
func eks(t *testing.T, mode *atomic.Value) *httptest.Server {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != "/clusters/demo" {
			t.Errorf("the program called %s %s, want GET /clusters/demo", r.Method, r.URL.Path)
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		switch m := mode.Load().(string); m {
		case "throttle": // an error: ThrottlingException, AWS's own header in milliseconds
			w.Header().Set("X-Amzn-Errortype", "ThrottlingException")
			w.Header().Set("X-Amz-Retry-After", "3600000")
			w.WriteHeader(http.StatusTooManyRequests)
			fmt.Fprint(w, `{"message": "Rate exceeded"}`)
		case "unavailable": // an error: a 503 with a Retry-After in seconds
			w.Header().Set("X-Amzn-Errortype", "ServiceUnavailableException")
			w.Header().Set("Retry-After", "3600")
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprint(w, `{"message": "Service unavailable"}`)
		case "CREATING-slow": // a pending answer that says when to look again
			w.Header().Set("Retry-After", "3600")
			fmt.Fprint(w, `{"cluster": {"name": "demo", "status": "CREATING"}}`)
		default:
			fmt.Fprintf(w, `{"cluster": {"name": "demo", "status": %q}}`, m)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func TestAWSWait(t *testing.T) {
	t.Parallel()
	bin := build(t, "awswait")
	var mode atomic.Value
	s := eks(t, &mode)
	none := filepath.Join(t.TempDir(), "none")
	env := []string{
		"AWS_ENDPOINT_URL_EKS=" + s.URL, "AWS_REGION=us-west-2",
		"AWS_ACCESS_KEY_ID=AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY=secret",
		"AWS_CONFIG_FILE=" + none, "AWS_SHARED_CREDENTIALS_FILE=" + none, "AWS_EC2_METADATA_DISABLED=true",
	}
	for _, c := range []struct {
		mode   string
		code   int
		stdout string
		stderr []string
	}{
		{"ACTIVE", 0, "cluster demo is ACTIVE\n", nil},
		{"FAILED", 1, "", []string{"waiter ClusterActive: failure after 1 poll", `"FAILED"`}},
		{"CREATING-slow", 1, "", []string{"cluster demo still CREATING: waiter ClusterActive: timed out after 1 poll", hourPastDeadline}},
		{"throttle", 1, "", []string{"no call succeeded: waiter ClusterActive: timed out after 1 poll", hourPastDeadline, "ThrottlingException: Rate exceeded"}},
		{"unavailable", 1, "", []string{"no call succeeded: waiter ClusterActive: timed out after 1 poll", hourPastDeadline, "StatusCode: 503"}},
	} {
		mode.Store(c.mode)
		run(t, env, bin).check(t, c.mode, c.code, regexp.QuoteMeta(c.stdout), c.stderr...)
	}
}

// TestExcerptOf: an excerpt matches its program's lines in order, in runs
// split at "// …", whatever their indentation; a changed, missing or
// reordered line does not.
func TestExcerptOf(t *testing.T) {
	program := "func main() {\n\ta := 1\n\tb := 2\n\tc := 3\n\td := 4\n}\n"
	for _, tc := range []struct {
		excerpt string
		ok      bool
		at      int
	}{
		{"a := 1\nb := 2", true, 0},
		{"\t\ta := 1\n\t\tb := 2\n", true, 0},
		{"a := 1\n// …\nd := 4", true, 0},
		{"a := 1\nc := 3", false, 0},               // a run skips a line
		{"c := 3\n// …\na := 1", false, 2},         // runs out of order
		{"a := 1\nb := 2\n// …\ne := 5", false, 3}, // a line the program lacks
	} {
		at, ok := excerptOf(tc.excerpt, program)
		if ok != tc.ok || (!ok && at != tc.at) {
			t.Errorf("excerptOf(%q) = %d, %t; want %d, %t", tc.excerpt, at, ok, tc.at, tc.ok)
		}
	}
}
