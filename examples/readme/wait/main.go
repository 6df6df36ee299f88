package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"os"
	"time"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/waiter"
)

func main() {
	get := func(ctx context.Context, url string) (*http.Response, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		return resp, err
	}
	// Like Kubernetes' ConditionFunc: done, a failure of its own, or poll again.
	healthy := func(url string, resp *http.Response, err error) (bool, error) {
		if err == nil && resp.StatusCode == http.StatusGone {
			return false, errors.New("the service was removed")
		}
		return err == nil && resp.StatusCode == http.StatusOK, err // the call's own error: retried if transient
	}
	// A pending answer's Retry-After (a 503's, a 202's): the next poll comes no sooner.
	retryAfter := func(resp *http.Response) time.Duration {
		d, _ := classify.RetryAfterHeader(resp.Header, time.Now())
		return d
	}
	w, err := waiter.NewFunc("ServiceHealthy", get, healthy,
		waiter.WithDelays(200*time.Millisecond, 5*time.Second), waiter.WithPollHint(retryAfter))
	if err != nil {
		log.Fatal(err)
	}
	if _, err := w.Wait(context.Background(), os.Args[1], time.Minute); err != nil {
		log.Fatal(err)
	}
	fmt.Println(os.Args[1], "is healthy")
}
