package main

import (
	"fmt"
	"net"
	"net/http"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/client-go/discovery"
)

// waitable kube's exit statuses for the API server's trouble, as
// sysexits.h names them: a script retries the first later, and asks for
// access on the second, where it would roll back on a failure (1).
const (
	// exitUnavailable (EX_UNAVAILABLE): the API server could not be
	// reached, or answered 5xx, until the end.
	exitUnavailable = 69
	// exitNoPerm (EX_NOPERM): the API server refused our credentials
	// (401) or the resource (403).
	exitNoPerm = 77
)

// serverError is an error of the API server that the command reports as
// exitUnavailable or exitNoPerm: it names the server and the last error.
type serverError struct {
	server string // the API server's URL
	code   int    // exitUnavailable or exitNoPerm
	err    error
}

func (e serverError) Error() string {
	if e.code == exitNoPerm {
		return fmt.Sprintf("the API server %s refused access: %v", e.server, e.err)
	}
	return fmt.Sprintf("the API server %s could not be reached: %v", e.server, e.err)
}

func (e serverError) Unwrap() error { return e.err }

// serverTrouble returns the exit status that err says of the API server,
// and the error that says it:
// exitNoPerm for a 401 or a 403, exitUnavailable for a 5xx or a
// connection that failed (refused, reset, no route, a name not
// resolved, a TLS handshake that failed), 0 for anything else (a 404, a
// 429, an object that failed, a timeout with no error).
func serverTrouble(err error) (int, error) {
	code := 0
	var said error
	walkErrors(err, func(e error) bool {
		var status apierrors.APIStatus
		if s, ok := e.(apierrors.APIStatus); ok {
			status = s
		}
		switch {
		case status != nil && (status.Status().Code == http.StatusUnauthorized || status.Status().Code == http.StatusForbidden):
			code = exitNoPerm
		case status != nil && status.Status().Code >= http.StatusInternalServerError:
			code = exitUnavailable
		case status != nil:
			return true // an answer of the server: no more to learn below it
		default:
			switch e.(type) {
			case *net.OpError, *net.DNSError:
				code = exitUnavailable
			}
		}
		if code != 0 {
			said = e
		}
		return code != 0
	})
	return code, said
}

// serverFault returns err as a serverError of server, if it says the API
// server could not be reached or refused access; otherwise nil.
func serverFault(server string, err error) error {
	code, said := serverTrouble(err)
	if code == 0 {
		return nil
	}
	return serverError{server: server, code: code, err: said}
}

// walkErrors calls f with err and every error it wraps, depth first,
// until f returns true. It reads apimachinery's aggregates and discovery's
// errors of several groups, which errors.As does not.
func walkErrors(err error, f func(error) bool) bool {
	if err == nil {
		return false
	}
	if f(err) {
		return true
	}
	var wrapped []error
	switch e := err.(type) {
	case utilerrors.Aggregate:
		wrapped = e.Errors()
	case *discovery.ErrGroupDiscoveryFailed:
		for _, g := range e.Groups {
			wrapped = append(wrapped, g)
		}
	case interface{ Unwrap() []error }:
		wrapped = e.Unwrap()
	case interface{ Unwrap() error }:
		wrapped = []error{e.Unwrap()}
	}
	for _, w := range wrapped {
		if walkErrors(w, f) {
			return true
		}
	}
	return false
}

// lastAnswer records how the API server answered the command's last
// request: a script is told the server was unavailable when the wait
// timed out on a server that answered 5xx, or could not be reached, to
// the end (its list failing while the wait waited for the object), and
// that it refused access when it last answered 401 or 403. A request the
// command cancelled (the end of a watch) is no answer.
type lastAnswer struct {
	server string
	mu     sync.Mutex
	fault  error // a serverError, or nil when the last answer was no trouble
	// first is the first serverError since mark: a discovery that failed
	// on one API group, then went on, is one the server did not answer.
	first error
}

// wrap is a rest.Config's WrapTransport: it records each answer of rt.
func (l *lastAnswer) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripper(func(req *http.Request) (*http.Response, error) {
		resp, err := rt.RoundTrip(req)
		if req.Context().Err() != nil {
			return resp, err
		}
		var fault error
		switch {
		case err != nil:
			fault = serverError{server: l.server, code: exitUnavailable, err: err}
		case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
			fault = serverError{server: l.server, code: exitNoPerm, err: answerError(req, resp)}
		case resp.StatusCode >= http.StatusInternalServerError:
			fault = serverError{server: l.server, code: exitUnavailable, err: answerError(req, resp)}
		}
		l.mu.Lock()
		l.fault = fault
		if l.first == nil {
			l.first = fault
		}
		l.mu.Unlock()
		return resp, err
	})
}

// last returns the serverError of the last answer, or nil.
func (l *lastAnswer) last() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.fault
}

// mark forgets the answers so far, for [lastAnswer.since].
func (l *lastAnswer) mark() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.first = nil
}

// since returns the first serverError since mark, or nil.
func (l *lastAnswer) since() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.first
}

// answerError says what the server answered to req.
func answerError(req *http.Request, resp *http.Response) error {
	return fmt.Errorf("%s %s: %s", req.Method, req.URL.Path, resp.Status)
}

// roundTripper is a function that is an http.RoundTripper.
type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
