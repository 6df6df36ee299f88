package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/waitable/waitable/kubewait"
	"github.com/waitable/waitable/telemetry"
	"github.com/waitable/waitable/waiter"
)

// kubeCommand is `waitable kube`: kubectl wait's objects and rules. The
// named objects (TYPE/NAME arguments, or a manifest's), of any kinds, are
// one kubewait wait; a selector's or --all's, one wait per resource and
// namespace; every wait runs at once under one budget.
func kubeCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, connect kubeConnect) (int, error) {
	f, targets, err := parseKube(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitSuccess, nil
	}
	if err != nil {
		return exitUsage, err
	}
	var manifest []manifestObject
	if len(f.files) > 0 {
		if manifest, err = readManifests(f.files, f.recursive, stdin); err != nil {
			return exitUsage, err
		}
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
	w, err := kubeRequests(dctx, f, targets, manifest, cluster)
	cancel()
	var ue usageError
	switch {
	case err != nil && ctx.Err() != nil:
		return exitInterrupted, err
	case errors.As(err, &ue):
		return exitUsage, err
	case serverFault(cluster.server, err) != nil:
		se := serverFault(cluster.server, err).(serverError)
		return se.code, se
	case err != nil && errors.Is(dctx.Err(), context.DeadlineExceeded):
		return exitTimeout, fmt.Errorf("timed out after %v: %w", f.timeout, err)
	case err != nil:
		return exitFailure, err
	}
	return runKube(ctx, f, start, w, cluster, stdout, stderr)
}

// kubeWaits are the command's waits, and the kind of each of their
// resources, for the command's lines.
type kubeWaits struct {
	reqs  []*kubewait.Request
	kinds map[schema.GroupVersionResource]schema.GroupVersionKind
	// named are the named objects, each waited for once (widget/a wd/a
	// is one object).
	named map[kubewait.Ref]bool
}

// kubeRequests resolves each TYPE, and each kind of the manifest, through
// discovery. The named objects, in the order of the command line or the
// manifest (each once), are one request; a selector's or --all's, one per
// resource and namespace. A kind or a type the server does not have, or
// an object in a namespace other than -n's, is a usageError.
func kubeRequests(ctx context.Context, f kubeFlags, targets []kubeTarget, manifest []manifestObject, cluster kubeCluster) (kubeWaits, error) {
	w := kubeWaits{kinds: map[schema.GroupVersionResource]schema.GroupVersionKind{}, named: map[kubewait.Ref]bool{}}
	request := func(ns string) *kubewait.Request {
		return &kubewait.Request{Namespace: ns, For: f.forRules, FailOn: f.failOn,
			Options: []waiter.Option{waiter.WithTelemetry(telemetry.Settings{Off: true})}}
	}
	var named *kubewait.Request
	addNamed := func(m *meta.RESTMapping, ns, name string) {
		ref := kubewait.Ref{Resource: m.Resource, Namespace: ns, Name: name}
		if w.named[ref] {
			return // one object named twice (widget/a wd/a)
		}
		w.named[ref] = true
		if named == nil {
			named = request(cluster.namespace)
			w.reqs = append(w.reqs, named)
		}
		named.Objects = append(named.Objects, kubewait.ObjectRef{GroupVersionKind: m.GroupVersionKind, Namespace: ns, Name: name})
	}
	mappings := map[string]*meta.RESTMapping{}
	for _, t := range targets {
		m := mappings[t.typ]
		if m == nil {
			var err error
			if m, err = mappingFor(ctx, cluster.mapper, t.typ); err != nil {
				return w, err
			}
			mappings[t.typ] = m
		}
		w.kinds[m.Resource] = m.GroupVersionKind
		ns := cluster.namespace
		if f.allNamespaces || m.Scope.Name() == meta.RESTScopeNameRoot {
			ns = ""
		}
		if t.name != "" {
			addNamed(m, ns, t.name)
			continue
		}
		if slices.ContainsFunc(w.reqs, func(r *kubewait.Request) bool { return r.Resource == m.Resource && r.Namespace == ns }) {
			continue
		}
		r := request(ns)
		r.Resource, r.Selector, r.FieldSelector, r.All, r.Count = m.Resource, f.selector, f.fieldSelector, f.all, f.count
		w.reqs = append(w.reqs, r)
	}
	var errs []error
	for _, o := range manifest {
		var versions []string
		if o.gvk.Version != "" {
			versions = []string{o.gvk.Version}
		}
		m, err := cluster.mapper.RESTMappingWithContext(ctx, o.gvk.GroupKind(), versions...)
		switch {
		case meta.IsNoMatchError(err):
			errs = append(errs, fmt.Errorf("%s: no matches for kind %q in version %q (ensure CRDs are installed first)",
				o.source, o.gvk.Kind, o.gvk.GroupVersion()))
			continue
		case err != nil:
			return w, fmt.Errorf("discovering the server's types: %w", err)
		}
		w.kinds[m.Resource] = m.GroupVersionKind
		ns := ""
		if m.Scope.Name() == meta.RESTScopeNameNamespace {
			ns = cmp.Or(o.namespace, cluster.namespace)
			if f.namespace != "" && ns != f.namespace {
				errs = append(errs, fmt.Errorf("%s: the namespace from the provided object %q does not match the namespace %q "+
					"(kubectl's words): pass --namespace=%s", o.source, ns, f.namespace, ns))
				continue
			}
		}
		addNamed(m, ns, o.name)
	}
	if len(errs) > 0 {
		return w, usageError{errors.Join(errs...)}
	}
	return w, nil
}

// errStopped is why a wait was cancelled when another one failed.
var errStopped = errors.New("stopped: another object's wait failed")

// runKube runs every request at once, under one deadline, and prints
// their events, the objects that met --for and, when one did not, a
// summary. The exit status is the worst outcome: a failure (1) ends the
// other waits at once; then a timeout (2).
func runKube(ctx context.Context, f kubeFlags, start time.Time, w kubeWaits, cluster kubeCluster, stdout, stderr io.Writer) (int, error) {
	p := &kubeProgress{f: f, kinds: w.kinds, out: stdout, errOut: stderr, start: start, server: cluster.server, answers: cluster.answers}
	waitCtx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	deadline := p.start.Add(f.timeout)
	outcomes := make([]kubeOutcome, len(w.reqs))
	var wg sync.WaitGroup
	for i, r := range w.reqs {
		r.OnEvent = func(e kubewait.Event) { p.event(r, e) }
		wg.Go(func() {
			r.Timeout = max(time.Until(deadline), time.Nanosecond)
			res, err := cluster.client.Wait(waitCtx, *r)
			outcomes[i] = kubeOutcome{req: r, res: res, err: err, code: kubeStatus(ctx, err)}
			if err != nil && outcomes[i].code != exitTimeout {
				stop(errStopped)
			}
		})
	}
	wg.Wait()
	return p.finish(outcomes, time.Since(p.start))
}

// kubeOutcome is how one request ended.
type kubeOutcome struct {
	req  *kubewait.Request
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
