package apiserver_test

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
