package kubewait

import (
	"fmt"
	"sync"

	"github.com/benbjohnson/clock"
	"golang.org/x/time/rate"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// Client waits for Kubernetes objects. Its waits share its informers: one
// list and one watch per resource, namespace and selector, however many
// waits and objects need it, stopped when the last of those waits ends.
// When a wait cannot watch, it polls under the Client's one rate limit. A
// Client is safe for concurrent use; its zero value is not usable: make
// one with [NewClient] or [NewForConfig].
type Client struct {
	dyn   dynamic.Interface
	clk   clock.Clock
	limit *rate.Limiter

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
}

// NewClient returns a Client that reads objects through dyn.
func NewClient(dyn dynamic.Interface, opts ClientOptions) *Client {
	c := &Client{dyn: dyn, clk: opts.Clock, limit: opts.PollLimit, informers: map[informerKey]*informer{}}
	if c.clk == nil {
		c.clk = clock.New()
	}
	if c.limit == nil {
		c.limit = rate.NewLimiter(5, 10)
	}
	return c
}

// NewForConfig returns a Client for the API server of cfg (see
// k8s.io/client-go/tools/clientcmd to read a kubeconfig as kubectl does).
//
// The Client's waits keep to its own rate limit when they poll, and a
// watch makes no request per object: unless cfg sets a QPS or a
// RateLimiter of its own, client-go's default limit (5 requests a second)
// is turned off, so that it does not hold a wait's request back past its
// deadline.
func NewForConfig(cfg *rest.Config, opts ClientOptions) (*Client, error) {
	if cfg.QPS == 0 && cfg.RateLimiter == nil {
		cfg = rest.CopyConfig(cfg)
		cfg.QPS = -1
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("kubewait: %w", err)
	}
	return NewClient(dyn, opts), nil
}

// resource returns the dynamic client of gvr in namespace ("" for every
// namespace, or a cluster-scoped resource).
func (c *Client) resource(gvr schema.GroupVersionResource, namespace string) dynamic.ResourceInterface {
	r := c.dyn.Resource(gvr)
	if namespace == "" {
		return r
	}
	return r.Namespace(namespace)
}
