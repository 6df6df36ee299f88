// Package kubewait waits for Kubernetes objects the way a Smithy waiter
// waits for a cloud resource: until each object meets its rules, or
// provably never will, within one budget for all of them.
//
// An object is the waiter's output in its JSON form ([Object]). kubectl
// wait's --for vocabulary builds its rules, judged as kubectl judges
// them: [Condition] (condition=Ready, condition=Ready=False), [JSONPath]
// and [JSONPathExists] (jsonpath='{.status.phase}'=Running, evaluated
// with client-go's util/jsonpath), [Created] (create) and [Deleted]
// (delete, by UID: an object deleted and created again counts as
// deleted); kstatus's [Current] and [Failed] (sigs.k8s.io/cli-utils, what
// Helm 4 waits with), and [Rollout], which fails as soon as a rollout's
// pods cannot start. [ParseRule] reads kubectl's spelling. A request's
// For rules must all hold of an object at once, as kubectl's several
// --for flags. Unlike kubectl wait, a wait also takes rules that fail it
// (Request.FailOn: a Job's Condition("Failed", "True") ends the wait at
// once, where kubectl waits out its timeout), waits for objects that do
// not exist yet (by name, or a Count of objects matching a selector), and
// reports each object's outcome: which object, its decision, the rules it
// did not meet, and its condition's reason and message ([Result],
// [Error]).
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
// waits and objects need it, and stops when the last of those waits
// ends. A wait for a named object lists and watches that object alone (a
// metadata.name field selector, as kubectl asks, and as an RBAC grant of
// resourceNames allows); when a Client would watch more than 10 objects
// of one resource and namespace by name, they share one list and watch
// of the namespace, as does every named wait of a Client that watches
// the namespace already. A watch event judges at once the objects it
// concerns, in the goroutine of the wait that waits for them: there is
// no GET per object. Each object's wait is a Smithy wait of its own on
// the core's [waiter.Waiter.Begin] and [waiter.Waiter.Step], so the
// waiter's options apply as they do to any wait (WithNotFoundLimit,
// WithStability, WithRetryStrategy), and so does its estimate of the time
// left ([Event].Estimate, from the Client's History).
//
// # Watches
//
// The lists and watches are client-go's Reflector's (k8s.io/client-go/tools/cache):
// its pages, its relists after a 410 or a too new resource version, its
// watch timeouts and resumption from the last version, its bookmarks. The
// Client keeps no managedFields, and a result's object is a copy. What
// is kubewait's is what the Reflector does not do. A failure (an error,
// a watch that ends at once with no event) counts until a watch works
// (it delivers an event, or stays open as long as the first backoff,
// 1-2 s); after 3 in a row the wait polls, and it watches again when a
// watch works. Between two of the Reflector's ListAndWatch
// the informer backs off, from 1-2 s doubling to 30-60 s, jittered
// ([ClientOptions.Jitter]) on the Client's clock, and from the start once
// a watch works: a watch that always answers 410 costs a few LISTs a
// minute. A wait's events say each of these ([Event].Watch).
//
// When a wait cannot watch (list or watch is forbidden, as under RBAC
// that grants get only, or they keep failing) it polls: a GET per
// object, or a LIST for a selector, on the waiter's schedule, under the
// Client's one rate limit ([ClientOptions.PollLimit]), never sooner than
// a 429's Retry-After. An API server that cannot be reached (refused, a
// 5xx, a timeout), as while it restarts, is waited for until the wait's
// deadline: its discovery (for Objects), its lists, its polls.
//
// From a shell, `waitable kube` (github.com/waitable/waitable/cmd/waitable)
// takes kubectl wait's arguments. The module's README is the tour.
package kubewait
