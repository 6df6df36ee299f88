package apiserver_test

import (
	"context"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/waitable/waitable/kubewait/servertest/internal/apiserver"
)

// dynamicClient returns a dynamic client of config, failing t if there is
// none.
func dynamicClient(t *testing.T, config *rest.Config) *dynamic.DynamicClient {
	t.Helper()
	client, err := dynamic.NewForConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	return client
}

// TestStart checks that the custom resources are served through the
// proxy, and named in discovery with their scope and short names.
func TestStart(t *testing.T) {
	t.Parallel()
	start := time.Now()
	s := apiserver.Start(t, apiserver.Options{})
	t.Logf("Start took %v", time.Since(start))
	client := dynamicClient(t, s.Config)
	if _, err := client.Resource(apiserver.WidgetResource).Namespace("default").List(context.Background(), metav1.ListOptions{}); err != nil {
		t.Errorf("List(widgets) = %v, want nil", err)
	}
	if _, err := client.Resource(apiserver.GadgetResource).List(context.Background(), metav1.ListOptions{}); err != nil {
		t.Errorf("List(gadgets) = %v, want nil", err)
	}

	disco, err := discovery.NewDiscoveryClientForConfig(s.Config)
	if err != nil {
		t.Fatal(err)
	}
	list, err := disco.ServerResourcesForGroupVersion("waitable.test/v1")
	if err != nil {
		t.Fatalf("ServerResourcesForGroupVersion(waitable.test/v1) = %v", err)
	}
	want := map[string]struct {
		namespaced bool
		short      string
	}{"widgets": {true, "wd"}, "gadgets": {false, "gd"}}
	for _, r := range list.APIResources {
		w, ok := want[r.Name]
		if !ok {
			continue
		}
		delete(want, r.Name)
		if r.Namespaced != w.namespaced || len(r.ShortNames) != 1 || r.ShortNames[0] != w.short {
			t.Errorf("%s: namespaced %v, short names %v, want %v, [%s]", r.Name, r.Namespaced, r.ShortNames, w.namespaced, w.short)
		}
	}
	if len(want) > 0 {
		t.Errorf("discovery lacks %v", want)
	}
}

// TestDefinitions checks that the definitions that Start writes into etcd
// are ones the API server accepts: established, with a structural schema,
// and valid when created through the API (under another group).
func TestDefinitions(t *testing.T) {
	t.Parallel()
	s := apiserver.Start(t, apiserver.Options{})
	client, err := clientset.NewForConfig(s.Direct)
	if err != nil {
		t.Fatal(err)
	}
	crds := client.ApiextensionsV1().CustomResourceDefinitions()
	ctx := context.Background()
	for _, r := range []schema.GroupVersionResource{apiserver.WidgetResource, apiserver.GadgetResource} {
		crd, err := crds.Get(ctx, r.GroupResource().String(), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		conditions := map[apiextensionsv1.CustomResourceDefinitionConditionType]apiextensionsv1.ConditionStatus{}
		for _, c := range crd.Status.Conditions {
			conditions[c.Type] = c.Status
		}
		if conditions[apiextensionsv1.Established] != apiextensionsv1.ConditionTrue ||
			conditions[apiextensionsv1.NamesAccepted] != apiextensionsv1.ConditionTrue ||
			conditions[apiextensionsv1.NonStructuralSchema] == apiextensionsv1.ConditionTrue {
			t.Errorf("%s has conditions %v, want Established and NamesAccepted, and a structural schema", crd.Name, conditions)
		}

		copied := &apiextensionsv1.CustomResourceDefinition{Spec: *crd.Spec.DeepCopy()}
		copied.Spec.Group = "copy.waitable.test"
		copied.Name = r.Resource + "." + copied.Spec.Group
		if _, err := crds.Create(ctx, copied, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
			t.Errorf("Create(%s) through the API = %v, want nil", copied.Name, err)
		}
	}
}
