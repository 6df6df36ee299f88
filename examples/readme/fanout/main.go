package main

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"os"
	"time"

	"golang.org/x/time/rate"

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
	healthy := func(url string, resp *http.Response, err error) (bool, error) {
		return err == nil && resp.StatusCode == http.StatusOK, err
	}
	w, err := waiter.NewFunc("ServiceHealthy", get, healthy, waiter.WithDelays(200*time.Millisecond, 5*time.Second),
		waiter.WithPollHint(func(resp *http.Response) time.Duration {
			d, _ := classify.RetryAfterHeader(resp.Header, time.Now())
			return d
		}),
		waiter.WithPollRateLimit(rate.NewLimiter(20, 1))) // every wait's calls together: at most 20 a second
	if err != nil {
		log.Fatal(err)
	}
	urls := os.Args[1:]
	outs, err := waiter.WaitAll(context.Background(), w, urls, time.Minute, waiter.GroupOptions{Concurrency: 10}) // 10 waits at a time
	for i, o := range outs {
		fmt.Println(urls[i], "healthy:", o.Err == nil)
	}
	if err != nil {
		log.Fatal(err)
	}
}
