package apiserver

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
)

// WidgetResource is the namespaced test custom resource: kind Widget in
// group waitable.test, version v1, short name wd, in the category all
// (kubectl get all, kubectl wait all -l ...), with a status
// subresource. Its spec and status hold any fields; status.conditions is
// a list of {type, status, reason, message, lastTransitionTime} keyed by
// type, as Kubernetes' own conditions are.
var WidgetResource = schema.GroupVersionResource{Group: "waitable.test", Version: "v1", Resource: "widgets"}

// GadgetResource is the cluster-scoped test custom resource: kind Gadget,
// short name gd, otherwise as [WidgetResource].
var GadgetResource = schema.GroupVersionResource{Group: "waitable.test", Version: "v1", Resource: "gadgets"}

// crd returns the definition of resource with kind, short name and scope.
func crd(resource schema.GroupVersionResource, kind, short string, scope apiextensionsv1.ResourceScope) *apiextensionsv1.CustomResourceDefinition {
	preserve := true
	str := apiextensionsv1.JSONSchemaProps{Type: "string"}
	condition := apiextensionsv1.JSONSchemaProps{
		Type:     "object",
		Required: []string{"type", "status"},
		Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"type": str, "status": str, "reason": str, "message": str,
			"lastTransitionTime": {Type: "string", Format: "date-time"},
		},
	}
	mapList := "map"
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: resource.Resource + "." + resource.Group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: resource.Group,
			Names: apiextensionsv1.CustomResourceDefinitionNames{
				Plural:     resource.Resource,
				Singular:   strings.ToLower(kind),
				Kind:       kind,
				ListKind:   kind + "List",
				ShortNames: []string{short},
			},
			Scope: scope,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name:         resource.Version,
				Served:       true,
				Storage:      true,
				Subresources: &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}},
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec": {Type: "object", XPreserveUnknownFields: &preserve},
						"status": {Type: "object", XPreserveUnknownFields: &preserve,
							Properties: map[string]apiextensionsv1.JSONSchemaProps{
								"conditions": {
									Type:         "array",
									XListType:    &mapList,
									XListMapKeys: []string{"type"},
									Items:        &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &condition},
								},
							}},
					},
				}},
			}},
		},
	}
}

// crdPrefix is where the API server keeps the definitions in etcd.
const crdPrefix = etcdPrefix + "/apiextensions.k8s.io/customresourcedefinitions/"

// seedCRDs writes the definitions of WidgetResource and GadgetResource into
// etcd as an API server that established them an hour ago would have,
// before the API server starts. The API server makes every create of a
// custom resource sleep for 2 s while its definition was established less
// than 2 s ago (for highly available servers that may not have seen it
// yet); created through the API, the first widget of every test would.
func seedCRDs(ctx context.Context, kv clientv3.KV) error {
	established := metav1.NewTime(time.Now().Add(-time.Hour))
	for _, c := range []*apiextensionsv1.CustomResourceDefinition{
		crd(WidgetResource, "Widget", "wd", apiextensionsv1.NamespaceScoped),
		crd(GadgetResource, "Gadget", "gd", apiextensionsv1.ClusterScoped),
	} {
		if c.Spec.Names.Kind == "Widget" {
			c.Spec.Names.Categories = []string{"all"}
		}
		c.APIVersion, c.Kind = apiextensionsv1.SchemeGroupVersion.String(), "CustomResourceDefinition"
		c.UID, c.CreationTimestamp, c.Generation = uuid.NewUUID(), established, 1
		c.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.NoneConverter}
		c.Status = apiextensionsv1.CustomResourceDefinitionStatus{
			AcceptedNames:  c.Spec.Names,
			StoredVersions: []string{c.Spec.Versions[0].Name},
		}
		for _, t := range []apiextensionsv1.CustomResourceDefinitionConditionType{apiextensionsv1.NamesAccepted, apiextensionsv1.Established} {
			c.Status.Conditions = append(c.Status.Conditions, apiextensionsv1.CustomResourceDefinitionCondition{
				Type: t, Status: apiextensionsv1.ConditionTrue, LastTransitionTime: established,
				Reason: "Seeded", Message: "written into etcd by the test server",
			})
		}
		b, err := json.Marshal(c)
		if err != nil {
			return err
		}
		if _, err := kv.Put(ctx, crdPrefix+c.Name, string(b)); err != nil {
			return fmt.Errorf("write %s: %w", c.Name, err)
		}
	}
	return nil
}

// waitServed waits until the API server that config reaches has
// established the definitions, lists widgets and gadgets, and names them
// in its discovery, as kubectl reads it.
func waitServed(config *rest.Config) error {
	crds, err := clientset.NewForConfig(config)
	if err != nil {
		return err
	}
	client, err := dynamic.NewForConfig(config)
	if err != nil {
		return err
	}
	disco, err := discovery.NewDiscoveryClientForConfig(config)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	err = wait.PollUntilContextCancel(ctx, 10*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		for _, r := range []schema.GroupVersionResource{WidgetResource, GadgetResource} {
			crd, err := crds.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, r.GroupResource().String(), metav1.GetOptions{})
			if err != nil || !established(crd) {
				return false, nil
			}
			if _, err := client.Resource(r).List(ctx, metav1.ListOptions{Limit: 1}); err != nil {
				return false, nil
			}
		}
		_, lists, err := disco.ServerGroupsAndResources()
		if err != nil {
			return false, nil
		}
		served := 0
		for _, l := range lists {
			if l.GroupVersion != WidgetResource.GroupVersion().String() {
				continue
			}
			for _, r := range l.APIResources {
				if r.Name == WidgetResource.Resource || r.Name == GadgetResource.Resource {
					served++
				}
			}
		}
		return served == 2, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for widgets and gadgets to be served: %w", err)
	}
	return nil
}

// established reports whether crd has the condition Established.
func established(crd *apiextensionsv1.CustomResourceDefinition) bool {
	return slices.ContainsFunc(crd.Status.Conditions, func(c apiextensionsv1.CustomResourceDefinitionCondition) bool {
		return c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue
	})
}

// widgets returns a client of widgets in namespace ns, straight to the
// API server (the proxy neither sees nor counts its requests).
func (s *Server) widgets(t testing.TB, ns string) dynamic.ResourceInterface {
	t.Helper()
	client, err := dynamic.NewForConfig(s.direct())
	if err != nil {
		t.Fatal(err)
	}
	return client.Resource(WidgetResource).Namespace(ns)
}

// CreateWidget creates the widget ns/name with labels and an empty spec,
// as a user would, and returns its UID. It goes straight to the API
// server, unseen by the proxy, as do the other widget methods.
func (s *Server) CreateWidget(t testing.TB, ns, name string, labels map[string]string) (uid string) {
	t.Helper()
	w := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{}}}
	w.SetAPIVersion(WidgetResource.GroupVersion().String())
	w.SetKind("Widget")
	w.SetName(name)
	w.SetLabels(labels)
	got, err := s.widgets(t, ns).Create(context.Background(), w, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("CreateWidget(%q, %q): %v", ns, name, err)
	}
	return string(got.GetUID())
}

// DeleteWidget deletes the widget ns/name; it has no finalizers, so it is
// gone when DeleteWidget returns.
func (s *Server) DeleteWidget(t testing.TB, ns, name string) {
	t.Helper()
	if err := s.widgets(t, ns).Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("DeleteWidget(%q, %q): %v", ns, name, err)
	}
}

// SetCondition sets the condition of type condType in the status of the
// widget ns/name, as a controller would through the status subresource:
// it replaces the condition of that type, or appends one, and keeps the
// others. lastTransitionTime is now when the condition's status changes,
// and is kept otherwise.
func (s *Server) SetCondition(t testing.TB, ns, name, condType, status, reason, message string) {
	t.Helper()
	s.updateStatus(t, ns, name, func(st map[string]any) {
		c := map[string]any{
			"type": condType, "status": status, "reason": reason, "message": message,
			"lastTransitionTime": time.Now().UTC().Format(time.RFC3339),
		}
		conds, _ := st["conditions"].([]any)
		for i, old := range conds {
			old, _ := old.(map[string]any)
			if old["type"] != condType {
				continue
			}
			if old["status"] == status && old["lastTransitionTime"] != nil {
				c["lastTransitionTime"] = old["lastTransitionTime"]
			}
			conds[i] = c
			return
		}
		st["conditions"] = append(conds, c)
	})
}

// SetStatusField sets the status field of the widget ns/name to value
// through the status subresource, as a controller would. field is a
// dotted path under status ("phase", "replicas.ready"); value is anything
// that marshals to JSON, and nil removes the field.
func (s *Server) SetStatusField(t testing.TB, ns, name, field string, value any) {
	t.Helper()
	var v any
	b, err := json.Marshal(value)
	if err == nil {
		err = json.Unmarshal(b, &v)
	}
	if err != nil {
		t.Fatalf("SetStatusField(%q, %q, %q): %v", ns, name, field, err)
	}
	path := strings.Split(field, ".")
	s.updateStatus(t, ns, name, func(st map[string]any) {
		if v == nil {
			unstructured.RemoveNestedField(st, path...)
			return
		}
		if err := unstructured.SetNestedField(st, v, path...); err != nil {
			t.Fatalf("SetStatusField(%q, %q, %q): %v", ns, name, field, err)
		}
	})
}

// updateStatus applies change to the status of the widget ns/name and
// writes it through the status subresource, again on a conflict.
func (s *Server) updateStatus(t testing.TB, ns, name string, change func(status map[string]any)) {
	t.Helper()
	widgets := s.widgets(t, ns)
	ctx := context.Background()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		w, err := widgets.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		status, _ := w.Object["status"].(map[string]any)
		if status == nil {
			status = map[string]any{}
		}
		change(status)
		w.Object["status"] = status
		_, err = widgets.UpdateStatus(ctx, w, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("widget %s/%s: update status: %v", ns, name, err)
	}
}
