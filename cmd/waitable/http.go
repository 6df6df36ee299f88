package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/waitable/waitable/classify"
)

// httpCommand is waitable http: it polls the URL, whose body is JSON.
func (c *cli) httpCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "http URL [flags]",
		Short: "Poll an HTTP endpoint whose body is JSON",
		Long:  "Polls URL, whose body is JSON, until a condition decides." + conditionsHelp,
	}
	var p pollFlags
	p.register(cmd.Flags())
	var hdrs headers
	cmd.Flags().VarP(&hdrs, "header", "H", "a request header, Name: value (repeatable)")
	method := cmd.Flags().String("method", "GET", "the HTTP method")
	return c.leaf(cmd, func(ctx context.Context, _ *cobra.Command, args []string) (int, error) {
		if len(args) != 1 {
			return exitUsage, usagef("want one URL, got %d arguments (%q)", len(args), args)
		}
		return p.run(ctx, "HTTP", httpCall(*method, args[0], hdrs, p.text), args[0], c.stdout, c.stderr)
	})
}

type headers []string

func (h *headers) String() string { return strings.Join(*h, ", ") }
func (h *headers) Type() string   { return "header" }

func (h *headers) Set(s string) error {
	if !strings.Contains(s, ":") {
		return fmt.Errorf("header %q is not Name: value", s)
	}
	*h = append(*h, s)
	return nil
}

// httpCall polls url.
func httpCall(method, url string, hdrs headers, text bool) call {
	return func(ctx context.Context, _ struct{}) (*output, error) {
		req, err := http.NewRequestWithContext(ctx, method, url, nil)
		if err != nil {
			return nil, err
		}
		for _, h := range hdrs {
			k, v, _ := strings.Cut(h, ":")
			req.Header.Add(strings.TrimSpace(k), strings.TrimSpace(v))
		}
		req.Header.Set("Accept", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
		if err != nil {
			return nil, err
		}
		after, _ := classify.RetryAfterHeader(resp.Header, time.Now())
		raw, problem := decode(body, text)
		out := &output{raw: raw, status: resp.StatusCode, after: after, problem: problem}
		if resp.StatusCode < 200 || resp.StatusCode > 299 {
			return nil, callFailed(fmt.Sprintf("HTTP %d", resp.StatusCode), resp.StatusCode, snippet(body), after, out)
		}
		return out, nil
	}
}
