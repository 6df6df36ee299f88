package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/waitable/waitable/kubewait"
	"github.com/waitable/waitable/telemetry"
	"github.com/waitable/waitable/waiter"
)

const kubeUsage = `Usage: waitable kube [flags] TYPE/NAME...
       waitable kube [flags] TYPE[,TYPE...] NAME...
       waitable kube [flags] TYPE[,TYPE...] (-l SELECTOR | --all) [--count N]

Waits, as kubectl wait does, until every object meets --for, one meets a
--fail-on rule, or --timeout passes. TYPE is what kubectl takes (widget,
widgets, wd, widget.waitable.test, widgets.v1.waitable.test). The
objects' watches, one per resource and namespace, tell the wait of each
change; on success each object prints kubectl's line on standard output
(widget.waitable.test/a condition met).

Rules (--for, --fail-on), as kubectl wait --for writes them:
  condition=TYPE[=STATUS]   a status condition (STATUS True if left out)
  jsonpath=EXPR[=VALUE]     a JSONPath value, or that the path has one
  create, delete            the object exists, or is gone
  kstatus=Current|Failed    kstatus's verdict (reconciled, or failed)

Flags:
  --for RULE            what each object must meet (required)
  --fail-on RULE        an object meeting RULE ends the wait with failure (repeatable)
  -l, --selector SEL    the objects whose labels match SEL (app=web,tier!=db)
  --all                 every object of the type in the namespace
  --count N             with -l or --all: wait for at least N objects, those
                        created during the wait included, each meeting --for
  -n, --namespace NS    the namespace (default: the kubeconfig context's, or default)
  -A, --all-namespaces  with -l or --all: every namespace
  --timeout D           the command's total time, discovery included, for every
                        object at once (default 30s; it must be positive)
  --kubeconfig FILE     the kubeconfig (default: $KUBECONFIG, or ~/.kube/config)
  --context NAME        the kubeconfig's context (default: its current context)
  --json                one JSON object per event on standard output, then the result
  --quiet               print no progress
`

// kubeFlags are waitable kube's flags.
type kubeFlags struct {
	forRule                 kubewait.Rule
	forSet                  bool
	failOn                  []kubewait.Rule
	selector, namespace     string
	all, allNamespaces      bool
	count                   int
	timeout                 time.Duration
	kubeconfig, kubeContext string
	json, quiet             bool
}

// kubeTarget is one TYPE/NAME of the command line, or one TYPE of -l or
// --all (name "").
type kubeTarget struct{ typ, name string }

// kubeCommand is `waitable kube`: kubectl wait's objects and rules,
// each resource's objects in one kubewait wait, every wait at once under
// one budget.
func kubeCommand(ctx context.Context, args []string, stdout, stderr io.Writer, connect kubeConnect) (int, error) {
	f, targets, err := parseKube(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitSuccess, nil
	}
	if err != nil {
		return exitUsage, err
	}
	start := time.Now() // the budget's: discovery counts in it
	cluster, err := connect(f.kubeconfig, f.kubeContext, f.namespace, stderr)
	if err != nil {
		return exitUsage, err
	}
	// Discovery ends at the deadline too. The waits themselves get no
	// context deadline: kubewait ends each at its own Timeout, which
	// reports a timeout rather than a cancellation.
	dctx, cancel := context.WithDeadline(ctx, start.Add(f.timeout))
	reqs, order, err := kubeRequests(dctx, f, targets, cluster)
	cancel()
	switch {
	case err != nil && ctx.Err() != nil:
		return exitInterrupted, err
	case err != nil && errors.Is(dctx.Err(), context.DeadlineExceeded):
		return exitTimeout, fmt.Errorf("timed out after %v: %w", f.timeout, err)
	case err != nil:
		return exitFailure, err
	}
	return runKube(ctx, f, start, reqs, order, kubewait.NewClient(cluster.dyn, kubewait.ClientOptions{}), stdout, stderr)
}

// parseKube reads the command line: the flags (before, between or after
// the arguments, as kubectl takes them) and the targets.
func parseKube(args []string, stderr io.Writer) (kubeFlags, []kubeTarget, error) {
	var f kubeFlags
	fs := flag.NewFlagSet("kube", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, kubeUsage) }
	rule := func(s string) (kubewait.Rule, error) {
		r, err := kubewait.ParseRule(s)
		if err != nil {
			return r, errors.New(strings.TrimPrefix(err.Error(), "kubewait: "))
		}
		return r, nil
	}
	fs.Func("for", "", func(s string) (err error) {
		f.forRule, err = rule(s)
		f.forSet = err == nil
		return err
	})
	fs.Func("fail-on", "", func(s string) error {
		r, err := rule(s)
		f.failOn = append(f.failOn, r)
		return err
	})
	for _, name := range []string{"l", "selector"} {
		fs.StringVar(&f.selector, name, "", "")
	}
	for _, name := range []string{"n", "namespace"} {
		fs.StringVar(&f.namespace, name, "", "")
	}
	for _, name := range []string{"A", "all-namespaces"} {
		fs.BoolVar(&f.allNamespaces, name, false, "")
	}
	fs.BoolVar(&f.all, "all", false, "")
	fs.IntVar(&f.count, "count", 0, "")
	fs.DurationVar(&f.timeout, "timeout", 30*time.Second, "")
	fs.StringVar(&f.kubeconfig, "kubeconfig", "", "")
	fs.StringVar(&f.kubeContext, "context", "", "")
	fs.BoolVar(&f.json, "json", false, "")
	fs.BoolVar(&f.quiet, "quiet", false, "")
	args, err := parseInterleaved(fs, args, false)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return f, nil, err
		}
		return f, nil, usageError{err}
	}
	targets, err := kubeTargets(args, f)
	if err != nil {
		return f, nil, err
	}
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if !f.forSet {
		bad("--for is required (condition=Ready, jsonpath={.status.phase}=Running, create, delete, kstatus=Current)")
	}
	if f.timeout <= 0 {
		bad("--timeout %v: want a positive duration (the wait's total time)", f.timeout)
	}
	switch {
	case f.count < 0:
		bad("--count %d: negative", f.count)
	case f.count > 0 && f.selector == "" && !f.all:
		bad("--count needs -l or --all")
	case f.count > 0 && len(targets) > 1:
		bad("--count takes one TYPE, not %d", len(targets))
	}
	if f.selector != "" {
		if _, err := labels.Parse(f.selector); err != nil {
			bad("-l %q: %v", f.selector, err)
		}
	}
	if len(errs) > 0 {
		return f, nil, usageError{errors.Join(errs...)}
	}
	return f, targets, nil
}

// kubeTargets reads the arguments as kubectl does: TYPE/NAME..., or
// TYPE[,TYPE...] NAME... (each TYPE's NAMEs in turn), or TYPE[,TYPE...]
// with -l or --all.
func kubeTargets(args []string, f kubeFlags) ([]kubeTarget, error) {
	if len(args) == 0 {
		return nil, usagef("want TYPE/NAME..., TYPE NAME... or TYPE with -l or --all")
	}
	bySelector := f.selector != "" || f.all
	if f.selector != "" && f.all {
		return nil, usagef("-l and --all: give one of them")
	}
	var targets []kubeTarget
	add := func(t kubeTarget) {
		if !slices.Contains(targets, t) {
			targets = append(targets, t)
		}
	}
	if strings.Contains(args[0], "/") {
		for _, a := range args {
			typ, name, ok := strings.Cut(a, "/")
			if !ok || typ == "" || name == "" || strings.Contains(name, "/") {
				return nil, usagef("%q: want TYPE/NAME, as every argument after the first TYPE/NAME", a)
			}
			add(kubeTarget{typ, name})
		}
	} else {
		for typ := range strings.SplitSeq(args[0], ",") {
			if typ == "" {
				return nil, usagef("%q: an empty TYPE", args[0])
			}
			for _, name := range args[1:] {
				if strings.Contains(name, "/") {
					return nil, usagef("%q: after TYPE, give NAMEs (or only TYPE/NAME arguments)", name)
				}
				add(kubeTarget{typ, name})
			}
			if len(args) == 1 {
				add(kubeTarget{typ, ""})
			}
		}
	}
	named := targets[0].name != ""
	switch {
	case named && bySelector:
		return nil, usagef("names and -l or --all: give one of them")
	case !named && !bySelector:
		return nil, usagef("%s: give NAMEs, -l SELECTOR or --all", args[0])
	case named && f.allNamespaces:
		return nil, usagef("-A: objects are named in one namespace; use -n, or -l or --all with -A")
	}
	return targets, nil
}

// kubeRequest is one wait: a resource's objects in one namespace.
type kubeRequest struct {
	kubewait.Request
	mapping *meta.RESTMapping
}

// kubeSlot is one target's place in the output: its request's index and
// its name ("": the objects of -l or --all).
type kubeSlot struct {
	req  int
	name string
}

// kubeRequests resolves each TYPE through discovery and makes one
// request per resource and namespace; order is the targets in the order
// of the command line.
func kubeRequests(ctx context.Context, f kubeFlags, targets []kubeTarget, cluster kubeCluster) (reqs []kubeRequest, order []kubeSlot, err error) {
	mappings := map[string]*meta.RESTMapping{}
	for _, t := range targets {
		m := mappings[t.typ]
		if m == nil {
			if m, err = mappingFor(ctx, cluster.mapper, t.typ); err != nil {
				return nil, nil, err
			}
			mappings[t.typ] = m
		}
		ns := cluster.namespace
		if f.allNamespaces || m.Scope.Name() == meta.RESTScopeNameRoot {
			ns = ""
		}
		i := slices.IndexFunc(reqs, func(r kubeRequest) bool { return r.Resource == m.Resource && r.Namespace == ns })
		if i < 0 {
			i = len(reqs)
			reqs = append(reqs, kubeRequest{mapping: m, Request: kubewait.Request{
				Resource: m.Resource, Namespace: ns, Selector: f.selector, All: f.all, Count: f.count,
				For: []kubewait.Rule{f.forRule}, FailOn: f.failOn,
				Options: []waiter.Option{waiter.WithTelemetry(telemetry.Settings{Off: true})},
			}})
		}
		if t.name != "" && slices.Contains(reqs[i].Names, t.name) {
			continue // one object named twice (widget/a wd/a)
		}
		if t.name != "" {
			reqs[i].Names = append(reqs[i].Names, t.name)
		}
		order = append(order, kubeSlot{i, t.name})
	}
	return reqs, order, nil
}

// errStopped is why a wait was cancelled when another one failed.
var errStopped = errors.New("stopped: another object's wait failed")

// runKube runs every request at once, under one deadline, and prints
// their events, the objects that met --for and, when one did not, a
// summary. The exit status is the worst outcome: a failure (1) ends the
// other waits at once; then a timeout (2).
func runKube(ctx context.Context, f kubeFlags, start time.Time, reqs []kubeRequest, order []kubeSlot, client *kubewait.Client, stdout, stderr io.Writer) (int, error) {
	p := &kubeProgress{f: f, out: stdout, errOut: stderr, start: start}
	waitCtx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	deadline := p.start.Add(f.timeout)
	outcomes := make([]kubeOutcome, len(reqs))
	var wg sync.WaitGroup
	for i := range reqs {
		r := &reqs[i]
		r.OnEvent = func(e kubewait.Event) { p.event(r, e) }
		wg.Go(func() {
			r.Timeout = max(time.Until(deadline), time.Nanosecond)
			res, err := client.Wait(waitCtx, r.Request)
			outcomes[i] = kubeOutcome{req: r, res: res, err: err, code: kubeStatus(ctx, err)}
			if err != nil && outcomes[i].code != exitTimeout {
				stop(errStopped)
			}
		})
	}
	wg.Wait()
	return p.finish(outcomes, order, time.Since(p.start))
}

// kubeOutcome is how one request ended.
type kubeOutcome struct {
	req  *kubeRequest
	res  kubewait.Result
	err  error
	code int
}

// kubeStatus is the exit status of one request's outcome; -1 for a wait
// stopped because another failed.
func kubeStatus(ctx context.Context, err error) int {
	switch {
	case err == nil:
		return exitSuccess
	case errors.Is(err, kubewait.ErrInvalidRequest):
		return exitUsage
	case ctx.Err() != nil:
		return exitInterrupted
	case errors.Is(err, errStopped):
		return -1
	case errors.Is(err, waiter.ErrTimeout):
		return exitTimeout
	default: // a failure, no matching objects, a list that failed
		return exitFailure
	}
}

// worse reports whether exit status a is a worse outcome than b.
func worse(a, b int) bool {
	rank := func(c int) int {
		return slices.Index([]int{-1, exitSuccess, exitTimeout, exitFailure, exitUsage, exitInterrupted}, c)
	}
	return rank(a) > rank(b)
}
