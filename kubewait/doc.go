// Package kubewait waits for Kubernetes objects the way a Smithy waiter
// waits for a cloud resource: until each object meets its rules, or
// provably never will, within one budget for all of them.
//
// An object is the waiter's output in its JSON form ([Object]), judged by
// Smithy acceptors in JMESPath. kubectl wait's --for vocabulary builds
// them: [JSONPath] and [JSONPathExists] (jsonpath='{.status.phase}'=Running,
// with kubectl's JSONPath translated to JMESPath), [Created] (create) and
// [Deleted] (delete, by UID: an object deleted and created again counts as
// deleted). [Condition] (condition=Ready, condition=Ready=False) is
// kubectl's own rule, and kstatus's [Current] and [Failed]
// (sigs.k8s.io/cli-utils, what Helm 4 waits with) kstatus's: Go matchers,
// which JMESPath cannot express. [ParseRule] reads kubectl's spelling. A
// request's For rules must all hold of an object at once, as kubectl's
// several --for flags. Unlike kubectl wait, a wait also takes rules that
// fail it (Request.FailOn: a Job's Condition("Failed", "True") ends the
// wait at once, where kubectl waits out its timeout), waits for objects
// that do not exist yet (by name, or a Count of objects matching a
// selector), and reports each object's outcome: which object, in what
// state, the rules it did not meet, and its condition's reason and
// message ([Result], [Error]).
//
//	c, err := kubewait.NewForConfig(cfg, kubewait.ClientOptions{})
//	res, err := c.Wait(ctx, kubewait.Request{
//		Resource:  schema.GroupVersionResource{Group: "batch", Version: "v1", Resource: "jobs"},
//		Namespace: "default",
//		Selector:  "app=migrate",
//		For:       []kubewait.Rule{kubewait.Condition("Complete", "True")},
//		FailOn:    []kubewait.Rule{kubewait.Condition("Failed", "True")},
//		Timeout:   10 * time.Minute,
//	})
//
// A request names its objects by resource (Names, or a label and a field
// selector, or All), or, as a manifest does, by kind: Request.Objects, of
// any kinds, namespaced and cluster-scoped, resolved through the Client's
// RESTMapper and waited for in one call under one budget.
//
// # A wait costs what it waits for
//
// A [Client] lists and watches what its waits need, once, however many
// waits and objects need it (an informer), and stops when the last of
// those waits ends. A wait for a named object lists and watches that
// object alone (a metadata.name field selector, as kubectl asks, and as
// an RBAC grant of resourceNames allows); when a Client would watch more
// than 10 objects of one resource and namespace by name, they share one
// list and watch of the namespace, as does every named wait of a Client
// that watches the namespace already. A LIST comes in pages of 500; the
// informer keeps no managedFields; a result's object is a copy. A watch
// event judges at once the objects it concerns, in the goroutine of the
// wait that waits for them: there is no GET per object, and no poll
// interval between a status write and the wait's answer. Each object's
// wait is a Smithy wait of its own on the core's [waiter.Waiter.Begin]
// and [waiter.Waiter.Step], so the waiter's options apply as they do to
// any wait (WithNotFoundLimit, WithStability, WithRetryStrategy).
//
// # Watches that fail
//
// A watch fails as client-go's Reflector's does. A failure (an error, or
// a watch that ends at once with no event) backs off, about 0.8 s at
// first, doubling to 30 s, jittered so that clients do not retry
// together, from the start again after 2 minutes without one; failures
// count until a watch delivers an event. A watch whose resource version
// expired (410 Gone) or is newer than a lagging API server has
// (ResourceVersionTooLarge) lists again after that backoff, never in a
// loop: a watch that always answers 410 costs a few LISTs a minute. So
// does a LIST whose continue token expires before its last page: the
// whole list again, after the backoff. Each watch asks the server to end
// it after a timeout drawn at random between 5 and 10 minutes; one that
// the server closes at its timeout starts again at once where it left
// off, with no LIST. A wait's events say each of these ([Event.Watch]).
//
// When a wait cannot watch (list or watch is forbidden, as under RBAC
// that grants get only, or 3 failures in a row) it polls: a GET per
// object, or a LIST for a selector, on the waiter's schedule, under the
// Client's one rate limit ([ClientOptions.PollLimit]), never sooner than
// a 429's Retry-After. It watches again when a watch works: it delivers
// an event, or stays open a second.
//
// From a shell, `waitable kube` (github.com/waitable/waitable/cmd/waitable)
// takes kubectl wait's arguments.
package kubewait
