package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// handlerClient serves requests with an http.Handler in the calling
// goroutine: the same S3 server, without sockets, so that the test runs in
// a synctest bubble in virtual time.
type handlerClient struct{ h http.Handler }

func (c handlerClient) Do(req *http.Request) (*http.Response, error) {
	if req.ContentLength > 0 { // what http.Transport would write
		req.Header.Set("Content-Length", strconv.FormatInt(req.ContentLength, 10))
	}
	rec := httptest.NewRecorder()
	c.h.ServeHTTP(rec, req)
	resp := rec.Result()
	resp.Request = req
	return resp, nil
}

// TestS3 runs the example with the real SDK client and the real fake S3
// server: the NotFound acceptor must match the SDK's own error before each
// resource exists.
func TestS3(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out bytes.Buffer
		s3 := gofakes3.New(s3mem.New()).Server()
		if err := run(t.Context(), &out, "http://s3.local", handlerClient{s3}); err != nil {
			t.Fatalf("run: %v\n%s", err, out.String())
		}
		s := out.String()
		for _, want := range []string{"BucketExists #1  +0.0s  *types.NotFound  retry", "found            success", "ObjectExists", "object is there: 14 bytes"} {
			if !strings.Contains(s, want) {
				t.Errorf("output lacks %q:\n%s", want, s)
			}
		}
	})
}
