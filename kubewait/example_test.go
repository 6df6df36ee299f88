package kubewait_test

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic/fake"

	"github.com/waitable/waitable/kubewait"
)

// A wait for a Job that fails: the FailOn rule ends it at once, and the
// error names the Job and its condition's reason and message.
func Example() {
	jobs := schema.GroupVersionResource{Group: "batch", Version: "v1", Resource: "jobs"}
	job := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "batch/v1", "kind": "Job",
		"metadata": map[string]any{"name": "migrate", "namespace": "default", "uid": "1"},
		"status": map[string]any{"conditions": []any{map[string]any{
			"type": "Failed", "status": "True", "reason": "BackoffLimitExceeded",
			"message": "Job has reached the specified backoff limit"}}},
	}}
	// A cluster with that Job; a program uses kubewait.NewForConfig.
	dyn := fake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{jobs: "JobList"}, job)

	c := kubewait.NewClient(dyn, kubewait.ClientOptions{})
	_, err := c.Wait(context.Background(), kubewait.Request{
		Resource:  jobs,
		Namespace: "default",
		Names:     []string{"migrate"},
		For:       []kubewait.Rule{kubewait.Condition("Complete", "True")},
		FailOn:    []kubewait.Rule{kubewait.Condition("Failed", "True")},
		Timeout:   10 * time.Minute,
		OnEvent: func(e kubewait.Event) {
			fmt.Println("event:", e.Ref, e.Decision, e.Reason)
		},
	})
	fmt.Println(err)
	// Output:
	// event: default/migrate failure BackoffLimitExceeded
	// kubewait: jobs.batch in default: failure; default/migrate: failed on condition=Failed=True: BackoffLimitExceeded: Job has reached the specified backoff limit
}

// Rules in kubectl wait's spelling, read as kubectl reads them.
func ExampleParseRule() {
	for _, s := range []string{"condition=Available", `jsonpath={.status.phase}="Running"`,
		`jsonpath=.status.conditions[?(@.type=="Ready")].status=True`, "Delete", "rollout", "condition=Ready=maybe=no"} {
		r, err := kubewait.ParseRule(s)
		fmt.Println(r, err)
	}
	r, err := kubewait.ParseRule("jsonpath={.spec.containers[}")
	fmt.Println(r, err)
	// Output:
	// condition=Available <nil>
	// jsonpath={.status.phase}=Running <nil>
	// jsonpath=.status.conditions[?(@.type=="Ready")].status=True <nil>
	// delete <nil>
	// rollout <nil>
	//  kubewait: condition "Ready": status "maybe=no" has a =
	//  kubewait: jsonpath "{.spec.containers[}": unterminated array
}

// The objects of a manifest, of several kinds, in one wait under one
// budget: each must be rolled out (kstatus's Current), and one whose
// pods cannot start would fail the wait at once.
func Example_manifest() {
	deployments := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	services := schema.GroupVersionResource{Version: "v1", Resource: "services"}
	web := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "web", "namespace": "shop", "uid": "1", "generation": int64(1)},
		"spec":     map[string]any{"replicas": int64(1)},
		"status": map[string]any{"observedGeneration": int64(1), "replicas": int64(1), "updatedReplicas": int64(1),
			"readyReplicas": int64(1), "availableReplicas": int64(1),
			"conditions": []any{map[string]any{"type": "Available", "status": "True"}}},
	}}
	svc := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Service",
		"metadata": map[string]any{"name": "web", "namespace": "shop", "uid": "2"},
		"spec":     map[string]any{"type": "ClusterIP"},
	}}
	dyn := fake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{deployments: "DeploymentList", services: "ServiceList",
			{Group: "apps", Version: "v1", Resource: "replicasets"}: "ReplicaSetList", {Version: "v1", Resource: "pods"}: "PodList", {Version: "v1", Resource: "events"}: "EventList"},
		web, svc)
	// A program's mapper reads the server's discovery (NewForConfig makes one).
	mapper := meta.NewDefaultRESTMapper([]schema.GroupVersion{{Group: "apps", Version: "v1"}, {Version: "v1"}})
	mapper.Add(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, meta.RESTScopeNamespace)
	mapper.Add(schema.GroupVersionKind{Version: "v1", Kind: "Service"}, meta.RESTScopeNamespace)

	c := kubewait.NewClient(dyn, kubewait.ClientOptions{Mapper: mapper})
	res, err := c.Wait(context.Background(), kubewait.Request{
		Objects: []kubewait.Ref{
			{Kind: schema.GroupVersionKind{Group: "apps", Kind: "Deployment"}, Name: "web"},
			{Kind: schema.GroupVersionKind{Kind: "Service"}, Name: "web"},
		},
		Namespace: "shop", // kubectl's -n, for the objects that name none
		For:       []kubewait.Rule{kubewait.Rollout(kubewait.RolloutOptions{})},
		Timeout:   5 * time.Minute,
	})
	for _, o := range res.Objects {
		fmt.Println(o.Resource.Resource, o.Ref, o.Decision, o.Rule)
	}
	fmt.Println(err)
	// Output:
	// deployments shop/web success rollout
	// services shop/web success rollout
	// <nil>
}
