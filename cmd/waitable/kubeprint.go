package main

import (
	"cmp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/waitable/waitable/kubewait"
	"github.com/waitable/waitable/telemetry"
)

// printMet prints, with the -o printer (kubectl's line by default), that
// the object ref met a rule; obj is the object as it met it (nil: only
// its kind and name are known, as of an object gone).
func (p *kubeProgress) printMet(ref kubewait.Ref, obj map[string]any) {
	if obj == nil {
		gvk := p.kinds[ref.Resource]
		obj = map[string]any{"apiVersion": gvk.GroupVersion().String(), "kind": gvk.Kind,
			"metadata": map[string]any{"name": ref.Name}}
		if ref.Namespace != "" {
			obj["metadata"].(map[string]any)["namespace"] = ref.Namespace
		}
	}
	p.o.printer.PrintObj(&unstructured.Unstructured{Object: obj}, p.out) //nolint:errcheck // standard output: nothing to do about an error
}

// lineQueue holds back, for the rule waited for now, the line of an
// object that met it behind an object before it in kubectl's order
// whose wait goes on. kubectl waits for its objects one after another:
// the named ones in the order named, a selector's in the order its LIST
// gave them (by namespace and name); each line goes out as soon as its
// object and every one before it are done.
type lineQueue struct {
	refs  []kubewait.Ref               // kubectl's order
	known map[kubewait.Ref]bool        // in refs
	ended map[kubewait.Ref]endedObject // the objects whose wait ended
	next  int                          // refs[:next] are done
}

// endedObject is how an object's wait for the rule ended: met, as the
// object was then, or not (no line).
type endedObject struct {
	met bool
	obj map[string]any
}

// newLineQueue is the line of the named objects refs, in their order.
func newLineQueue(refs []kubewait.Ref) *lineQueue {
	q := &lineQueue{known: map[kubewait.Ref]bool{}, ended: map[kubewait.Ref]endedObject{}}
	for _, ref := range refs {
		q.known[ref] = true
	}
	q.refs = refs
	return q
}

// add puts a selector's object, seen for the first time, in its place
// by namespace and name, but not before a line already out.
func (q *lineQueue) add(ref kubewait.Ref) {
	if q.known[ref] {
		return
	}
	q.known[ref] = true
	i, _ := slices.BinarySearchFunc(q.refs[q.next:], ref, func(a, b kubewait.Ref) int {
		return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
	})
	q.refs = slices.Insert(q.refs, q.next+i, ref)
}

// track notes what an event of r's wait says of its object: the
// object's place in line (a selector's, seen for the first time), and,
// when its wait ended, its line; then it prints the lines that can go
// out now.
func (p *kubeProgress) track(r *kubewait.Request, e kubewait.Event) {
	ref := e.Ref
	ref.UID = ""
	if p.lines == nil {
		p.lines = map[*kubewait.Request]*lineQueue{}
	}
	var q *lineQueue
	if len(r.Objects) > 0 { // the named objects: one line for all requests
		if p.lines[nil] == nil {
			p.lines[nil] = newLineQueue(p.named)
		}
		q = p.lines[nil]
	} else {
		if p.lines[r] == nil {
			p.lines[r] = newLineQueue(nil)
		}
		q = p.lines[r]
		q.add(ref)
	}
	if e.End == "" {
		return
	}
	q.ended[ref] = endedObject{met: e.End == telemetry.OutcomeSuccess, obj: e.Object}
	for ; q.next < len(q.refs); q.next++ {
		o, ok := q.ended[q.refs[q.next]]
		if !ok {
			break
		}
		if o.met {
			p.printMet(q.refs[q.next], o.obj)
		}
	}
}

// ruleEnded prints, when the wait for a rule ended, the lines held back
// behind an object that did not meet it: the named objects', then each
// selector's, of reqs (the rule's requests, in order).
func (p *kubeProgress) ruleEnded(reqs []*kubewait.Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, r := range append([]*kubewait.Request{nil}, reqs...) {
		q := p.lines[r]
		if q == nil {
			continue
		}
		for _, ref := range q.refs[q.next:] {
			if o := q.ended[ref]; o.met {
				p.printMet(ref, o.obj)
			}
		}
	}
	clear(p.lines)
}

// kindName is how kubectl names an object's type in its lines: the kind
// in lower case, then the group (widget.waitable.test, pod).
func kindName(gvk schema.GroupVersionKind) string {
	return schema.GroupKind{Group: gvk.Group, Kind: strings.ToLower(gvk.Kind)}.String()
}

// kind is kubectl's name of the kind of the resource gvr.
func (p *kubeProgress) kind(gvr schema.GroupVersionResource) string {
	if gvk, ok := p.kinds[gvr]; ok {
		return kindName(gvk)
	}
	return resourceName(gvr) // not resolved by the command: none is
}

// resourceName is the resource as kubectl's TYPE takes it: plural, then
// the group (widgets.waitable.test, pods).
func resourceName(gvr schema.GroupVersionResource) string { return gvr.GroupResource().String() }

// object names an object as kubectl does (widget.waitable.test/a), with
// its namespace when the wait spans every namespace; the Count's entry
// (no name) is named as r's selection.
func (p *kubeProgress) object(r *kubewait.Request, ref kubewait.Ref) string {
	if ref.Name == "" {
		return p.selection(r)
	}
	s := p.kind(ref.Resource) + "/" + ref.Name
	if *p.o.objects.AllNamespaces && ref.Namespace != "" {
		s += " -n " + ref.Namespace
	}
	return s
}

// selection names the objects of a selector's request as a command line
// would: widget.waitable.test -n ns -l app=web.
func (p *kubeProgress) selection(r *kubewait.Request) string {
	return p.watched(r, kubewait.Ref{Resource: r.Resource, Namespace: r.Namespace})
}

// watched names what a watch of r's wait watches (ref: the watch's
// resource, namespace, and name for the watch of one object):
// widget.waitable.test/a -n ns, widget.waitable.test -A -l app=web.
func (p *kubeProgress) watched(r *kubewait.Request, ref kubewait.Ref) string {
	s := p.kind(ref.Resource)
	if ref.Name != "" {
		s += "/" + ref.Name
	}
	switch {
	case ref.Namespace != "":
		s += " -n " + ref.Namespace
	case *p.o.objects.AllNamespaces:
		s += " -A"
	}
	if r.Selector != "" {
		s += " -l " + r.Selector
	}
	if r.FieldSelector != "" {
		s += " --field-selector " + r.FieldSelector
	}
	if r.All {
		s += " --all"
	}
	return s
}
