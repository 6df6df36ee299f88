package main

import (
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/kubewait"
)

// printsNames reports whether the printer prints no more of an object
// than its kind and name (kubectl's line, -o name): it prints as an
// object meets a rule, where the others print the object as the rule's
// wait saw it last, when it ends.
func (p *kubeProgress) printsNames() bool {
	f := strings.ToLower(*p.o.print.OutputFormat)
	return !p.o.json && (f == "" || f == "name")
}

// printMet prints, with the -o printer (kubectl's line by default), that
// the object ref met a rule; obj is the object as last seen (nil: only
// its kind and name are known, as of an object already gone).
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

// objectMet prints the lines of the named objects that can go out now
// that ref met the rule, as kubectl's would: in the order named, each as
// soon as it and the ones before it met the rule.
func (p *kubeProgress) objectMet(ref kubewait.Ref) {
	ref.UID = ""
	if p.met == nil {
		p.met = map[kubewait.Ref]bool{}
	}
	p.met[ref] = true
	for p.printsNames() && p.printed < len(p.named) && p.met[p.named[p.printed]] {
		p.printMet(p.named[p.printed], nil)
		p.printed++
	}
}

// ruleEnded prints what is left to print when the wait for a rule
// ended: the lines of the named objects that met it behind one that did
// not, then those of a selector's objects (by namespace and name, as
// kubectl lists them); or, with a printer of whole objects (-o json,
// yaml, jsonpath, go-template), each object that met the rule, as the
// wait saw it last, in the same order.
func (p *kubeProgress) ruleEnded(outcomes []kubeOutcome) {
	p.mu.Lock()
	defer p.mu.Unlock()
	defer func() { p.met, p.printed = nil, 0 }()
	if p.o.json {
		return
	}
	for _, o := range outcomes {
		if p.printsNames() && len(o.req.Objects) > 0 {
			for _, ref := range p.named[p.printed:] {
				if p.met[ref] {
					p.printMet(ref, nil)
				}
			}
			continue
		}
		for _, obj := range o.res.Objects {
			if obj.Name != "" && obj.State == classify.Success {
				p.printMet(obj.Ref, obj.Object)
			}
		}
	}
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
