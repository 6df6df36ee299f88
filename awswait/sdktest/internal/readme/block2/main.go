package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/waitable/waitable/waiter"
)

func main() {
	// Like Kubernetes' ConditionFunc: done, a failure of its own, or poll again.
	healthy := func(url string, resp *http.Response, err error) (bool, error) {
		if err != nil {
			return false, err // the call's own error: retried if transient
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusGone {
			return false, errors.New("the service was removed")
		}
		return resp.StatusCode == http.StatusOK, nil
	}
	get := func(ctx context.Context, url string) (*http.Response, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		return http.DefaultClient.Do(req)
	}
	w, err := waiter.NewFunc("ServiceHealthy", get, healthy, waiter.WithDelays(200*time.Millisecond, 5*time.Second))
	if err != nil {
		panic(err)
	}
	_, err = w.Wait(context.Background(), "http://127.0.0.1:8080/healthz", time.Minute)
	fmt.Println(err)
}
