package apiserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-logr/logr"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/kubernetes"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
	extensionsapiserver "k8s.io/apiextensions-apiserver/pkg/apiserver"
	"k8s.io/apiextensions-apiserver/pkg/cmd/server/options"
	generatedopenapi "k8s.io/apiextensions-apiserver/pkg/generated/openapi"
	"k8s.io/apimachinery/pkg/util/wait"
	openapinamer "k8s.io/apiserver/pkg/endpoints/openapi"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/apiserver/pkg/storage/etcd3/testserver"
	"k8s.io/apiserver/pkg/util/compatibility"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/apiserver/pkg/util/openapi"
	"k8s.io/client-go/rest"
	basecompatibility "k8s.io/component-base/compatibility"
	"k8s.io/klog/v2"

	"github.com/waitable/waitable/kubewait/servertest/internal/proxy"
)

// etcdPrefix is the API server's prefix of keys in etcd (its default).
const etcdPrefix = "/registry/apiextensions.kubernetes.io"

// readyTimeout bounds each wait for the API server or its custom
// resources to be ready.
const readyTimeout = 30 * time.Second

// Options configures [Start]. The zero value runs the API server with its
// defaults.
type Options struct {
	// WatchCache turns the API server's watch cache on or off, as its
	// --watch-cache flag does; nil leaves the default, on. With the cache
	// off, a watch from a resourceVersion older than the last
	// [Server.Compact] gets a 410 Expired ERROR event.
	WatchCache *bool
}

// Server is an API server with the test custom resources (see
// [WidgetResource] and [GadgetResource]), etcd under it and a proxy in
// front. Clients under test reach it through the proxy, with the
// embedded Proxy's Config and Kubeconfig; its Count, Requests and
// SetFault read and steer what they ask. Its methods are safe for
// concurrent use, except that [Server.Restart] replaces Direct.
type Server struct {
	*proxy.Proxy
	// Direct reaches the API server itself, over TLS (HTTP/1.1) as its
	// privileged loopback client, unseen by the proxy. [Server.Restart]
	// replaces it.
	Direct *rest.Config

	opts Options
	dir  string             // certificates and the core API's kubeconfig
	etcd *kubernetes.Client // the API server's etcd

	mu  sync.Mutex
	api *apiServer // the running API server
}

// apiServer is one run of the API server.
type apiServer struct {
	config *rest.Config // its loopback client's
	stop   context.CancelFunc
	done   chan error // receives the run's error, then is closed
}

// close stops the API server and waits until it has stopped.
func (a *apiServer) close() error {
	a.stop()
	return <-a.done
}

// init silences klog, which the API server and client-go log to, for the
// process: its lines would drown the test's output. klog takes a logger
// only before any goroutine logs.
func init() { klog.SetLogger(logr.Discard()) }

// Start starts etcd, the API server of custom resources
// (k8s.io/apiextensions-apiserver) and the proxy in process, with the
// definitions of [WidgetResource] and [GadgetResource] established, and
// returns when the custom resources are served and named in discovery. It
// fails t if any of them does not start, and stops them all when t ends.
//
// The server has no core API: no namespaces, pods or events. Custom
// resources go into any namespace name without creating it first.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()

	s := &Server{opts: opts, dir: t.TempDir()}
	s.etcd = RunEtcd(t)
	if err := writeCoreKubeconfig(s.dir); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	if err := seedCRDs(ctx, s.etcd.KV); err != nil {
		t.Fatalf("apiserver: %v", err)
	}

	api, err := s.startAPIServer()
	if err != nil {
		t.Fatalf("apiserver: start: %v", err)
	}
	s.api, s.Direct = api, rest.CopyConfig(api.config)
	t.Cleanup(func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if err := s.api.close(); err != nil {
			t.Errorf("apiserver: stop: %v", err)
		}
	})

	s.Proxy = proxy.Start(t, api.config)

	if err := waitServed(s.Direct); err != nil {
		t.Fatalf("apiserver: %v", err)
	}
	return s
}

// etcdPorts serializes the starts of etcd in this process: each picks
// free ports, closes them and binds them again.
var etcdPorts sync.Mutex

// RunEtcd starts etcd in process for t, as testserver.RunEtcd does, with
// its server's logs off (it logs errors on every shutdown, "setting up
// serving from embedded etcd failed", and a failure to start fails t
// anyway), and stops it and the client it returns when t ends. The
// client's Endpoints are the server's addresses, for an API server's
// storage.
//
// The ports etcd binds are picked free and closed before etcd binds them
// again: another process (a test binary of another package), or an
// outgoing connection of this one, may take one in between. A start that
// finds its address in use picks new ports, up to five times.
func RunEtcd(t testing.TB) *kubernetes.Client {
	t.Helper()
	etcdPorts.Lock()
	defer etcdPorts.Unlock()
	var e *embed.Etcd
	for try := 1; ; try++ {
		cfg := testserver.NewTestConfig(t)
		cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
		var err error
		e, err = embed.StartEtcd(cfg)
		if err == nil {
			break
		}
		if try == 5 || !addressInUse(err) {
			t.Fatalf("apiserver: start etcd (try %d): %v", try, err)
		}
	}
	t.Cleanup(e.Close)
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(readyTimeout):
		e.Server.Stop()
		t.Fatalf("apiserver: etcd not ready in %v", readyTimeout)
	}
	client, err := kubernetes.New(clientv3.Config{
		Endpoints:   e.Server.Cluster().ClientURLs(),
		DialTimeout: 10 * time.Second,
		Logger:      zap.NewNop(),
	})
	if err != nil {
		t.Fatalf("apiserver: etcd client: %v", err)
	}
	t.Cleanup(func() { _ = client.Close() })
	return client
}

// addressInUse tells a bind that lost its port to someone else.
func addressInUse(err error) bool {
	return errors.Is(err, syscall.EADDRINUSE) || strings.Contains(err.Error(), "address already in use")
}

// Restart stops the API server and starts a new one on the same etcd,
// with the same options, and returns when the custom resources are served
// again. The proxy keeps its address and forwards to the new server: the
// requests it was forwarding end (a watch through it breaks), and those
// that arrive while no server runs get 503 ServiceUnavailable.
// [Server.Direct] is replaced, for the new server's loopback identity.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = s.Proxy.SetBackend(nil)
	if err := s.api.close(); err != nil {
		t.Fatalf("apiserver: stop: %v", err)
	}
	api, err := s.startAPIServer()
	if err != nil {
		t.Fatalf("apiserver: restart: %v", err)
	}
	s.api, s.Direct = api, rest.CopyConfig(api.config)
	if err := waitServed(api.config); err != nil {
		t.Fatalf("apiserver: restart: %v", err)
	}
	if err := s.Proxy.SetBackend(api.config); err != nil {
		t.Fatal(err)
	}
}

// Compact compacts etcd at its current revision, as the API server does
// every five minutes. Afterwards a watch from an older resourceVersion
// gets a 410 Expired ERROR event when the watch cache is off (see
// [Options]); with the cache on, the API server still serves it from the
// cache while the resourceVersion is within the cache's window.
func (s *Server) Compact(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	resp, err := s.etcd.KV.Get(ctx, "compact")
	if err != nil {
		t.Fatalf("apiserver: compact: %v", err)
	}
	if _, err := s.etcd.KV.Compact(ctx, resp.Header.Revision, clientv3.WithCompactPhysical()); err != nil {
		t.Fatalf("apiserver: compact: %v", err)
	}
}

// direct returns the running API server's loopback config.
func (s *Server) direct() *rest.Config {
	s.mu.Lock()
	defer s.mu.Unlock()
	return rest.CopyConfig(s.api.config)
}

// startAPIServer starts an API server on s.etcd and waits until /healthz
// passes (its /readyz never does without a kube-apiserver to delegate to).
func (s *Server) startAPIServer() (*apiServer, error) {
	o := options.NewCustomResourceDefinitionsServerOptions(os.Stdout, os.Stderr)

	// A registry of its own per server, as the upstream test server does,
	// so that servers in parallel tests do not contend for the global one.
	featureGate := utilfeature.DefaultMutableFeatureGate.DeepCopy()
	version := compatibility.DefaultKubeEffectiveVersionForTest()
	version.SetEmulationVersion(featureGate.EmulationVersion())
	registry := basecompatibility.NewComponentGlobalsRegistry()
	if err := registry.Register(basecompatibility.DefaultKubeComponent, version, featureGate); err != nil {
		return nil, err
	}
	if err := registry.Set(); err != nil {
		return nil, err
	}
	o.ServerRunOptions.ComponentGlobalsRegistry = registry

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	serving := o.RecommendedOptions.SecureServing
	serving.Listener, serving.BindPort = l, l.Addr().(*net.TCPAddr).Port
	serving.ExternalAddress = net.IPv4(127, 0, 0, 1)
	serving.ServerCert.CertDirectory = s.dir
	// Over HTTP/2, a stop waits a second for every client connection to
	// go after its GOAWAY; over HTTP/1.1 the idle ones close at once.
	serving.DisableHTTP2Serving = true

	o.RecommendedOptions.Etcd.StorageConfig.Prefix = etcdPrefix
	o.RecommendedOptions.Etcd.StorageConfig.Transport.ServerList = s.etcd.Endpoints()
	if s.opts.WatchCache != nil {
		o.RecommendedOptions.Etcd.EnableWatchCache = *s.opts.WatchCache
	}
	if err := o.APIEnablement.RuntimeConfig.Set("api/all=true"); err != nil {
		return nil, err
	}
	// Without a kube-apiserver there is no one to delegate authentication,
	// authorization, admission or priority and fairness to: the loopback
	// identity is a member of system:masters and needs none of them, and
	// the core API's kubeconfig points nowhere, as the upstream tests do.
	core := filepath.Join(s.dir, "core-kubeconfig")
	o.RecommendedOptions.Authentication.RemoteKubeConfigFile = core
	o.RecommendedOptions.Authentication.SkipInClusterLookup = true
	o.RecommendedOptions.Authorization.RemoteKubeConfigFile = core
	o.RecommendedOptions.CoreAPI.CoreAPIKubeconfigPath = core
	o.RecommendedOptions.Features.EnablePriorityAndFairness = false
	o.RecommendedOptions.Admission.DisablePlugins = []string{
		"NamespaceLifecycle", "MutatingAdmissionWebhook", "ValidatingAdmissionWebhook",
		"ValidatingAdmissionPolicy", "MutatingAdmissionPolicy",
	}

	if err := o.Complete(); err != nil {
		_ = l.Close()
		return nil, err
	}
	if err := o.Validate(); err != nil {
		_ = l.Close()
		return nil, err
	}
	config, err := o.Config()
	if err != nil {
		_ = l.Close()
		return nil, err
	}
	// The informers of the core API, which this server does not have (the
	// services for conversion webhooks' addresses), would retry forever,
	// and back off past the server's stop: none runs.
	config.GenericConfig.SharedInformerFactory = nil
	definitions := openapi.GetOpenAPIDefinitionsWithoutDisabledFeatures(generatedopenapi.GetOpenAPIDefinitions)
	config.GenericConfig.OpenAPIConfig = genericapiserver.DefaultOpenAPIConfig(definitions,
		openapinamer.NewDefinitionNamer(extensionsapiserver.Scheme))
	completed := config.Complete()
	// Complete turns discovery off, for a server behind a kube-apiserver's
	// aggregator; kubectl needs it ("couldn't get current server API group
	// list" without it).
	completed.GenericConfig.EnableDiscovery = true
	server, err := completed.New(genericapiserver.NewEmptyDelegate())
	if err != nil {
		_ = l.Close()
		return nil, err
	}

	ctx, cancel := context.WithCancel(context.Background())
	api := &apiServer{config: server.GenericAPIServer.LoopbackClientConfig, stop: cancel, done: make(chan error, 1)}
	go func() {
		defer close(api.done)
		api.done <- server.GenericAPIServer.PrepareRun().RunWithContext(ctx)
	}()
	if err := waitHealthy(api); err != nil {
		return nil, errors.Join(err, api.close())
	}
	return api, nil
}

// waitHealthy polls api's /healthz until it passes, api stops, or
// readyTimeout passes.
func waitHealthy(api *apiServer) error {
	client, err := rest.HTTPClientFor(api.config)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	err = wait.PollUntilContextCancel(ctx, 10*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		select {
		case err := <-api.done:
			return false, fmt.Errorf("stopped: %v", err)
		default:
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, api.config.Host+"/healthz", nil)
		if err != nil {
			return false, err
		}
		resp, err := client.Do(req)
		if err != nil {
			return false, nil
		}
		_ = resp.Body.Close()
		return resp.StatusCode == http.StatusOK, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for /healthz: %w", err)
	}
	return nil
}

// writeCoreKubeconfig writes the kubeconfig that the API server would use
// to reach a kube-apiserver: it points at an address where none listens.
func writeCoreKubeconfig(dir string) error {
	return proxy.WriteKubeconfig(filepath.Join(dir, "core-kubeconfig"),
		&rest.Config{Host: "https://127.0.0.1:1", BearerToken: "none"})
}
