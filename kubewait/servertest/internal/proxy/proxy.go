// Package proxy is the proxy that tests put in front of a Kubernetes API
// server in process: it forwards each request as the server's privileged
// loopback identity, records it (verb, resource, namespace, name, status,
// time) and answers the requests a test picks with faults (a 403 on
// watches, a 429 with Retry-After, a 503), as a real cluster's RBAC,
// Priority and Fairness or a restart would. [Start] starts one for a test;
// [Proxy.Count] and [Proxy.Requests] say what the clients under test
// asked for, and [Proxy.SetFault] fails requests.
//
// The API servers of both test modules use it: the API server of custom
// resources (package apiserver) and the full kube-apiserver of the
// clustertest module.
package proxy

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Request is one request the proxy has seen.
type Request struct {
	// Verb is the request's verb in upper case, as the API server's audit
	// log names it: GET, LIST, WATCH, CREATE, UPDATE, PATCH, DELETE or
	// DELETECOLLECTION. A GET of a collection is a LIST, and a LIST with
	// ?watch=true a WATCH. For a path that names no resource (discovery,
	// /healthz, /openapi) it is the HTTP method.
	Verb string
	// Resource is the resource's plural name ("widgets"), followed by
	// "/" and the subresource for a subresource ("widgets/status"); empty
	// for a path that names no resource.
	Resource string
	// Namespace is the request's namespace; empty for a cluster-scoped
	// resource or a request across all namespaces.
	Namespace string
	// Name is the object's name, empty for a collection.
	Name string
	// Path is the request's path and query, as the client sent them.
	Path string
	// UserAgent is the client's User-Agent ("kubectl/v1.37.2 ...",
	// "waitable").
	UserAgent string
	// Status is the HTTP status code of the response; 0 while the response
	// has not started.
	Status int
	// Bytes is how many bytes of the response's body the client has been
	// sent so far (after any compression, as on the wire).
	Bytes int64
	// Time is when the proxy received the request.
	Time time.Time
}

// Fault is a response that the proxy gives instead of forwarding a request
// to the API server.
type Fault struct {
	// Status is the HTTP status code, such as 403 or 429.
	Status int
	// Header holds headers added to the response, such as Retry-After.
	Header http.Header
	// Body is the response body, sent as it is, with the Content-Type that
	// Header gives (client-go reads a metav1.Status only from a JSON
	// Content-Type). When Body is empty, the body is a JSON
	// metav1.Status for Status, as the API server writes one: its reason
	// is Forbidden for 403, TooManyRequests for 429, Expired for 410 (and
	// so on, as apierrors.NewGenericServerResponse maps them), and its
	// details.retryAfterSeconds is the Retry-After header's, when Header
	// has one in seconds.
	Body string
}

// requestInfo classifies requests as the API server does.
var requestInfo = &apirequest.RequestInfoFactory{
	APIPrefixes:          sets.NewString("api", "apis"),
	GrouplessAPIPrefixes: sets.NewString("api"),
}

// Classify describes r as the proxy records it, with no Status and no
// Time. A fault function (see [Proxy.SetFault]) uses it to pick the
// requests to fail.
func Classify(r *http.Request) Request {
	req := Request{Verb: r.Method, Path: r.URL.RequestURI(), UserAgent: r.Header.Get("User-Agent")}
	info, err := requestInfo.NewRequestInfo(r)
	if err != nil {
		return req
	}
	req.Verb = strings.ToUpper(info.Verb)
	if info.IsResourceRequest {
		req.Resource = info.Resource
		if info.Subresource != "" {
			req.Resource += "/" + info.Subresource
		}
		req.Namespace = info.Namespace
		req.Name = info.Name
	}
	return req
}

// backend is one run of the API server, as the proxy reaches it.
type backend struct {
	proxy *httputil.ReverseProxy
	// ctx ends when the API server stops, and with it every request
	// forwarded to it.
	ctx       context.Context
	cancel    context.CancelFunc
	transport *http.Transport
}

// newBackend returns a backend that forwards to the API server at target,
// over transport, as the holder of token.
func newBackend(target *url.URL, transport *http.Transport, token string) *backend {
	ctx, cancel := context.WithCancel(context.Background())
	return &backend{
		ctx:       ctx,
		cancel:    cancel,
		transport: transport,
		proxy: &httputil.ReverseProxy{
			Rewrite: func(pr *httputil.ProxyRequest) {
				pr.SetURL(target)
				pr.Out.Header.Set("Authorization", "Bearer "+token)
			},
			Transport:     transport,
			FlushInterval: -1,
			ErrorLog:      log.New(io.Discard, "", 0),
			ErrorHandler:  unavailable,
		},
	}
}

// close ends the requests in flight to the backend and closes its idle
// connections.
func (b *backend) close() {
	b.cancel()
	b.transport.CloseIdleConnections()
}

// Proxy forwards requests to an API server, records them, and answers
// some with faults. Its methods are safe for concurrent use.
type Proxy struct {
	// Config reaches the API server through the proxy, over plain HTTP on
	// 127.0.0.1. Clients under test use it. The proxy forwards every
	// request as the API server's privileged loopback identity, whatever
	// credentials it carries: Config has a bearer token, as a client of a
	// real cluster does, but a kubeconfig's client (kubectl, clientcmd)
	// sends none over plain HTTP.
	Config *rest.Config
	// Kubeconfig is the path of a kubeconfig file, in a temporary folder
	// of the test, for kubectl through the proxy, with namespace default
	// and Config's host and token.
	// kubectl caches discovery per server address under its cache folder:
	// a test that runs kubectl sets KUBECACHEDIR to a folder of its own.
	Kubeconfig string

	mu       sync.Mutex
	requests []*Request
	fault    func(*http.Request) *Fault
	backend  *backend // nil while no API server runs
	addr     string   // where the proxy listens, or listened before Refuse
	server   *http.Server
	served   chan struct{} // closed when server has stopped serving
}

// readHeaderTimeout bounds the proxy's wait for a request's header.
const readHeaderTimeout = 30 * time.Second

// Start starts a proxy in process for t, on 127.0.0.1, forwarding to the
// API server that backend reaches (see [Proxy.SetBackend]), and stops it
// when t ends: the requests it was forwarding end. It fails t if the
// proxy cannot start.
func Start(t testing.TB, backend *rest.Config) *Proxy {
	t.Helper()
	p := &Proxy{addr: "127.0.0.1:0"}
	if err := p.SetBackend(backend); err != nil {
		t.Fatalf("proxy: %v", err)
	}
	if err := p.Listen(); err != nil {
		t.Fatalf("proxy: %v", err)
	}
	t.Cleanup(func() {
		p.Refuse()
		_ = p.SetBackend(nil)
	})
	p.Config = &rest.Config{Host: "http://" + p.addr, BearerToken: rand.Text()}
	p.Kubeconfig = filepath.Join(t.TempDir(), "kubeconfig")
	if err := WriteKubeconfig(p.Kubeconfig, p.Config); err != nil {
		t.Fatalf("proxy: %v", err)
	}
	return p
}

// Listen makes p accept connections again on its address, after
// [Proxy.Refuse].
func (p *Proxy) Listen() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.server != nil {
		return nil
	}
	l, err := net.Listen("tcp", p.addr)
	if err != nil {
		return err
	}
	p.addr = l.Addr().String()
	srv := &http.Server{Handler: http.HandlerFunc(p.serve), ReadHeaderTimeout: readHeaderTimeout}
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = srv.Serve(l)
	}()
	p.server, p.served = srv, served
	return nil
}

// Refuse closes p's port, and the connections open to it: a client's
// connections are refused (ECONNREFUSED), as those to an API server that
// restarts, until [Proxy.Listen].
func (p *Proxy) Refuse() {
	p.mu.Lock()
	srv, served := p.server, p.served
	p.server = nil
	p.mu.Unlock()
	if srv != nil {
		_ = srv.Close()
		<-served
	}
}

// SetBackend makes p forward to the API server that config reaches, as
// config's identity (its TLS settings and bearer token), or, with a nil
// config, answer 503 ServiceUnavailable; it ends the requests that p was
// forwarding.
func (p *Proxy) SetBackend(config *rest.Config) error {
	var b *backend
	if config != nil {
		tlsConfig, err := rest.TLSConfigFor(config)
		if err != nil {
			return err
		}
		target, err := url.Parse(config.Host)
		if err != nil {
			return err
		}
		b = newBackend(target, &http.Transport{TLSClientConfig: tlsConfig, MaxIdleConnsPerHost: 100},
			config.BearerToken)
	}
	p.mu.Lock()
	old := p.backend
	p.backend = b
	p.mu.Unlock()
	if old != nil {
		old.close()
	}
	return nil
}

// serve records r, then answers it with a fault or forwards it.
func (p *Proxy) serve(w http.ResponseWriter, r *http.Request) {
	req := Classify(r)
	req.Time = time.Now()
	p.mu.Lock()
	p.requests = append(p.requests, &req)
	fault, b := p.fault, p.backend
	p.mu.Unlock()
	w = &statusRecorder{ResponseWriter: w, mu: &p.mu, req: &req}

	var f *Fault
	if fault != nil {
		f = fault(r)
	}
	switch {
	case f != nil:
		writeFault(w, req, f)
	case b == nil:
		unavailable(w, r, nil)
	default:
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		defer context.AfterFunc(b.ctx, cancel)()
		b.proxy.ServeHTTP(w, r.WithContext(ctx))
	}
}

// unavailable answers 503 for an API server that is not running.
func unavailable(w http.ResponseWriter, r *http.Request, _ error) {
	writeFault(w, Classify(r), &Fault{Status: http.StatusServiceUnavailable})
}

// writeFault writes f as the response to req.
func writeFault(w http.ResponseWriter, req Request, f *Fault) {
	for k, vs := range f.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	body := []byte(f.Body)
	if f.Body == "" {
		body = statusBody(req, f)
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(f.Status)
	_, _ = w.Write(body)
}

// statusBody returns the JSON metav1.Status that the API server would
// write for a response with f's status code to req.
func statusBody(req Request, f *Fault) []byte {
	retryAfter, _ := strconv.Atoi(f.Header.Get("Retry-After"))
	resource, _, _ := strings.Cut(req.Resource, "/")
	status := apierrors.NewGenericServerResponse(f.Status, req.Verb,
		schema.GroupResource{Resource: resource}, req.Name,
		"fault injected by the test proxy", retryAfter, false).ErrStatus
	if f.Status == http.StatusGone {
		status.Reason = metav1.StatusReasonExpired
	}
	status.Kind, status.APIVersion = "Status", "v1"
	body, err := json.Marshal(status)
	if err != nil {
		panic(err) // a metav1.Status always marshals
	}
	return body
}

// statusRecorder records the status code and the size of a response in
// its Request.
type statusRecorder struct {
	http.ResponseWriter
	mu      *sync.Mutex
	req     *Request
	written bool
}

// WriteHeader records code and writes it.
func (w *statusRecorder) WriteHeader(code int) {
	if !w.written && code >= 200 {
		w.written = true
		w.mu.Lock()
		w.req.Status = code
		w.mu.Unlock()
	}
	w.ResponseWriter.WriteHeader(code)
}

// Write writes b, recording 200 if no status code was written before,
// and the bytes written.
func (w *statusRecorder) Write(b []byte) (int, error) {
	if !w.written {
		w.WriteHeader(http.StatusOK)
	}
	n, err := w.ResponseWriter.Write(b)
	w.mu.Lock()
	w.req.Bytes += int64(n)
	w.mu.Unlock()
	return n, err
}

// Unwrap returns the underlying writer, for http.ResponseController
// (which the reverse proxy uses to flush watch events).
func (w *statusRecorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Requests returns every request the proxy has seen since it started or
// since the last [Proxy.ResetCounts], in the order they arrived.
func (p *Proxy) Requests() []Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]Request, len(p.requests))
	for i, r := range p.requests {
		out[i] = *r
	}
	return out
}

// Count returns how many of [Proxy.Requests] have verb (compared without
// regard to case), resource and namespace; an empty namespace matches any.
// Count("LIST", "widgets", "") counts the lists of widgets in every
// namespace and across namespaces.
func (p *Proxy) Count(verb, resource, namespace string) int {
	n := 0
	for _, r := range p.Requests() {
		if strings.EqualFold(r.Verb, verb) && r.Resource == resource &&
			(namespace == "" || r.Namespace == namespace) {
			n++
		}
	}
	return n
}

// ResetCounts forgets every request seen so far, for [Proxy.Requests]
// and [Proxy.Count].
func (p *Proxy) ResetCounts() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.requests = nil
}

// SetFault makes the proxy call f for each request, after recording it:
// when f returns a Fault, the proxy answers with it and does not forward
// the request. A nil f, the default, forwards every request. f is called
// once per request, from many goroutines at once, and must not block.
func (p *Proxy) SetFault(f func(r *http.Request) *Fault) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.fault = f
}

// WriteKubeconfig writes a kubeconfig file at path for config's host and
// bearer token, with namespace default.
func WriteKubeconfig(path string, config *rest.Config) error {
	kc := clientcmdapi.NewConfig()
	kc.Clusters["servertest"] = &clientcmdapi.Cluster{Server: config.Host}
	kc.AuthInfos["servertest"] = &clientcmdapi.AuthInfo{Token: config.BearerToken}
	kc.Contexts["servertest"] = &clientcmdapi.Context{Cluster: "servertest", AuthInfo: "servertest", Namespace: "default"}
	kc.CurrentContext = "servertest"
	return clientcmd.WriteToFile(*kc, path)
}
