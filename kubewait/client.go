package kubewait

import (
	"cmp"
	"fmt"
	"sync"
	"time"

	"github.com/benbjohnson/clock"
	"golang.org/x/time/rate"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"

	"github.com/waitable/waitable/backoff"
	"github.com/waitable/waitable/waiter"
)

// Client waits for Kubernetes objects. Its waits share its informers: one
// list and one watch per resource, namespace and selector, however many
// waits and objects need it, stopped when the last of those waits ends.
// When a wait cannot watch, it polls under the Client's one rate limit. A
// Client is safe for concurrent use; its zero value is not usable: make
// one with [NewClient] or [NewForConfig].
type Client struct {
	dyn     dynamic.Interface
	mapper  meta.RESTMapper
	clk     clock.Clock
	limit   *rate.Limiter
	history waiter.History
	jitter  backoff.Jitter
	backoff backoff.Policy // after a list or watch that ended

	mu        sync.Mutex
	informers map[informerKey]*informer
}

// ClientOptions configure a Client. The zero value is the default.
type ClientOptions struct {
	// Clock is the clock of every wait, delay and backoff (default: the
	// real clock). Tests pass a clocktest.Mock.
	Clock clock.Clock
	// PollLimit is the rate at which the Client's waits may poll (a GET
	// per object, or a LIST per selector) when they cannot watch; a 429's
	// Retry-After slows a wait further. The default is client-go's: 5
	// requests a second, in bursts of 10.
	PollLimit *rate.Limiter
	// Mapper resolves the kinds of Request.Objects to resources, as
	// kubectl's does (k8s.io/client-go/restmapper). NewForConfig makes
	// one over the server's discovery when it is nil; a Client without
	// one takes no Objects.
	Mapper meta.RESTMapper
	// History keeps the durations of the Client's past waits, each
	// object's under its waiter's name (its rules) and its resource,
	// namespace and name, so that a wait says how long it has left
	// (Event.Estimate; see [waiter.History]). The default keeps them in
	// memory, for the Client's life; one on disk outlives the process.
	// A request's waiter.WithHistory replaces it.
	History waiter.History
	// Jitter draws the delays of the backoff after a list or a watch
	// fails, or must list again, and of the tries to map Request.Objects'
	// kinds while the API server cannot be reached (default:
	// backoff.Uniform; tests pass backoff.Seeded or backoff.Midpoint). The backoff doubles
	// from 1-2 s to 30-60 s, and starts again once a watch works (it
	// delivers an event, or stays open as long as the first backoff).
	Jitter backoff.Jitter
}

// NewClient returns a Client that reads objects through dyn.
func NewClient(dyn dynamic.Interface, opts ClientOptions) *Client {
	c := &Client{dyn: dyn, mapper: opts.Mapper, clk: cmp.Or(opts.Clock, clock.New()),
		limit: cmp.Or(opts.PollLimit, rate.NewLimiter(5, 10)), history: cmp.Or(opts.History, waiter.NewMemoryHistory()),
		jitter: opts.Jitter, informers: map[informerKey]*informer{}}
	// The backoff after a list or a watch that ended: doubling from 2 s,
	// half jittered ([1 s, 2 s], then [2 s, 4 s], ...), to a minute.
	c.backoff = backoff.ExponentialHalfJitter(2*time.Second, time.Minute).WithJitter(c.jitter)
	return c
}

// NewForConfig returns a Client for the API server of cfg (see
// k8s.io/client-go/tools/clientcmd to read a kubeconfig as kubectl does).
//
// The waits' own rules replace client-go's: a request is made once, and
// an error (a 429 or a 503 with its Retry-After) goes to the waiter's
// retry strategy and schedule rather than to client-go's hidden retries
// (up to 10, sleeping out each Retry-After). The Client's waits keep to
// its own rate limit when they poll, and a watch makes no request per
// object: unless cfg sets a QPS or a RateLimiter of its own, client-go's
// default limit (5 requests a second) is turned off, so that it does not
// hold a wait's request back past its deadline.
//
// Unless opts.Mapper is set, the Client resolves the kinds of
// Request.Objects through the server's discovery, read once and kept in
// memory (read again when a kind is not found), with kubectl's burst of
// requests for it.
func NewForConfig(cfg *rest.Config, opts ClientOptions) (*Client, error) {
	if opts.Mapper == nil {
		// Discovery as kubectl makes it: it reads many API groups at once,
		// so unless cfg sets a limit of its own it may make 50 requests a
		// second, in bursts of 300.
		dcfg := rest.CopyConfig(cfg)
		if dcfg.QPS == 0 && dcfg.RateLimiter == nil {
			dcfg.QPS, dcfg.Burst = 50, 300
		}
		disc, err := discovery.NewDiscoveryClientForConfig(dcfg)
		if err != nil {
			return nil, fmt.Errorf("kubewait: %w", err)
		}
		opts.Mapper = restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disc))
	}
	cfg = dynamic.ConfigFor(cfg) // a copy
	if cfg.QPS == 0 && cfg.RateLimiter == nil {
		cfg.QPS = -1
	}
	rc, err := rest.UnversionedRESTClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("kubewait: %w", err)
	}
	return NewClient(dynamic.New(onceOnly{rc}), opts), nil
}

// onceOnly is a REST client whose reads client-go does not retry. The
// Client only reads: a GET, a LIST and a WATCH, which the dynamic client
// each makes with Get.
type onceOnly struct{ rest.Interface }

func (c onceOnly) Get() *rest.Request { return c.Interface.Get().MaxRetries(0) }
