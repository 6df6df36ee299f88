// Package kubewait waits for Kubernetes objects the way a Smithy waiter
// waits for a cloud resource: until each object meets a rule, or provably
// never will, within one budget for all of them.
//
// An object is the waiter's output in its JSON form ([Object]), judged by
// Smithy acceptors in JMESPath. kubectl wait's --for vocabulary builds
// them: [JSONPath] and [JSONPathExists] (jsonpath='{.status.phase}'=Running,
// with kubectl's JSONPath translated to JMESPath), [Created] (create) and
// [Deleted] (delete, by UID: an object deleted and created again counts as
// deleted). [Condition] (condition=Ready, condition=Ready=False) is
// kubectl's own rule, and kstatus's [Current] and [Failed]
// (sigs.k8s.io/cli-utils, what Helm 4 waits with) kstatus's: Go matchers,
// which JMESPath cannot express. [ParseRule] reads kubectl's spelling. Unlike kubectl wait, a
// wait also takes rules that fail it (Request.FailOn: a Job's
// Condition("Failed", "True") ends the wait at once, where kubectl waits
// out its timeout), waits for objects that do not exist yet (by name, or a
// Count of objects matching a selector), and reports each object's
// outcome: which object, in what state, and its condition's reason and
// message ([Result], [Error]).
//
//	c, err := kubewait.NewForConfig(cfg, kubewait.ClientOptions{})
//	res, err := c.Wait(ctx, kubewait.Request{
//		Resource:  schema.GroupVersionResource{Group: "batch", Version: "v1", Resource: "jobs"},
//		Namespace: "default",
//		Selector:  "app=migrate",
//		For:       kubewait.Condition("Complete", "True"),
//		FailOn:    []kubewait.Rule{kubewait.Condition("Failed", "True")},
//		Timeout:   10 * time.Minute,
//	})
//
// # One watch for many waits
//
// A [Client] lists and watches each resource, namespace and selector once
// (an informer), however many waits and objects need it, and stops when
// the last of those waits ends. A watch event judges at once the objects
// it concerns, in the goroutine of the wait that waits for them: there is
// no GET per object, and no poll interval between a status write and the
// wait's answer. Each object's wait is a Smithy wait of its own on the
// core's [waiter.Waiter.Begin] and [waiter.Waiter.Step], so the waiter's
// options apply as they do to any wait (WithNotFoundLimit, WithStability,
// WithRetryStrategy). A watch whose resource version expired (410 Gone)
// lists again; one that breaks (an API server restart) starts again where
// it left off; a wait's events say so ([Event.Watch]).
//
// When a wait cannot watch (list or watch is forbidden, as under RBAC
// that grants get only, or the watch fails 3 times in a row) it polls: a
// GET per object, or a LIST for a selector, on the waiter's schedule,
// under the Client's one rate limit ([ClientOptions.PollLimit]), never
// sooner than a 429's Retry-After. It watches again when the watch works.
//
// From a shell, `waitable kube` (github.com/waitable/waitable/cmd/waitable)
// takes kubectl wait's arguments.
package kubewait
