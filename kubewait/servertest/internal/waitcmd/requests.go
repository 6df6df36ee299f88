package waitcmd

import (
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/waitable/waitable/kubewait/servertest/internal/apiserver"
	"github.com/waitable/waitable/kubewait/servertest/internal/proxy"
)

// Requests records the requests that reach a server's proxy, each with
// the [Tool] that made it, told apart by User-Agent (kubectl's starts
// "kubectl/", waitable's is "waitable"). It is safe for concurrent use.
type Requests struct {
	mu   sync.Mutex
	seen []toolRequest
	// waits are closed when the requests matching their key number
	// their n.
	waits []waiter
}

// A waiter is one call of [Requests.MadeN] not yet answered.
type waiter struct {
	key
	n  int
	ch chan struct{}
}

type toolRequest struct {
	tool Tool
	req  proxy.Request
}

// key is what [Requests.Made] waits for.
type key struct {
	tool               Tool
	verb, resource, ns string
}

// Track makes srv's proxy record every request in a new Requests, through
// [apiserver.Server.SetFault] (it answers none with a fault): the caller
// sets no other fault function while it tracks.
func Track(srv *apiserver.Server) *Requests {
	rs := &Requests{}
	srv.SetFault(func(r *http.Request) *proxy.Fault {
		rs.record(toolOf(r.Header.Get("User-Agent")), proxy.Classify(r))
		return nil
	})
	return rs
}

// toolOf tells the command from its User-Agent ("" for any other client).
func toolOf(userAgent string) Tool {
	switch {
	case strings.HasPrefix(userAgent, "kubectl"):
		return Kubectl
	case strings.HasPrefix(userAgent, "waitable"):
		return Waitable
	}
	return ""
}

func (rs *Requests) record(tool Tool, req proxy.Request) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.seen = append(rs.seen, toolRequest{tool, req})
	rs.waits = slices.DeleteFunc(rs.waits, func(w waiter) bool {
		if rs.made(w.key) < w.n {
			return false
		}
		close(w.ch)
		return true
	})
}

// made counts the requests seen that match k (rs.mu held).
func (rs *Requests) made(k key) int {
	n := 0
	for _, r := range rs.seen {
		if r.tool == k.tool && r.req.Verb == k.verb && r.req.Namespace == k.ns && (k.resource == "" || r.req.Resource == k.resource) {
			n++
		}
	}
	return n
}

// Made returns a channel closed when tool has made a request with verb
// (LIST, WATCH, GET, as [proxy.Request.Verb] names them) in namespace
// ns ("" for a cluster-scoped resource), of resource, or of any resource
// when resource is "", at any time since [Track].
func (rs *Requests) Made(tool Tool, verb, resource, ns string) <-chan struct{} {
	return rs.MadeN(tool, verb, resource, ns, 1)
}

// MadeN is [Requests.Made] for the nth such request (n of 1 or less
// is the first): a command that asks for an object twice, one --for
// after another, has read it for the second only at its second request.
func (rs *Requests) MadeN(tool Tool, verb, resource, ns string, n int) <-chan struct{} {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	ch := make(chan struct{})
	k, n := key{tool, verb, resource, ns}, max(n, 1)
	if rs.made(k) >= n {
		close(ch)
		return ch
	}
	rs.waits = append(rs.waits, waiter{k, n, ch})
	return ch
}

// Count returns how many requests tool made with verb of resource since
// [Track] (or [Requests.Reset]); an empty verb or resource matches any, so
// that Count(tool, "", "") counts every request of tool, discovery's
// included. A request of discovery's, which names no resource, has its
// HTTP method as its verb.
func (rs *Requests) Count(tool Tool, verb, resource string) int {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	n := 0
	for _, r := range rs.seen {
		if r.tool == tool && (verb == "" || r.req.Verb == verb) && (resource == "" || r.req.Resource == resource) {
			n++
		}
	}
	return n
}

// Reset forgets the requests recorded so far.
func (rs *Requests) Reset() {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.seen = nil
}
