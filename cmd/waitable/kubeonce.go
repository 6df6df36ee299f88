package main

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/waitable/waitable/kubewait"
)

// checkOnce is --timeout=0, as kubectl's: each object is read once (a GET
// per named object, a LIST per selector's resource and namespace) and
// judged, object by object, by each --for in order, its line printed as
// it meets one. An object that meets a --fail-on rule is a failure (1);
// one that does not meet a --for, a timeout (2: the time given ran out;
// kubectl exits 1), in kubectl's words.
func (p *kubeProgress) checkOnce(ctx context.Context, w kubeWaits, cluster kubeCluster) (int, error) {
	type seen struct {
		ref kubewait.Ref
		obj map[string]any // nil: the object does not exist
	}
	var objs []seen
	fail := func(err error) (int, error) {
		if f := serverFault(cluster.server, err); f != nil {
			return f.(serverError).code, f
		}
		return exitFailure, err
	}
	for _, ref := range w.named {
		u, err := cluster.dyn.Resource(ref.Resource).Namespace(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			objs = append(objs, seen{ref: ref})
		case err != nil:
			return fail(err)
		default:
			objs = append(objs, seen{ref: ref, obj: u.Object})
		}
	}
	for _, r := range w.reqs {
		if len(r.Objects) > 0 {
			continue
		}
		list, err := cluster.dyn.Resource(r.Resource).Namespace(r.Namespace).List(ctx,
			metav1.ListOptions{LabelSelector: r.Selector, FieldSelector: r.FieldSelector})
		if err != nil {
			return fail(err)
		}
		for _, it := range list.Items {
			objs = append(objs, seen{ref: kubewait.Ref{Resource: r.Resource, Namespace: it.GetNamespace(), Name: it.GetName()}, obj: it.Object})
		}
	}
	if len(objs) == 0 {
		if len(p.o.forRules) == 1 && p.o.forRules[0].String() == "delete" {
			return exitSuccess, nil
		}
		return exitFailure, errors.New("no matching resources found")
	}
	for _, o := range objs {
		for _, r := range p.o.failOn {
			if r.Matches(o.obj) {
				return exitFailure, fmt.Errorf("%s/%s met --fail-on=%s", o.ref.Resource.Resource, o.ref.Name, r)
			}
		}
		for _, r := range p.o.forRules {
			if !r.Matches(o.obj) {
				return exitTimeout, fmt.Errorf("condition not met for %s/%s", o.ref.Resource.Resource, o.ref.Name)
			}
			p.printMet(o.ref, o.obj)
		}
	}
	return exitSuccess, nil
}
