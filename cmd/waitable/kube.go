package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/printers"

	"github.com/waitable/waitable/backoff"
	"github.com/waitable/waitable/kubewait"
	"github.com/waitable/waitable/waiter"
)

const kubeLong = `Waits, as kubectl wait does, until every object meets every --for, one
meets a --fail-on rule, or --timeout passes. Objects are named as kubectl
names them (k8s.io/cli-runtime's resource builder): TYPE/NAME, TYPE NAME...,
TYPE with -l, --field-selector or --all (a category such as all, short names),
-f files, directories, URLs or - (standard input), -k a kustomization. Each
object's line (widget.waitable.test/a condition met, or -o's) is printed on
standard output as it meets a --for, in kubectl's order: once the objects
before it (named first, a selector's by namespace and name) are done.

Rules (--for, --fail-on), as kubectl wait --for writes them:
  condition=TYPE[=STATUS]   a status condition (STATUS True if left out)
  jsonpath=EXPR[=VALUE]     a JSONPath value, or that the path has one
  create, delete            the object exists, or is gone
  kstatus=Current|Failed    kstatus's verdict (reconciled, or failed)
  rollout                   a rollout done, failing as soon as a pod cannot start
Several --for are waited for one after another, in order (create first), as
kubectl 1.36 does.

Exit statuses: 0 success; 1 an object failed (a --fail-on rule held), or
no object matched; 2 timeout; 64 bad usage or input (a type the server does
not have, a kubeconfig that cannot be read, a manifest that cannot be read);
69 the API server could not be reached, or answered 5xx to the end; 77 it
refused our credentials or the resource (401, 403).`

const kubeExample = `  waitable kube --for condition=Available --timeout 5m -n prod deployment/web
  waitable kube --for condition=Ready -l app=web --count 3 pods
  waitable kube -f app.yaml --for=condition=Ready --for=jsonpath='{.status.phase}'=Done
  waitable kube --for=condition=Complete --fail-on=condition=Failed job/migrate -o name`

// week is how long a negative --timeout waits, as kubectl's does.
const week = 168 * time.Hour

// kubeOptions are waitable kube's flags: kubectl's (cli-runtime's config,
// resource builder and print flags) and the command's own.
type kubeOptions struct {
	config  *genericclioptions.ConfigFlags
	objects *genericclioptions.ResourceBuilderFlags
	print   *genericclioptions.PrintFlags

	forText, failOnText []string
	timeout             time.Duration
	count               int
	json, quiet         bool
	stdin               io.Reader // -f -'s
	recursiveSet        bool      // -R was given (it is on by default, as kubectl wait's, but for -k)
	rollout             kubewait.RolloutOptions
	rolloutSet          []string // the --rollout-* flags given
	history             string   // --history
	store               *fileHistory

	// Read from the flags by check.
	forRules, failOn []kubewait.Rule
	printer          printers.ResourcePrinter
}

func newKubeOptions() *kubeOptions {
	kustomize := ""
	return &kubeOptions{
		config: genericclioptions.NewConfigFlags(true),
		// kubectl wait's, and -k, which kubectl apply and get take.
		objects: genericclioptions.NewResourceBuilderFlags().WithFile(true, &kustomize).WithLabelSelector("").
			WithFieldSelector("").WithAll(false).WithAllNamespaces(false),
		print: genericclioptions.NewPrintFlags("condition met"),
	}
}

// kubeCommand is `waitable kube`: kubectl wait's flags, objects, rules and
// printers. The named objects (TYPE/NAME arguments, or a manifest's), of
// any kinds, are one kubewait wait; a selector's or --all's, one wait per
// resource and namespace; every wait runs at once under one budget.
func kubeCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, connect kubeConnect) (int, error) {
	c := &cli{stdin: stdin, stdout: stdout, stderr: stderr, connect: connect}
	_, code, err := c.execute(ctx, append([]string{"kube"}, args...))
	return code, err
}

// kubeCommand is the command waitable kube.
func (c *cli) kubeCommand() *cobra.Command {
	o := newKubeOptions()
	o.stdin = c.stdin
	cmd := &cobra.Command{
		Use:     "kube ([-f FILENAME] | [-k DIR] | TYPE/NAME... | TYPE NAME... | TYPE (-l SELECTOR | --all)) --for RULE",
		Short:   "Wait for Kubernetes objects as kubectl wait does",
		Long:    kubeLong,
		Example: kubeExample,
	}
	o.addFlags(cmd)
	cmd.ValidArgsFunction = o.completeObjects(c.connect)
	for _, flag := range []string{"for", "fail-on"} {
		_ = cmd.RegisterFlagCompletionFunc(flag, completeRules) // the flags exist: addFlags added them
	}
	return c.leaf(cmd, func(ctx context.Context, cmd *cobra.Command, args []string) (int, error) {
		o.recursiveSet = cmd.Flags().Changed("recursive")
		o.rolloutSet = nil
		cmd.Flags().Visit(func(f *pflag.Flag) {
			if strings.HasPrefix(f.Name, "rollout-") {
				o.rolloutSet = append(o.rolloutSet, f.Name)
			}
		})
		return o.run(ctx, args, c.stdout, c.stderr, c.connect)
	})
}

// addFlags adds kubectl wait's flags (cli-runtime's) and the command's.
func (o *kubeOptions) addFlags(cmd *cobra.Command) {
	o.print.AddFlags(cmd)
	o.objects.AddFlags(cmd.Flags())
	o.config.AddFlags(cmd.Flags())
	fs := cmd.Flags()
	fs.StringArrayVar(&o.forText, "for", nil, "The rule each object must meet: create, delete, condition=TYPE[=STATUS], "+
		"jsonpath='{EXPR}'[=VALUE], kstatus=Current|Failed, rollout. Several are waited for one after another, in order.")
	fs.StringArrayVar(&o.failOnText, "fail-on", nil, "A rule that ends the wait with failure (status 1) as soon as an object meets it.")
	fs.DurationVar(&o.timeout, "timeout", 30*time.Second, "The command's total time, discovery included, for every object at once. "+
		"Zero means check once and don't wait, negative means wait for a week.")
	fs.IntVar(&o.count, "count", 0, "With a selector or --all: wait for at least N objects, those created during the wait included.")
	fs.BoolVar(&o.json, "json", false, "Print one JSON object per event on standard output, then the result.")
	fs.BoolVar(&o.quiet, "quiet", false, "Print no progress.")
	fs.StringVar(&o.history, "history", "", "The `FILE` that keeps the durations of past waits, by object, from which each "+
		"object's progress lines say how long it has left, or off (default: $WAITABLE_HISTORY, else $XDG_STATE_HOME/waitable/history.db).")
	for _, w := range []struct {
		name string
		to   *time.Duration
		what string
	}{
		{"window", &o.rollout.Window, "an image that is not there, or a container that cannot be created or run"},
		{"config", &o.rollout.Config, "a missing Secret or ConfigMap"},
		{"crash-loop", &o.rollout.CrashLoop, "a crash loop, from its first crash"},
		{"unschedulable", &o.rollout.Unschedulable, "a pod that cannot be scheduled"},
		{"quota", &o.rollout.Quota, "a ReplicaSet that cannot create its pods (a quota)"},
		{"events", &o.rollout.Events, "a FailedMount, FailedAttachVolume or FailedCreatePodSandBox Event on a pod that has not started"},
	} {
		fs.DurationVar(w.to, "rollout-"+w.name, 0, "With --for=rollout: how long "+w.what+" may last before the rollout fails "+
			"(0: the default; the workload's annotation rollout.waitable.dev/"+w.name+" overrides it).")
	}
	fs.IntVar(&o.rollout.Restarts, "rollout-restarts", 0, "With --for=rollout: how many restarts make a crash loop "+
		"(0: the default, 2; the workload's annotation rollout.waitable.dev/restarts overrides it).")
}

// check reads the rules and the printer, and checks the flags that go
// together: every problem at once, as a usageError.
func (o *kubeOptions) check() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	rule := func(flag, s string) kubewait.Rule {
		r, err := kubewait.ParseRule(s)
		if err != nil {
			bad("--%s=%s: %s", flag, s, strings.TrimPrefix(err.Error(), "kubewait: "))
		}
		return r
	}
	o.forRules, o.failOn = nil, nil
	rollout := false
	for _, s := range o.forText {
		r := rule("for", s)
		if strings.EqualFold(s, "rollout") {
			rollout = true
			r = kubewait.Rollout(o.rollout)
		}
		o.forRules = append(o.forRules, r)
	}
	r := o.rollout
	for _, w := range []struct {
		name string
		d    time.Duration
	}{{"window", r.Window}, {"config", r.Config}, {"crash-loop", r.CrashLoop}, {"unschedulable", r.Unschedulable},
		{"quota", r.Quota}, {"events", r.Events}} {
		if w.d < 0 {
			bad("--rollout-%s=%v: negative", w.name, w.d)
		}
	}
	if r.Restarts < 0 {
		bad("--rollout-restarts=%d: negative", r.Restarts)
	}
	if len(o.rolloutSet) > 0 && !rollout {
		bad("--%s needs --for=rollout", o.rolloutSet[0])
	}
	for _, s := range o.failOnText {
		o.failOn = append(o.failOn, rule("fail-on", s))
	}
	// kubectl waits for --for=create before the others.
	slices.SortStableFunc(o.forRules, func(a, b kubewait.Rule) int {
		return boolRank(b.String() == "create") - boolRank(a.String() == "create")
	})
	if len(o.forText) == 0 {
		bad("--for is required (condition=Ready, jsonpath={.status.phase}=Running, create, delete, kstatus=Current, rollout)")
	}
	switch {
	case o.count < 0:
		bad("--count=%d: negative", o.count)
	case o.count > 0 && !o.bySelector():
		bad("--count needs -l, --field-selector or --all")
	}
	if *o.objects.LabelSelector != "" && *o.objects.All {
		bad("-l and --all: give one of them")
	}
	if sel := *o.objects.LabelSelector; sel != "" {
		if _, err := labels.Parse(sel); err != nil {
			bad("-l %q: %v", sel, err)
		}
	}
	if sel := *o.objects.FieldSelector; sel != "" {
		if _, err := fields.ParseSelector(sel); err != nil {
			bad("--field-selector %q: %v", sel, err)
		}
	}
	printer, err := o.print.ToPrinter()
	switch {
	case err != nil:
		errs = append(errs, err)
	case o.json && o.print.OutputFlagSpecified != nil && o.print.OutputFlagSpecified():
		bad("-o and --json: give one of them (--json prints the events, -o the objects)")
	}
	o.printer = printer
	if len(errs) > 0 {
		return usageError{errors.Join(errs...)}
	}
	return nil
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// bySelector reports whether the objects are those of a selector or --all.
func (o *kubeOptions) bySelector() bool {
	return *o.objects.LabelSelector != "" || *o.objects.FieldSelector != "" || *o.objects.All
}

// budget is the command's total time: --timeout, a week for a negative
// one, as kubectl's.
func (o *kubeOptions) budget() time.Duration {
	if o.timeout < 0 {
		return week
	}
	return o.timeout
}

// rulesText is the --for rules as kubectl writes them, joined by ", ".
func (o *kubeOptions) rulesText() string {
	texts := make([]string, len(o.forRules))
	for i, r := range o.forRules {
		texts[i] = r.String()
	}
	return strings.Join(texts, ", ")
}

// run connects, resolves the objects and waits for them.
func (o *kubeOptions) run(ctx context.Context, args []string, stdout, stderr io.Writer, connect kubeConnect) (int, error) {
	if err := o.check(); err != nil {
		return exitUsage, err
	}
	start := time.Now() // the budget's: discovery counts in it
	cluster, err := connect(o.config, stderr)
	if err != nil {
		return exitUsage, err
	}
	if o.store = historyFileFor(o.history); o.store != nil {
		defer func() {
			if err := o.store.save(); err != nil {
				fmt.Fprintf(stderr, "waitable: the waits' durations were not saved in the history: %v\n", err)
			}
		}()
	}
	w, err := o.resolveBefore(ctx, start, cluster, args, stdout, stderr)
	var ue usageError
	var se serverError
	switch {
	case err != nil && ctx.Err() != nil:
		return exitInterrupted, err
	case errors.As(err, &se):
		return se.code, se
	case errors.As(err, &ue):
		return exitUsage, err
	case errors.Is(err, context.DeadlineExceeded):
		return exitTimeout, err
	case err != nil:
		return exitUsage, err
	}
	p := &kubeProgress{o: o, kinds: w.kinds, out: stdout, errOut: stderr, start: start,
		server: cluster.server, answers: cluster.answers, named: w.named}
	if o.timeout == 0 {
		return p.checkOnce(ctx, w, cluster)
	}
	return p.wait(ctx, start.Add(o.budget()), w, cluster)
}

// resolveBefore resolves the objects (discovery, manifests) by the
// command's deadline. An API server that cannot be reached (a refused
// connection, a 5xx, a timeout: one that restarts) is tried again until
// the deadline, each try said on a progress line, on the Smithy schedule
// from 1 s to at most 10 s apart (a server that restarts is back within
// seconds); one that refuses access (401, 403) ends it at once. With
// --timeout=0 (check once), discovery is tried once, within the default
// --timeout, 30 s.
func (o *kubeOptions) resolveBefore(ctx context.Context, start time.Time, cluster kubeCluster, args []string, stdout, stderr io.Writer) (kubeWaits, error) {
	budget := o.budget()
	if budget == 0 {
		budget = 30 * time.Second
	}
	deadline := start.Add(budget)
	schedule := backoff.WaiterSchedule{MinDelay: time.Second, MaxDelay: 10 * time.Second} // jittered by backoff.Uniform
	var last error                                                                        // the server's last trouble
	for attempt := 1; ; attempt++ {
		tried := time.Now()
		w, err := o.resolveOnce(ctx, deadline, budget, cluster, args)
		var se serverError
		switch {
		case last != nil && errors.Is(err, context.DeadlineExceeded):
			return w, last // the last try ran into the deadline: the server was not reached
		case err == nil || !errors.As(err, &se) || se.code != exitUnavailable || o.timeout == 0:
			return w, err
		}
		last = err
		// The last try's time, and half again, is left for the next.
		delay := schedule.Delay(attempt, time.Until(deadline), time.Since(tried)*3/2+10*time.Millisecond)
		if delay <= 0 {
			return w, err
		}
		o.unreachable(stdout, stderr, start, se, delay)
		if mapper, merr := cluster.getter.ToRESTMapper(); merr == nil {
			meta.MaybeResetRESTMapper(mapper) // discover again
		}
		timer := time.NewTimer(delay)
		select {
		case <-timer.C:
		case <-ctx.Done():
			timer.Stop()
			return kubeWaits{}, context.Cause(ctx)
		}
	}
}

// resolveOnce is one try of [kubeOptions.resolveBefore], by deadline:
// cli-runtime's builder takes no context, and a server that does not
// answer would hold it past it.
func (o *kubeOptions) resolveOnce(ctx context.Context, deadline time.Time, budget time.Duration, cluster kubeCluster, args []string) (kubeWaits, error) {
	type resolved struct {
		w   kubeWaits
		err error
	}
	done := make(chan resolved, 1)
	cluster.answers.mark()
	go func() {
		w, err := o.resolve(cluster, args)
		done <- resolved{w, err}
	}()
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case r := <-done:
		return r.w, r.err
	case <-timer.C:
		return kubeWaits{}, fmt.Errorf("timed out after %v: discovering the server's types: %w", budget, context.DeadlineExceeded)
	case <-ctx.Done():
		return kubeWaits{}, context.Cause(ctx)
	}
}

// unreachable says, on a progress line, that the API server could not be
// reached and when the command tries again.
func (o *kubeOptions) unreachable(stdout, stderr io.Writer, start time.Time, se serverError, delay time.Duration) {
	switch {
	case o.json:
		writeJSON(stdout, kubeEventJSON{Time: time.Now(), ElapsedMS: ms(time.Since(start)), Watch: "unreachable",
			Error: se.Error()})
	case !o.quiet:
		fmt.Fprintf(stderr, "+%s  %v; trying again in %s\n", short(time.Since(start)), se, short(delay))
	}
}

// errStopped is why a wait was cancelled when another one failed.
var errStopped = errors.New("stopped: another object's wait failed")

// wait runs the --for rules one after another, in order, as kubectl
// does: for each, every request at once under one deadline, each
// object's line printed as it meets the rule. It stops at the first rule
// not met by every object.
func (p *kubeProgress) wait(ctx context.Context, deadline time.Time, w kubeWaits, cluster kubeCluster) (int, error) {
	var outcomes []kubeOutcome
	for _, rule := range p.o.forRules {
		outcomes = p.waitFor(ctx, deadline, rule, w, cluster)
		if worst(outcomes) != exitSuccess {
			break
		}
	}
	return p.finish(outcomes, time.Since(p.start))
}

// waitFor waits for every request of w to meet rule, at once, and
// returns their outcomes. A failure (1) ends the other waits at once.
func (p *kubeProgress) waitFor(ctx context.Context, deadline time.Time, rule kubewait.Rule, w kubeWaits, cluster kubeCluster) []kubeOutcome {
	waitCtx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	outcomes := make([]kubeOutcome, len(w.reqs))
	reqs := make([]*kubewait.Request, len(w.reqs))
	var wg sync.WaitGroup
	for i, base := range w.reqs {
		r := *base
		reqs[i] = &r
		r.For, r.FailOn = []kubewait.Rule{rule}, p.o.failOn
		r.OnEvent = func(e kubewait.Event) { p.event(&r, e) }
		wg.Go(func() {
			r.Timeout = max(time.Until(deadline), time.Nanosecond)
			res, err := cluster.client.Wait(waitCtx, r)
			outcomes[i] = kubeOutcome{req: &r, res: res, err: err, code: kubeStatus(ctx, err)}
			if err != nil && outcomes[i].code != exitTimeout {
				stop(errStopped)
			}
		})
	}
	wg.Wait()
	p.ruleEnded(reqs)
	return outcomes
}

// kubeOutcome is how one request ended.
type kubeOutcome struct {
	req  *kubewait.Request
	res  kubewait.Result
	err  error
	code int
}

// worst is the worst exit status of outcomes.
func worst(outcomes []kubeOutcome) int {
	code := exitSuccess
	for _, o := range outcomes {
		if worse(o.code, code) {
			code = o.code
		}
	}
	return code
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
	case serverFault("", err) != nil: // a timeout or a failure with the server's error last
		return serverFault("", err).(serverError).code
	case errors.Is(err, waiter.ErrTimeout):
		return exitTimeout
	default: // a failure, no matching objects, a list that failed
		return exitFailure
	}
}

// worse reports whether exit status a is a worse outcome than b.
func worse(a, b int) bool {
	rank := func(c int) int {
		return slices.Index([]int{-1, exitSuccess, exitTimeout, exitUnavailable, exitFailure, exitNoPerm, exitUsage, exitInterrupted}, c)
	}
	return rank(a) > rank(b)
}
