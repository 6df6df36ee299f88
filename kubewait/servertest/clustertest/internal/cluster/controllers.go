package cluster

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/controller/daemon"
	"k8s.io/kubernetes/pkg/controller/deployment"
	"k8s.io/kubernetes/pkg/controller/job"
	"k8s.io/kubernetes/pkg/controller/replicaset"
	"k8s.io/kubernetes/pkg/controller/statefulset"
)

// runControllers runs the Deployment, ReplicaSet, StatefulSet, DaemonSet
// and Job controllers, and k, on one factory of informers on config, as
// kube-controller-manager does (with its numbers of workers), and returns
// when the informers have listed. It stops them all when t ends, and
// fails t if k's own steps failed.
func runControllers(t testing.TB, config *rest.Config, k *kubelet) error {
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logr.Discard()))
	client := func(agent string) kubernetes.Interface {
		return kubernetes.NewForConfigOrDie(rest.AddUserAgent(rest.CopyConfig(config), agent))
	}
	factory := informers.NewSharedInformerFactory(client("shared-informers"), 0)
	apps, core := factory.Apps().V1(), factory.Core().V1()

	dc, err := deployment.NewDeploymentController(ctx, apps.Deployments(), apps.ReplicaSets(), core.Pods(),
		client("deployment-controller"))
	if err != nil {
		cancel()
		return fmt.Errorf("deployment controller: %w", err)
	}
	rsc := replicaset.NewReplicaSetController(ctx, apps.ReplicaSets(), core.Pods(), client("replicaset-controller"),
		replicaset.BurstReplicas)
	ssc := statefulset.NewStatefulSetController(ctx, core.Pods(), apps.StatefulSets(), core.PersistentVolumeClaims(),
		apps.ControllerRevisions(), client("statefulset-controller"))
	dsc, err := daemon.NewDaemonSetsController(ctx, apps.DaemonSets(), apps.ControllerRevisions(), core.Pods(),
		core.Nodes(), client("daemon-set-controller"), flowcontrol.NewBackOff(time.Second, 15*time.Minute))
	if err != nil {
		cancel()
		return fmt.Errorf("daemon set controller: %w", err)
	}
	// The Workload API's informers serve only the alpha WorkloadWithJob.
	jc, err := job.NewController(ctx, client("job-controller"), core.Pods(), factory.Batch().V1().Jobs(), nil, nil)
	if err != nil {
		cancel()
		return fmt.Errorf("job controller: %w", err)
	}
	if _, err := core.Pods().Informer().AddEventHandler(k.handler()); err != nil {
		cancel()
		return fmt.Errorf("kubelet: %w", err)
	}

	factory.Start(ctx.Done())
	var wg sync.WaitGroup
	wg.Go(func() { dc.Run(ctx, 5) })
	wg.Go(func() { rsc.Run(ctx, 5) })
	wg.Go(func() { ssc.Run(ctx, 5) })
	wg.Go(func() { dsc.Run(ctx, 2) })
	wg.Go(func() { jc.Run(ctx, 5) })
	wg.Go(func() { k.run(ctx) })
	t.Cleanup(func() {
		cancel()
		wg.Wait()
		factory.Shutdown()
		for _, err := range k.errors() {
			t.Errorf("cluster: kubelet: %v", err)
		}
	})

	synced, stop := context.WithTimeout(ctx, readyTimeout)
	defer stop()
	for typ, ok := range factory.WaitForCacheSync(synced.Done()) {
		if !ok {
			return fmt.Errorf("the informer of %v did not list", typ)
		}
	}
	return nil
}
