package main

import (
	"context"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
)

// ruleKinds are what --for and --fail-on complete to: the kinds of
// rule, as kubectl wait's --for writes them.
var ruleKinds = []cobra.Completion{
	cobra.CompletionWithDesc("condition=", "a status condition: condition=TYPE[=STATUS]"),
	cobra.CompletionWithDesc("jsonpath=", "a JSONPath value: jsonpath='{EXPR}'[=VALUE]"),
	cobra.CompletionWithDesc("create", "the object exists"),
	cobra.CompletionWithDesc("delete", "the object is gone"),
	cobra.CompletionWithDesc("kstatus=Current", "kstatus's verdict: reconciled"),
	cobra.CompletionWithDesc("kstatus=Failed", "kstatus's verdict: failed"),
	cobra.CompletionWithDesc("rollout", "a rollout done, failing as soon as a pod cannot start"),
}

// completeRules completes --for and --fail-on with the kinds of rule.
func completeRules(_ *cobra.Command, _ []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
	return ruleKinds, cobra.ShellCompDirectiveNoSpace | cobra.ShellCompDirectiveNoFileComp
}

// completeObjects completes waitable kube's arguments as kubectl
// completes kubectl wait's: TYPE from the server's discovery (its
// preferred versions, named as kubectl api-resources -o name names them:
// widgets.waitable.test, pods), then TYPE/NAME or, after TYPE, NAME, from
// a list of the type's objects in the namespace of the flags (or every
// namespace with -A). A server that cannot be reached completes nothing.
func (o *kubeOptions) completeObjects(connect kubeConnect) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		none := cobra.ShellCompDirectiveNoFileComp
		if t := o.config.Timeout; t != nil && (*t == "" || *t == "0") {
			*t = "5s" // as kubectl's completion asks: a server that hangs completes nothing
		}
		cluster, err := connect(o.config, io.Discard)
		if err != nil {
			return nil, none
		}
		typ, _, named := strings.Cut(toComplete, "/")
		switch {
		case named:
			var out []cobra.Completion
			for _, n := range o.names(cmd.Context(), cluster, typ) {
				out = append(out, typ+"/"+n)
			}
			return out, none
		case len(args) == 0:
			return resourceTypes(cluster), none
		case !strings.Contains(args[0], "/"):
			return slices.DeleteFunc(o.names(cmd.Context(), cluster, args[0]), func(n string) bool { return slices.Contains(args[1:], n) }), none
		}
		return nil, none
	}
}

// resourceTypes are the server's resource types that can be listed, in
// their preferred versions.
func resourceTypes(cluster kubeCluster) []cobra.Completion {
	disc, err := cluster.getter.ToDiscoveryClient()
	if err != nil {
		return nil
	}
	lists, _ := discovery.ServerPreferredResources(disc) // a partial answer completes what it has
	var out []cobra.Completion
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			continue
		}
		for _, r := range l.APIResources {
			if strings.Contains(r.Name, "/") || !slices.Contains(r.Verbs, "list") {
				continue // a subresource, or one that cannot be listed
			}
			out = append(out, schema.GroupResource{Group: gv.Group, Resource: r.Name}.String())
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// names are the names of the objects of type typ (as kubectl takes a
// TYPE: a short name, a kind, a resource, a category), from a list of
// each of its resources.
func (o *kubeOptions) names(ctx context.Context, cluster kubeCluster, typ string) []cobra.Completion {
	mappings, err := o.selectorMappings(cluster, []string{typ})
	if err != nil {
		return nil
	}
	var out []cobra.Completion
	for _, m := range mappings {
		ns := cluster.namespace
		if *o.objects.AllNamespaces || m.Scope.Name() == meta.RESTScopeNameRoot {
			ns = ""
		}
		list, err := cluster.dyn.Resource(m.Resource).Namespace(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			continue
		}
		for _, it := range list.Items {
			out = append(out, it.GetName())
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
