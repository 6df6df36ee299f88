package main

import (
	"context"
	"fmt"
	"io"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"

	"github.com/waitable/waitable/kubewait"
)

// kubeCluster is what waitable kube uses of a cluster: a kubewait Client
// for the objects, a REST mapper over the server's discovery for the
// types (the Client's too), and the namespace of the kubeconfig's context.
type kubeCluster struct {
	client    *kubewait.Client
	mapper    kubeTypes
	namespace string
	server    string // the API server's URL, for the command's errors
	answers   *lastAnswer
}

// kubeTypes maps kubectl's names of types to resources, with or without a
// context: the command resolves with one, and gives the mapper to its
// kubewait Client (ClientOptions.Mapper), which resolves with one too.
type kubeTypes interface {
	meta.RESTMapper
	meta.RESTMapperWithContext
}

// kubeConnect opens the cluster of a kubeconfig (path "": KUBECONFIG or
// ~/.kube/config), in one of its contexts ("": the current one), with
// namespace ("": the context's) as the default namespace. The command
// connects with kubeconfigCluster; tests connect to fakes.
type kubeConnect func(kubeconfig, kubeContext, namespace string, warnings io.Writer) (kubeCluster, error)

// kubeconfigCluster opens the cluster of a kubeconfig (loadKubeconfig)
// and discovers its types through a cache in memory. Nothing here calls
// the server yet. The client is kubewait's own (kubewait.NewForConfig):
// no client-go retries and no client-side rate limit under the waits'
// schedule, where the waits' own retries, rate limit and Retry-After
// apply; discovery, which reads many groups at once, keeps kubectl's
// burst.
func kubeconfigCluster(kubeconfig, kubeContext, namespace string, warnings io.Writer) (kubeCluster, error) {
	cfg, ns, err := loadKubeconfig(kubeconfig, kubeContext, namespace)
	if err != nil {
		return kubeCluster{}, err
	}
	// client-go logs the errors it hands back (klog, which writes errors
	// to standard error whatever its output: discovery's "couldn't get
	// current server API group list", three times): the command reports
	// them once, in its own words. The API server's warnings (a
	// deprecated version) are printed as kubectl prints them.
	klog.SetLogger(logr.Discard())
	answers := &lastAnswer{server: cfg.Host}
	cfg.Wrap(answers.wrap)
	cfg.WarningHandler = rest.NewWarningWriter(warnings, rest.WarningWriterOptions{Deduplicate: true})
	dcfg := rest.CopyConfig(cfg)
	dcfg.QPS, dcfg.Burst = 50, 300
	disc, err := discovery.NewDiscoveryClientForConfig(dcfg)
	if err != nil {
		return kubeCluster{}, usageError{fmt.Errorf("kubeconfig: %w", err)}
	}
	mapper := kubeMapper(disc, warnings)
	client, err := kubewait.NewForConfig(cfg, kubewait.ClientOptions{Mapper: mapper})
	if err != nil {
		return kubeCluster{}, usageError{fmt.Errorf("kubeconfig: %w", err)}
	}
	return kubeCluster{client: client, mapper: mapper, namespace: ns, server: cfg.Host, answers: answers}, nil
}

// loadKubeconfig reads the kubeconfig as kubectl does (clientcmd's
// loading rules: the file given, else $KUBECONFIG's files merged, else
// ~/.kube/config, else the in-cluster configuration of a pod), in the
// context given or the current one, and returns the server's
// configuration and the default namespace: namespace if given, else the
// context's, else "default". A kubeconfig that cannot be read or names
// no usable context is bad input (a usageError).
func loadKubeconfig(kubeconfig, kubeContext, namespace string) (*rest.Config, string, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = kubeconfig
	overrides := &clientcmd.ConfigOverrides{CurrentContext: kubeContext}
	overrides.Context.Namespace = namespace
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides)
	cfg, err := cc.ClientConfig()
	if err != nil {
		return nil, "", usageError{fmt.Errorf("kubeconfig: %w", err)}
	}
	ns, _, err := cc.Namespace()
	if err != nil {
		return nil, "", usageError{fmt.Errorf("kubeconfig: %w", err)}
	}
	cfg.UserAgent = "waitable"
	return cfg, ns, nil
}

// kubeMapper maps kubectl's names of types (widget, widgets, wd,
// widget.waitable.test, widgets.v1.waitable.test, Widget) to resources
// as kubectl does: a REST mapper over discovery, cached in memory and
// read again once when a name is not found, with the short names
// discovery lists.
func kubeMapper(disc discovery.DiscoveryInterface, warnings io.Writer) kubeTypes {
	cached := memory.NewMemCacheClientWithContext(discovery.ToDiscoveryInterfaceWithContext(disc))
	mapper := restmapper.NewDeferredDiscoveryRESTMapperWithContext(cached)
	// client-go's shortcut expander has both sets of methods.
	return restmapper.NewShortcutExpanderWithContext(mapper, cached, func(w string) {
		fmt.Fprintf(warnings, "waitable kube: warning: %s\n", w)
	}).(kubeTypes)
}

// mappingFor resolves a type as kubectl's resource builder does: as a
// resource (plural, singular or short name, with a group, or a version
// and a group), else as a kind. A type the server does not have is bad
// input, in kubectl's words; a discovery that fails is not.
func mappingFor(ctx context.Context, mapper meta.RESTMapperWithContext, arg string) (*meta.RESTMapping, error) {
	full, gr := schema.ParseResourceArg(arg)
	var gvk schema.GroupVersionKind
	if full != nil {
		gvk, _ = mapper.KindForWithContext(ctx, *full)
	}
	if gvk.Empty() {
		gvk, _ = mapper.KindForWithContext(ctx, gr.WithVersion(""))
	}
	if !gvk.Empty() {
		return mapper.RESTMappingWithContext(ctx, gvk.GroupKind(), gvk.Version)
	}
	fullKind, gk := schema.ParseKindArg(arg)
	if fullKind != nil {
		if m, err := mapper.RESTMappingWithContext(ctx, fullKind.GroupKind(), fullKind.Version); err == nil {
			return m, nil
		}
	}
	m, err := mapper.RESTMappingWithContext(ctx, gk)
	switch {
	case meta.IsNoMatchError(err):
		return nil, usagef("the server doesn't have a resource type %q", gr.Resource)
	case err != nil:
		return nil, fmt.Errorf("discovering the server's types: %w", err)
	}
	return m, nil
}
