package main

import (
	"errors"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/resource"

	"github.com/waitable/waitable/kubewait"
	"github.com/waitable/waitable/telemetry"
	"github.com/waitable/waitable/waiter"
)

// kubeWaits are the command's waits (each without its rules), and the
// kind of each of their resources, for the command's lines.
type kubeWaits struct {
	reqs  []*kubewait.Request
	kinds map[schema.GroupVersionResource]schema.GroupVersionKind
	// named are the named objects, in the order of the command line or
	// the manifest, each once (widget/a wd/a is one object).
	named []kubewait.Ref
}

// resolve names the objects as kubectl does, through cli-runtime's
// resource builder: TYPE/NAME and TYPE NAME arguments, -f and -k
// manifests, or the types of a selector or --all (categories such as
// all, short names). It fetches no object: the builder is asked for the
// objects' mappings and names only (RequireObject(false), no Latest),
// and a selector's types are resolved without their LIST, which the
// waits make. The named objects are one request; a selector's or
// --all's, one per resource and namespace. Bad input (a type the server
// does not have, a manifest that cannot be read) is a usageError;
// discovery that fails is returned as it is.
func (o *kubeOptions) resolve(cluster kubeCluster, args []string) (kubeWaits, error) {
	w := kubeWaits{kinds: map[schema.GroupVersionResource]schema.GroupVersionKind{}}
	allNamespaces := *o.objects.AllNamespaces
	files := o.objects.FileNameFlags.ToOptions()
	if files.Kustomize != "" && !o.recursiveSet {
		files.Recursive = false // -k takes no -R
	}
	builder := func() *resource.Builder {
		return resource.NewBuilder(cluster.getter).Unstructured().ContinueOnError().RequireObject(false).
			NamespaceParam(cluster.namespace).DefaultNamespace().AllNamespaces(allNamespaces)
	}
	request := func(ns string) *kubewait.Request {
		opts := []waiter.Option{waiter.WithTelemetry(telemetry.Settings{Off: true}), waiter.WithHistory(nil)}
		if o.store != nil {
			opts[1] = waiter.WithHistory(o.store)
		}
		return &kubewait.Request{Namespace: ns, Options: opts}
	}
	if len(files.Filenames) == 0 && files.Kustomize == "" && o.bySelector() {
		mappings, err := o.selectorMappings(cluster, args)
		if err != nil {
			return w, err
		}
		if o.count > 0 && len(mappings) > 1 {
			return w, usagef("--count takes one TYPE, not %d", len(mappings))
		}
		for _, m := range mappings {
			w.kinds[m.Resource] = m.GroupVersionKind
			ns := cluster.namespace
			if allNamespaces || m.Scope.Name() == meta.RESTScopeNameRoot {
				ns = ""
			}
			r := request(ns)
			r.Resource, r.Selector, r.FieldSelector, r.All, r.Count = m.Resource, *o.objects.LabelSelector,
				*o.objects.FieldSelector, *o.objects.All, o.count
			w.reqs = append(w.reqs, r)
		}
		return w, nil
	}
	b := builder().ResourceTypeOrNameArgs(false, args...)
	if len(files.Filenames) > 0 || files.Kustomize != "" {
		// - is the command's standard input (the builder's own is the
		// process's), read once.
		stdin := slices.Contains(files.Filenames, "-")
		files.Filenames = slices.DeleteFunc(slices.Clone(files.Filenames), func(f string) bool { return f == "-" })
		if stdin {
			b = b.Stream(o.stdin, "STDIN")
		}
		b = b.FilenameParam(cluster.enforced, &files).LabelSelectorParam(*o.objects.LabelSelector).Flatten()
	}
	var named *kubewait.Request
	err := b.Do().Visit(func(info *resource.Info, err error) error {
		if err != nil {
			return err
		}
		m := info.Mapping
		if info.Name == "" {
			return usagef("%s: %s with no metadata.name: waitable waits for objects by kind and name", info.Source, m.GroupVersionKind.GroupKind())
		}
		w.kinds[m.Resource] = m.GroupVersionKind
		ref := kubewait.Ref{Resource: m.Resource, Kind: m.GroupVersionKind, Namespace: info.Namespace, Name: info.Name}
		if slices.Contains(w.named, ref) {
			return nil // one object named twice (widget/a wd/a)
		}
		w.named = append(w.named, ref)
		if named == nil {
			named = request(cluster.namespace)
			w.reqs = append(w.reqs, named)
		}
		named.Objects = append(named.Objects, ref)
		return nil
	})
	if err != nil {
		return w, builderError(cluster, err)
	}
	if len(w.reqs) == 0 {
		return w, usagef("no objects: %s", strings.Join(append(args, files.Filenames...), " "))
	}
	return w, nil
}

// selectorMappings resolves the types of a selector or --all as the
// builder does (categories, short names, TYPE,TYPE), without listing
// their objects: each type is resolved as the type of an object named
// "-", which the builder maps and does not fetch.
func (o *kubeOptions) selectorMappings(cluster kubeCluster, args []string) ([]*meta.RESTMapping, error) {
	switch {
	case len(args) == 0:
		return nil, usagef("at least one resource must be specified to use a selector")
	case len(args) > 1:
		return nil, usagef("name cannot be provided when a selector is specified")
	case strings.Contains(args[0], "/"):
		return nil, usagef("selectors and the all flag cannot be used when passing resource/name arguments")
	}
	b := resource.NewBuilder(cluster.getter).Unstructured().RequireObject(false).NamespaceParam("default")
	var tuples []string
	for _, typ := range resource.SplitResourceArgument(b.ReplaceAliases(args[0])) {
		tuples = append(tuples, typ+"/-")
	}
	var mappings []*meta.RESTMapping
	err := b.ResourceTypeOrNameArgs(false, tuples...).Do().Visit(func(info *resource.Info, err error) error {
		if err != nil {
			return err
		}
		if !slices.ContainsFunc(mappings, func(m *meta.RESTMapping) bool { return m.Resource == info.Mapping.Resource }) {
			mappings = append(mappings, info.Mapping)
		}
		return nil
	})
	if err != nil {
		return nil, builderError(cluster, err)
	}
	return mappings, nil
}

// builderError is an error of the resource builder as the command
// reports it: the API server's trouble, if one of its answers since the
// resolution began was one (the command's status says it: a type that
// discovery did not find, because it failed, is no bad input), anything
// else bad input.
func builderError(cluster kubeCluster, err error) error {
	if f := cluster.answers.since(); f != nil {
		return f // the server's (a URL of -f is not the server's)
	}
	var ue usageError
	if errors.As(err, &ue) {
		return err
	}
	return usageError{err}
}
