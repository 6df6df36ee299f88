// Command readme is the README's kubewait program: it waits for three
// widgets labelled app=web (custom resources with a status) to be Ready,
// failing at once if one reports Failed, and prints each object's
// transitions as they happen.
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/waitable/waitable/kubewait"
)

func main() {
	rules := clientcmd.NewDefaultClientConfigLoadingRules() // KUBECONFIG, ~/.kube/config: as kubectl reads them
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, nil).ClientConfig()
	if err != nil {
		log.Fatal(err)
	}
	if err := run(context.Background(), cfg, os.Stdout); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, cfg *rest.Config, out io.Writer) error {
	c, err := kubewait.NewForConfig(cfg, kubewait.ClientOptions{})
	if err != nil {
		return err
	}
	res, err := c.Wait(ctx, kubewait.Request{
		Resource:  schema.GroupVersionResource{Group: "waitable.test", Version: "v1", Resource: "widgets"},
		Namespace: "default",
		Selector:  "app=web",
		Count:     3, // created later ones count too
		For: []kubewait.Rule{ // every one must hold, as kubectl's several --for
			kubewait.Condition("Ready", "True"),             // --for=condition=Ready
			kubewait.JSONPath("{.status.phase}", "Running"), // --for=jsonpath={.status.phase}=Running
		},
		FailOn:  []kubewait.Rule{kubewait.Condition("Failed", "True")}, // ends the wait at once
		Timeout: 5 * time.Minute,
		OnEvent: func(e kubewait.Event) { // one per transition, in this goroutine
			fmt.Fprintf(out, "%s: %s %s\n", e.Ref, e.Decision, e.Reason)
		},
	})
	if err != nil {
		return err // *kubewait.Error: which object, in what state, and why
	}
	fmt.Fprintf(out, "%d widgets ready in %v\n", len(res.Objects), res.Elapsed.Round(time.Millisecond))
	return nil
}
