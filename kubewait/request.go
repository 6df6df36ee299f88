package kubewait

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/waitable/waitable/backoff"
	"github.com/waitable/waitable/waiter"
)

// Request is what to wait for: which objects, the rules they must meet,
// and for how long.
//
// The objects are given one of four ways: Names of Resource in
// Namespace; the objects of Resource that match Selector and
// FieldSelector; All the objects of Resource in Namespace; or Objects,
// of any kinds, as a manifest names them.
type Request struct {
	// Resource is the objects' resource (group, version, plural name),
	// for Names, Selector, FieldSelector and All.
	Resource schema.GroupVersionResource
	// Namespace is the objects' namespace: "" for a cluster-scoped
	// resource or, with Selector, FieldSelector or All, every namespace.
	// For Objects, it is the namespace of those of a namespaced kind that
	// name none, as kubectl's -n is for a manifest.
	Namespace string
	// Names are the objects' names.
	Names []string
	// Selector is a label selector ("app=web,tier!=db") and FieldSelector
	// a field selector ("status.phase=Running"), as kubectl's -l and
	// --field-selector: the objects that match both.
	Selector      string
	FieldSelector string
	// All is every object of Resource in Namespace (kubectl's --all).
	All bool
	// Objects are objects of any kinds, each by its Kind (group, kind and,
	// if it matters, version), namespace and name: what `kubectl wait -f
	// manifest.yaml` waits for. The Client's RESTMapper
	// ([ClientOptions.Mapper]) resolves each kind to its resource; an
	// object whose Resource is set needs no mapping.
	Objects []Ref
	// Count, with Selector, FieldSelector or All, is how many objects must
	// match: the wait succeeds when at least Count objects match and every
	// one of them meets For, objects created after the wait began
	// included. 0 means the objects that match when the wait begins, as
	// kubectl wait does (at least one: none is ErrNoObjects); with For
	// Created alone, 0 means 1.
	Count int
	// For are the rules that end an object's wait in success, kubectl
	// wait's --for flags: every one must hold of the object at once. An
	// object that does not exist yet is waited for (kubectl fails at
	// once): [waiter.WithNotFoundLimit] in Options ends such a wait early.
	// Deleted takes no other rule.
	For []Rule
	// FailOn are rules that end an object's wait in failure, and so the
	// wait: a Job's Condition("Failed", "True"), kstatus's [Failed].
	FailOn []Rule
	// Timeout is the wait's total time for every object (required, as the
	// Smithy specification requires); a context deadline sooner than it
	// ends the wait sooner.
	Timeout time.Duration
	// Options are the waiter's options for each object's wait:
	// WithNotFoundLimit, WithStability, WithDelays (the pace at which an
	// object is judged again without an event, and polled when the wait
	// cannot watch), WithRetryStrategy, WithHistory (in place of the
	// Client's History) and WithHistoryKey (a key of Ref in place of the
	// object's resource, namespace and name). The Client's clock replaces
	// any WithClock.
	Options []waiter.Option
	// OnEvent, if not nil, is called with each [Event], in the goroutine
	// that called Wait, one event at a time. The events of a selector's
	// objects judged at one instant come by namespace and name, as the
	// Result lists them.
	OnEvent func(Event)
}

// Ref names one object: in a Request's Objects, by its Kind (as a
// manifest does) or its Resource; in events and results, by its
// Resource, with the Kind the request gave it and its UID. It is the
// waiter's input, which acceptors read as input.namespace, input.name
// and input.uid.
type Ref struct {
	// Resource is the object's resource ("apps", "v1", "deployments").
	Resource schema.GroupVersionResource `json:"-"`
	// Kind is the object's kind ("apps", "v1", "Deployment"), as a
	// request's Objects name it; an empty Version is the version the
	// server prefers.
	Kind schema.GroupVersionKind `json:"-"`
	// Namespace is the object's namespace: "" for a cluster-scoped
	// object or, in a request's Objects, for the Request's Namespace.
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// UID is the object's UID as the wait first saw it ("" until then).
	UID string `json:"uid"`
}

// String returns namespace/name, or the name of a cluster-scoped object.
func (r Ref) String() string {
	if r.Namespace == "" {
		return r.Name
	}
	return r.Namespace + "/" + r.Name
}

// kindName names r by its kind, as kubectl names an object:
// Deployment.apps default/web, Widget.example.com a; by its resource
// when it has no kind.
func (r Ref) kindName() string {
	s := r.Kind.GroupKind().String()
	if r.Kind.Kind == "" {
		s = resourceName(r.Resource)
	}
	return s + " " + r.String()
}

// resourceName is the resource as kubectl names it in its lines:
// widgets.example.com, deployments.apps, pods.
func resourceName(gvr schema.GroupVersionResource) string {
	return gvr.GroupResource().String()
}

// check returns every problem of the request, or nil.
func (req Request) check() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	which := 0
	for _, set := range []bool{len(req.Names) > 0, req.Selector != "" || req.FieldSelector != "", req.All, len(req.Objects) > 0} {
		if set {
			which++
		}
	}
	if which != 1 {
		bad("set exactly one of Names, Selector (or FieldSelector), All and Objects (%d set)", which)
	}
	if len(req.Objects) == 0 && (req.Resource.Resource == "" || req.Resource.Version == "") {
		bad("Resource %q: a resource and a version are required", req.Resource.String())
	}
	if len(req.Objects) > 0 && !req.Resource.Empty() {
		bad("Resource %q: Objects name their own kinds", req.Resource.String())
	}
	seen := map[string]bool{}
	for i, n := range req.Names {
		if n == "" || strings.Contains(n, "/") {
			bad("Names[%d] %q is not an object's name", i, n)
		}
		if seen[n] {
			bad("Names[%d] %q is named twice", i, n)
		}
		seen[n] = true
	}
	objs := map[Ref]bool{}
	for i, o := range req.Objects {
		switch {
		case o.Kind.Kind == "" && o.Resource.Resource == "":
			bad("Objects[%d] %q: no kind", i, o.Name)
		case o.Name == "" || strings.Contains(o.Name, "/"):
			bad("Objects[%d] %s: %q is not an object's name", i, o.Kind.GroupKind(), o.Name)
		case o.UID != "":
			bad("Objects[%d] %s: a UID is the wait's to see", i, o.kindName())
		case objs[o]:
			bad("Objects[%d] %s is named twice", i, o.kindName())
		}
		objs[o] = true
	}
	if _, err := labels.Parse(req.Selector); err != nil { // "" is every object
		bad("Selector %q: %v", req.Selector, err)
	}
	if _, err := fields.ParseSelector(req.FieldSelector); err != nil {
		bad("FieldSelector %q: %v", req.FieldSelector, err)
	}
	if req.Count < 0 || (req.Count > 0 && (len(req.Names) > 0 || len(req.Objects) > 0)) {
		bad("Count %d: a count of at least 0, with Selector, FieldSelector or All only", req.Count)
	}
	if req.Timeout <= 0 {
		bad("Timeout %v: the wait's total time must be positive", req.Timeout)
	}
	if len(req.For) == 0 {
		bad("For: no rule")
	}
	for i, r := range req.For {
		switch {
		case r.is == nil:
			bad("For[%d]: no rule", i)
		case r.err != nil:
			bad("For[%d]: %v", i, r.err)
		case r.isDeleted() && len(req.For) > 1:
			bad("For[%d]: delete takes no other rule (an object that is gone meets no other)", i)
		case r.isDeleted() && req.Count > 0:
			bad("Count %d: a wait for deletion has no count", req.Count)
		}
	}
	for i, r := range req.FailOn {
		switch {
		case r.is == nil:
			bad("FailOn[%d]: no rule", i)
		case r.err != nil:
			bad("FailOn[%d]: %v", i, r.err)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%w: %w", ErrInvalidRequest, errors.Join(errs...))
	}
	return nil
}

// forDeleted reports whether the request waits for deletion.
func (req Request) forDeleted() bool { return len(req.For) == 1 && req.For[0].isDeleted() }

// forCreated reports whether the request waits for creation alone.
func (req Request) forCreated() bool { return len(req.For) == 1 && req.For[0].is == createdRule{} }

// named is a wait's named objects of one resource in one namespace, and
// the place of each among the objects the request names.
type named struct {
	gvr       schema.GroupVersionResource
	namespace string
	refs      []Ref
	order     []int
}

// resolve returns the request's named objects, grouped by resource and
// namespace in the order the request names them: Names, or Objects
// through the Client's RESTMapper. A mapping that fails for want of the
// API server (a refused connection, a 5xx, a timeout: its discovery,
// say, while it restarts) is tried again until the deadline, on the
// Smithy schedule from 1 s to at most 10 s apart (a server that restarts
// is back within seconds); a kind the server does not have fails at
// once.
func (d *driver) resolve(ctx context.Context) ([]named, error) {
	clk := d.c.clk
	schedule := backoff.WaiterSchedule{MinDelay: time.Second, MaxDelay: 10 * time.Second, Jitter: d.c.jitter}
	for attempt := 1; ; attempt++ {
		groups, err := d.c.resolve(ctx, d.req)
		if err == nil || !unreachable(err) {
			return groups, err
		}
		delay := schedule.Delay(attempt, clk.Until(d.end), 0)
		if delay <= 0 || ctx.Err() != nil {
			return nil, fmt.Errorf("%w: the API server could not be reached: %w", waiter.ErrTimeout, err)
		}
		if !sleep(ctx, clk, delay) {
			return nil, context.Cause(ctx)
		}
	}
}

// resolve is [driver.resolve]'s one try.
func (c *Client) resolve(ctx context.Context, req Request) ([]named, error) {
	var groups []named
	add := func(ref Ref, order int) {
		i := slices.IndexFunc(groups, func(g named) bool { return g.gvr == ref.Resource && g.namespace == ref.Namespace })
		if i < 0 {
			i, groups = len(groups), append(groups, named{gvr: ref.Resource, namespace: ref.Namespace})
		}
		groups[i].refs = append(groups[i].refs, ref)
		groups[i].order = append(groups[i].order, order)
	}
	for i, n := range req.Names {
		add(Ref{Resource: req.Resource, Namespace: req.Namespace, Name: n}, i)
	}
	var errs []error
	for i, o := range req.Objects {
		namespaced := o.Namespace != "" || o.Resource.Empty() // a Resource given keeps its namespace
		if o.Resource.Empty() {
			if c.mapper == nil {
				return nil, fmt.Errorf("%w: Objects: the Client has no RESTMapper (ClientOptions.Mapper)", ErrInvalidRequest)
			}
			m, err := c.mapping(ctx, o.Kind)
			if meta.IsNoMatchError(err) {
				err = fmt.Errorf("the server has no kind %s: %w", o.Kind.GroupKind(), err)
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("%s %s: %w", objectsField(i), o.kindName(), err))
				continue
			}
			o.Resource, namespaced = m.Resource, m.Scope.Name() == meta.RESTScopeNameNamespace
		}
		if !namespaced {
			o.Namespace = ""
		} else if o.Namespace == "" {
			o.Namespace = req.Namespace
		}
		if namespaced && o.Namespace == "" {
			errs = append(errs, fmt.Errorf("%s %s: a %s is namespaced, and neither it nor the Request names a namespace",
				objectsField(i), o.kindName(), o.Kind.Kind))
			continue
		}
		add(o, len(req.Names)+i)
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("kubewait: %w", errors.Join(errs...))
	}
	return groups, nil
}

// mapping resolves a kind to its resource through the Client's mapper
// (with ctx, if the mapper takes one).
func (c *Client) mapping(ctx context.Context, gvk schema.GroupVersionKind) (*meta.RESTMapping, error) {
	var versions []string
	if gvk.Version != "" {
		versions = []string{gvk.Version}
	}
	if m, ok := c.mapper.(meta.RESTMapperWithContext); ok {
		return m.RESTMappingWithContext(ctx, gvk.GroupKind(), versions...)
	}
	return c.mapper.RESTMapping(gvk.GroupKind(), versions...)
}

// objectsField names the Request's i'th object reference in an error
// (a field's name, which starts as Go writes it, with a capital).
func objectsField(i int) string { return fmt.Sprintf("Objects[%d]", i) }
