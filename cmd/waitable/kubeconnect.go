package main

import (
	"fmt"
	"io"

	"github.com/go-logr/logr"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/waitable/waitable/kubewait"
)

// kubeCluster is what waitable kube uses of a cluster: cli-runtime's
// getter (its kubeconfig, discovery and REST mapper, which the resource
// builder reads), a kubewait Client for the waits, a dynamic client for
// --timeout=0's one look, and the namespace of the flags or the context.
type kubeCluster struct {
	getter genericclioptions.RESTClientGetter
	client *kubewait.Client
	dyn    dynamic.Interface
	// namespace is -n's, else the context's, else default; enforced is
	// whether -n gave it (a manifest's objects must then be in it).
	namespace string
	enforced  bool
	server    string      // the API server's URL, for the command's errors
	answers   *lastAnswer // its last answer; nil if not known
}

// kubeConnect opens the cluster that kubectl's global flags name (a
// kubeconfig, its context, --server, --token, ...). The command connects
// with kubeconfigCluster; tests connect to fakes.
type kubeConnect func(flags *genericclioptions.ConfigFlags, warnings io.Writer) (kubeCluster, error)

// kubeconfigCluster opens the cluster of the flags as kubectl does
// (cli-runtime's ConfigFlags: clientcmd's loading rules, the discovery
// cache kubectl shares). Nothing here calls the server yet. The waits'
// client is kubewait's own (kubewait.NewForConfig): no client-go retries
// and no client-side rate limit under the waits' schedule; discovery
// keeps kubectl's burst. A kubeconfig that cannot be read is bad usage.
func kubeconfigCluster(flags *genericclioptions.ConfigFlags, warnings io.Writer) (kubeCluster, error) {
	// client-go logs the errors it hands back (klog, which writes errors
	// to standard error whatever its output: discovery's "couldn't get
	// current server API group list", three times): the command reports
	// them once, in its own words.
	klog.SetLogger(logr.Discard())
	answers := &lastAnswer{}
	flags.WithWrapConfigFn(func(c *rest.Config) *rest.Config {
		c.UserAgent = "waitable"
		// The API server's warnings (a deprecated version) are printed
		// as kubectl prints them.
		c.WarningHandler = rest.NewWarningWriter(warnings, rest.WarningWriterOptions{Deduplicate: true})
		c.Wrap(answers.wrap)
		return c
	})
	cfg, err := flags.ToRESTConfig()
	if err != nil {
		return kubeCluster{}, usageError{fmt.Errorf("kubeconfig: %w", err)}
	}
	answers.server = cfg.Host
	ns, enforced, err := flags.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return kubeCluster{}, usageError{fmt.Errorf("kubeconfig: %w", err)}
	}
	mapper, err := flags.ToRESTMapper()
	if err != nil {
		return kubeCluster{}, usageError{fmt.Errorf("kubeconfig: %w", err)}
	}
	client, err := kubewait.NewForConfig(cfg, kubewait.ClientOptions{Mapper: mapper})
	if err != nil {
		return kubeCluster{}, usageError{fmt.Errorf("kubeconfig: %w", err)}
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return kubeCluster{}, usageError{fmt.Errorf("kubeconfig: %w", err)}
	}
	return kubeCluster{getter: flags, client: client, dyn: dyn, namespace: ns, enforced: enforced,
		server: cfg.Host, answers: answers}, nil
}
