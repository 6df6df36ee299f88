// Package leaks lists the goroutines that the Temporal server and SDK
// started in process leave running after Stop (their pollers,
// rate-limiter cleanups, membership timers and metrics loops), for tests
// that check for leaked goroutines: they are the libraries', not ours.
package leaks

import "go.uber.org/goleak"

// Options returns goleak options that ignore them.
func Options() []goleak.Option {
	var opts []goleak.Option
	for _, f := range []string{
		"go.temporal.io/sdk/internal/common/backoff.(*ConcurrentRetrier).throttleInternal",
		"go.temporal.io/server/common/quotas.(*MapRequestRateLimiterImpl[...]).cleanupLoop",
		"go.temporal.io/sdk/internal.(*baseWorker).runTaskDispatcher",
		"go.temporal.io/sdk/internal.(*baseWorker).runEagerTaskDispatcher",
		"go.temporal.io/sdk/internal.(*localActivityTunnel).getTask",
		"go.temporal.io/sdk/internal.(*sharedNamespaceWorker).run",
		"google.golang.org/grpc.(*addrConn).resetTransportAndUnlock",
		"go.temporal.io/server/common/persistence.(*healthSignalAggregatorImpl).emitMetricsLoop",
		"github.com/temporalio/ringpop-go.(*Ringpop).startTimers.func1",
		"github.com/temporalio/ringpop-go.(*Ringpop).startTimers.func2",
		"go.temporal.io/server/common/membership/ringpop.(*monitor).startHeartbeatUpsertLoop.func1",
		"go.temporal.io/server/service/worker.(*PerNamespaceWorkerManager).periodicRefresh",
		"github.com/uber-go/tally/v4.(*scope).reportLoop",
		"github.com/rcrowley/go-metrics.(*meterArbiter).tick",
		"database/sql.(*DB).connectionOpener",
		"google.golang.org/grpc/internal/grpcsync.(*CallbackSerializer).run",
		"github.com/uber-go/tally/v4/prometheus.Configuration.NewReporter.func5",
		"go.temporal.io/server/common/pprof.(*PProfInitializerImpl).Start.func1",
	} {
		opts = append(opts, goleak.IgnoreAnyFunction(f))
	}
	return opts
}
