package sdktest_test

import (
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// scripted is an HTTP client that answers each request with the next
// response of a script (the last one repeats), after its latency (of
// virtual time, in tests that run in a synctest bubble), recording the
// requests. Tests of waiters give it one: with calls that take no time at all, the waiters
// aws-sdk-go-v2 generates never leave their last second (smithy-go's
// ComputeDelay returns 0 when the time left equals MinDelay, and no time
// passes to change that).
type scripted struct {
	mu       sync.Mutex
	script   []response
	latency  time.Duration
	requests []*http.Request
}

// response is one canned HTTP response.
type response struct {
	status  int
	headers map[string]string
	body    string
}

func (s *scripted) Do(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		io.Copy(io.Discard, req.Body)
		req.Body.Close()
	}
	if s.latency > 0 {
		time.Sleep(s.latency)
	}
	s.mu.Lock()
	n := len(s.requests)
	s.requests = append(s.requests, req)
	if n%20000 == 19999 {
		println("requests", n+1, time.Now().String())
	}
	r := s.script[min(n, len(s.script)-1)]
	s.mu.Unlock()
	h := http.Header{}
	for k, v := range r.headers {
		h.Set(k, v)
	}
	return &http.Response{
		StatusCode: r.status, Status: http.StatusText(r.status), Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: h, Body: io.NopCloser(strings.NewReader(r.body)), ContentLength: int64(len(r.body)), Request: req,
	}, nil
}

func (s *scripted) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}
