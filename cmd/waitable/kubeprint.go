package main

import (
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/waitable/waitable/kubewait"
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

// objectMet prints the lines that can go out now that the object ref of
// r's wait met the rule, obj as it met it, as kubectl's would: a
// selector's object at once; the named objects in the order named, each
// as soon as it and the ones before it met the rule (kubectl waits for
// them one after another).
func (p *kubeProgress) objectMet(r *kubewait.Request, ref kubewait.Ref, obj map[string]any) {
	if len(r.Objects) == 0 {
		p.printMet(ref, obj)
		return
	}
	ref.UID = ""
	if p.met == nil {
		p.met = map[kubewait.Ref]map[string]any{}
	}
	p.met[ref] = obj
	for p.printed < len(p.named) {
		obj, ok := p.met[p.named[p.printed]]
		if !ok {
			break
		}
		p.printMet(p.named[p.printed], obj)
		p.printed++
	}
}

// ruleEnded prints, when the wait for a rule ended, the lines of the
// named objects that met it behind one that did not.
func (p *kubeProgress) ruleEnded() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, ref := range p.named[p.printed:] {
		if obj, ok := p.met[ref]; ok {
			p.printMet(ref, obj)
		}
	}
	p.met, p.printed = nil, 0
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
