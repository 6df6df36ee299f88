package apiserver

import (
	"go.uber.org/goleak"
	"k8s.io/apiserver/pkg/server/healthz"
)

// LeakOptions are the goleak options of a test package that starts
// servers, for its TestMain: goleak.VerifyTestMain(m, LeakOptions()...).
// Every server a test starts stops with its etcd and proxy when the test
// ends; three goroutines of k8s.io/apiserver's outlive them:
//   - the klog flusher of the /healthz log check, started once per process
//     for all servers, with no way to stop it (LeakOptions starts it, so
//     that it is there before the tests and ignored);
//   - the watch cache's wake-up for a read that waited for the cache to
//     catch up with etcd: it sleeps out its three-second timeout, on a
//     timer, after the server has stopped;
//   - the mutating admission policies' refresh of the OpenAPI paths
//     (typeConverterManager.Run, every 5 s): its loopback request takes no
//     context, so one in flight when the server stops runs on through
//     client-go's retries (a CI run caught it in a retry's sleep).
func LeakOptions() []goleak.Option {
	_ = healthz.LogHealthz.Check(nil)
	return []goleak.Option{goleak.IgnoreCurrent(),
		goleak.IgnoreTopFunction("k8s.io/apiserver/pkg/storage/cacher.(*watchCache).waitUntilFreshLocked.func2"),
		goleak.IgnoreAnyFunction("k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch.(*typeConverterManager).Run.func1")}
}
