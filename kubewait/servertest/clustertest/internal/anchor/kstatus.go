package anchor

import (
	"context"
	"time"

	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"sigs.k8s.io/cli-utils/pkg/kstatus/polling/aggregator"
	"sigs.k8s.io/cli-utils/pkg/kstatus/polling/collector"
	"sigs.k8s.io/cli-utils/pkg/kstatus/polling/event"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/cli-utils/pkg/kstatus/watcher"
	"sigs.k8s.io/cli-utils/pkg/object"
)

// KstatusResult is how a wait of [Kstatus] ended.
type KstatusResult struct {
	// Status is Current when every object was Current, Failed when one
	// was Failed and every other Current, and otherwise (the wait ended
	// first) the objects' aggregate status then: InProgress, say.
	Status status.Status
	// Time is when the wait decided, or when ctx ended.
	Time time.Time
	// Objects are the objects' last statuses, messages and objects.
	Objects map[object.ObjMetadata]*event.ResourceStatus
	// Err is the watcher's error, or ctx's when it ended first.
	Err error
}

// Kstatus waits as Helm 4's --wait does (helm's pkg/kube/statuswait.go):
// it watches ids through config with kstatus's default status watcher
// (one informer per kind and namespace, reading the ReplicaSets and pods
// of a Deployment to judge it) and ends when every object is Current or
// Failed, Failed ones aside, or when ctx ends.
func Kstatus(ctx context.Context, config *rest.Config, ids ...object.ObjMetadata) KstatusResult {
	dyn, err := dynamic.NewForConfig(config)
	if err != nil {
		return KstatusResult{Status: status.UnknownStatus, Time: time.Now(), Err: err}
	}
	dc, err := discovery.NewDiscoveryClientForConfig(config)
	if err != nil {
		return KstatusResult{Status: status.UnknownStatus, Time: time.Now(), Err: err}
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))

	watchCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	events := watcher.NewDefaultStatusWatcher(dyn, mapper).Watch(watchCtx, ids,
		watcher.Options{RESTScopeStrategy: watcher.RESTScopeNamespace})
	statuses := collector.NewResourceStatusCollector(ids)
	var decided time.Time
	done := statuses.ListenWithObserver(events, collector.ObserverFunc(func(c *collector.ResourceStatusCollector, _ event.Event) {
		var rss []*event.ResourceStatus
		for _, rs := range c.ResourceStatuses {
			// Helm 4 waits no longer for an object that failed.
			if rs != nil && rs.Status != status.FailedStatus {
				rss = append(rss, rs)
			}
		}
		if decided.IsZero() && aggregator.AggregateStatus(rss, status.CurrentStatus) == status.CurrentStatus {
			decided = time.Now()
			cancel()
		}
	}))
	<-done

	res := KstatusResult{Time: decided, Objects: statuses.ResourceStatuses, Err: statuses.Error}
	var all []*event.ResourceStatus
	for _, rs := range statuses.ResourceStatuses {
		all = append(all, rs)
	}
	res.Status = aggregator.AggregateStatus(all, status.CurrentStatus)
	if decided.IsZero() {
		res.Time = time.Now()
		if res.Err == nil {
			res.Err = ctx.Err()
		}
	}
	return res
}
