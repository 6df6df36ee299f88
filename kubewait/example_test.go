package kubewait_test

import (
	"context"
	"fmt"
	"time"

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
			fmt.Println("event:", e.Object, e.State, e.Reason)
		},
	})
	fmt.Println(err)
	// Output:
	// event: default/migrate failure BackoffLimitExceeded
	// kubewait: jobs.batch in default: failure; default/migrate: failed on condition=Failed=True: BackoffLimitExceeded: Job has reached the specified backoff limit
}

// Rules in kubectl wait's spelling.
func ExampleParseRule() {
	for _, s := range []string{"condition=Available", `jsonpath={.status.phase}=Running`, "delete", "condition=Ready=maybe=no"} {
		r, err := kubewait.ParseRule(s)
		fmt.Println(r, err)
	}
	r, err := kubewait.ParseRule("jsonpath={..name}")
	fmt.Println(r, err)
	// Output:
	// condition=Available <nil>
	// jsonpath={.status.phase}=Running <nil>
	// delete <nil>
	//  kubewait: condition "Ready": status "maybe=no" has a =
	//  kubewait: jsonpath "{..name}": recursive descent (..) is not supported
}
