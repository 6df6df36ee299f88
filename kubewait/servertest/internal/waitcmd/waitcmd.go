package waitcmd

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/waitable/waitable/kubewait/servertest/internal/kubectl"
)

// Tool is one of the two commands.
type Tool string

const (
	// Kubectl is kubectl wait, the reference.
	Kubectl Tool = "kubectl"
	// Waitable is waitable kube.
	Waitable Tool = "waitable"
)

// KubectlPath returns the kubectl of package kubectl: the machine's if it
// is v1.31 or later, or one built from k8s.io/kubectl.
func KubectlPath(t testing.TB) string {
	t.Helper()
	path, _ := kubectl.Path(t)
	return path
}

// Cleanup removes the commands the tests built: waitable ([WaitablePath])
// and kubectl, if the machine had none.
func Cleanup() {
	kubectl.Cleanup()
	if built.dir != "" {
		_ = os.RemoveAll(built.dir)
	}
}

// built is the waitable command, built once per process.
var built struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// WaitablePath returns the path of the waitable command, built on the
// first call in the process (go build of the workspace's
// github.com/waitable/waitable/cmd/waitable, from any of the repository's
// test modules) into a temporary folder that [Cleanup] removes. It fails
// t if the build fails.
func WaitablePath(t testing.TB) string {
	t.Helper()
	built.once.Do(func() {
		built.dir, built.err = os.MkdirTemp("", "waitable-servertest-")
		if built.err != nil {
			return
		}
		built.path = filepath.Join(built.dir, "waitable")
		const pkg = "github.com/waitable/waitable/cmd/waitable"
		out, err := exec.Command("go", "build", "-o", built.path, pkg).CombinedOutput()
		if err != nil {
			built.err = errors.New("go build " + pkg + ": " + err.Error() + "\n" + string(out))
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.path
}

// Env is where the commands run: the kubeconfig both read (as
// KUBECONFIG) and kubectl's discovery cache (KUBECACHEDIR), which
// concurrent runs of kubectl share as a user's do.
type Env struct {
	Kubeconfig string
	CacheDir   string
	kubectl    string
	waitable   string
}

// NewEnv returns the Env of the server whose kubeconfig file is
// kubeconfig, with a discovery cache of t's own; it skips t when there is
// no kubectl (see [KubectlPath]) and builds waitable (see
// [WaitablePath]).
func NewEnv(t testing.TB, kubeconfig string) *Env {
	t.Helper()
	return &Env{Kubeconfig: kubeconfig, CacheDir: t.TempDir(), kubectl: KubectlPath(t), waitable: WaitablePath(t)}
}

// WithKubectl returns a copy of env that runs the kubectl at path (one
// that [kubectl.AtLeast] gives, for a test that needs a recent one), with
// the same kubeconfig and discovery cache.
func (env *Env) WithKubectl(path string) *Env {
	c := *env
	c.kubectl = path
	return &c
}

// Line is one line a command wrote, with the time it arrived.
type Line struct {
	Time time.Time
	Text string
}

// Class is how a command ended, read the same way for both commands.
type Class string

const (
	// Success: exit status 0.
	Success Class = "success"
	// Timeout: kubectl's status 1 with "timed out waiting" on standard
	// error; waitable's status 2.
	Timeout Class = "timeout"
	// Failure: kubectl's status 1 otherwise (an error, no matching
	// resources); waitable's status 1 (a --fail-on rule held, an error).
	Failure Class = "failure"
	// Usage: waitable's status 64 (bad usage or input); kubectl has none
	// of its own (it exits 1: a Failure).
	Usage Class = "usage"
	// Other: any other status, or a command that did not exit by itself.
	Other Class = "other"
)

// Result is how a command ended.
type Result struct {
	Tool   Tool
	Args   []string
	Code   int // the exit status; -1 if it did not exit by itself
	Start  time.Time
	End    time.Time // when its output closed and it had exited
	Stdout []Line
	Stderr []Line

	command string // as Command returns it
}

// Command is the command line as a user would type it: "kubectl wait
// wd/a --for=delete", "waitable kube wd/a ...".
func (r Result) Command() string { return r.command }

// Elapsed is the command's time, from its start to its exit.
func (r Result) Elapsed() time.Duration { return r.End.Sub(r.Start) }

// Class reads r's exit status (and for kubectl, its standard error).
func (r Result) Class() Class {
	switch {
	case r.Code == 0:
		return Success
	case r.Tool == Kubectl && r.Code == 1 && strings.Contains(r.StderrText(), "timed out waiting"):
		return Timeout
	case r.Code == 1:
		return Failure
	case r.Tool == Waitable && r.Code == 2:
		return Timeout
	case r.Tool == Waitable && r.Code == 64:
		return Usage
	}
	return Other
}

// Texts returns the texts of lines.
func Texts(lines []Line) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = l.Text
	}
	return out
}

// StderrText returns standard error, one line after the other.
func (r Result) StderrText() string { return strings.Join(Texts(r.Stderr), "\n") }

// Proc is a running command.
type Proc struct {
	cmd  *exec.Cmd
	done chan struct{}

	mu  sync.Mutex
	res Result
	// lines is closed and replaced whenever a line arrives.
	lines chan struct{}
}

// Start starts tool with args (kubectl gets "wait" before them, waitable
// "kube") in env, with no standard input, in the test's folder. ctx bounds
// the command: when it ends, the command is killed. The caller must call
// [Proc.Wait].
func (env *Env) Start(ctx context.Context, tool Tool, args ...string) (*Proc, error) {
	return env.StartWith(ctx, Input{}, tool, args...)
}

// Input is what a command reads besides its arguments.
type Input struct {
	// Stdin is its standard input ("": none).
	Stdin string
	// Dir is its working folder ("": the test's).
	Dir string
}

// StartWith starts tool as [Env.Start] does, with in.
func (env *Env) StartWith(ctx context.Context, in Input, tool Tool, args ...string) (*Proc, error) {
	var cmd *exec.Cmd
	switch tool {
	case Kubectl:
		cmd = exec.CommandContext(ctx, env.kubectl, append([]string{"wait"}, args...)...)
	case Waitable:
		cmd = exec.CommandContext(ctx, env.waitable, append([]string{"kube"}, args...)...)
	default:
		return nil, errors.New("waitcmd: unknown tool " + string(tool))
	}
	cmd.Env = append(os.Environ(), "KUBECONFIG="+env.Kubeconfig, "KUBECACHEDIR="+env.CacheDir)
	cmd.Dir = in.Dir
	if in.Stdin != "" {
		cmd.Stdin = strings.NewReader(in.Stdin)
	}
	return start(cmd, tool, args, cmd.Args[1:])
}

// Exec starts cmd, any command of tool's (kubectl rollout status, say),
// and records its output line by line as [Env.Start] does; its Result's
// Args are cmd's arguments. The caller must call [Proc.Wait].
func Exec(tool Tool, cmd *exec.Cmd) (*Proc, error) {
	return start(cmd, tool, cmd.Args[1:], cmd.Args[1:])
}

// start starts cmd, whose Result has args and says it ran tool with line.
func start(cmd *exec.Cmd, tool Tool, args, line []string) (*Proc, error) {
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	p := &Proc{cmd: cmd, done: make(chan struct{}), lines: make(chan struct{}),
		res: Result{Tool: tool, Args: args, Code: -1,
			command: strings.Join(append([]string{string(tool)}, line...), " ")}}
	p.res.Start = time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	var wg sync.WaitGroup
	wg.Go(func() { p.read(stdout, &p.res.Stdout) })
	wg.Go(func() { p.read(stderr, &p.res.Stderr) })
	go func() {
		defer close(p.done)
		wg.Wait()
		err := cmd.Wait()
		end := time.Now()
		p.mu.Lock()
		defer p.mu.Unlock()
		p.res.End = end
		var exit *exec.ExitError
		switch {
		case err == nil:
			p.res.Code = 0
		case errors.As(err, &exit) && exit.Exited():
			p.res.Code = exit.ExitCode()
		}
	}()
	return p, nil
}

// read records r's lines into *lines as they arrive.
func (p *Proc) read(r io.Reader, lines *[]Line) {
	s := bufio.NewScanner(r)
	s.Buffer(nil, 1<<20)
	for s.Scan() {
		l := Line{Time: time.Now(), Text: s.Text()}
		p.mu.Lock()
		*lines = append(*lines, l)
		close(p.lines)
		p.lines = make(chan struct{})
		p.mu.Unlock()
	}
	_, _ = io.Copy(io.Discard, r)
}

// Exited is closed when the command has exited and its output closed.
func (p *Proc) Exited() <-chan struct{} { return p.done }

// Wait waits until the command has exited and returns how it ended.
func (p *Proc) Wait() Result {
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.res
}

// WaitStderr waits until a line of the command's standard error contains
// s, and reports whether one did before the command exited or ctx ended.
func (p *Proc) WaitStderr(ctx context.Context, s string) bool {
	return p.waitLine(ctx, func(r *Result) []Line { return r.Stderr }, s)
}

// WaitStdout waits until a line of the command's standard output
// contains s, as [Proc.WaitStderr] does for standard error.
func (p *Proc) WaitStdout(ctx context.Context, s string) bool {
	return p.waitLine(ctx, func(r *Result) []Line { return r.Stdout }, s)
}

// waitLine waits until a line of the output that out gives contains s.
func (p *Proc) waitLine(ctx context.Context, out func(*Result) []Line, s string) bool {
	for seen := 0; ; {
		p.mu.Lock()
		lines, next := out(&p.res), p.lines
		p.mu.Unlock()
		for ; seen < len(lines); seen++ {
			if strings.Contains(lines[seen].Text, s) {
				return true
			}
		}
		select {
		case <-next:
		case <-p.done:
			p.mu.Lock()
			defer p.mu.Unlock()
			for _, l := range out(&p.res)[seen:] {
				if strings.Contains(l.Text, s) {
					return true
				}
			}
			return false
		case <-ctx.Done():
			return false
		}
	}
}

// Warm fills kubectl's discovery cache (kubectl api-resources), as a
// user's earlier kubectl commands would have: the runs of kubectl that
// follow read the server's types from it.
func (env *Env) Warm(ctx context.Context) error {
	cmd := exec.CommandContext(ctx, env.kubectl, "api-resources")
	cmd.Env = append(os.Environ(), "KUBECONFIG="+env.Kubeconfig, "KUBECACHEDIR="+env.CacheDir)
	if out, err := cmd.CombinedOutput(); err != nil {
		return errors.New("kubectl api-resources: " + err.Error() + "\n" + string(out))
	}
	return nil
}
