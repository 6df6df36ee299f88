package apiserver_test

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/waitable/waitable/kubewait/servertest/internal/apiserver"
	"github.com/waitable/waitable/kubewait/servertest/internal/proxy"
)

// TestCount checks that a LIST, a WATCH and a GET through the proxy are
// each counted once, under their namespace, and that ResetCounts forgets
// them.
func TestCount(t *testing.T) {
	t.Parallel()
	s := apiserver.Start(t, apiserver.Options{})
	s.CreateWidget(t, "ns1", "w1", nil)
	widgets := dynamicClient(t, s.Config).Resource(apiserver.WidgetResource).Namespace("ns1")
	ctx := context.Background()

	if _, err := widgets.List(ctx, metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	w, err := widgets.Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.Stop()
	if _, err := widgets.Get(ctx, "w1", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}

	for _, c := range []struct {
		verb, resource, namespace string
		want                      int
	}{
		{"LIST", "widgets", "", 1},
		{"LIST", "widgets", "ns1", 1},
		{"LIST", "widgets", "ns2", 0},
		{"WATCH", "widgets", "ns1", 1},
		{"GET", "widgets", "ns1", 1},
		{"get", "widgets", "", 1},
		{"GET", "gadgets", "", 0},
		{"CREATE", "widgets", "", 0}, // CreateWidget goes straight to the API server
	} {
		if got := s.Count(c.verb, c.resource, c.namespace); got != c.want {
			t.Errorf("Count(%q, %q, %q) = %d, want %d", c.verb, c.resource, c.namespace, got, c.want)
		}
	}
	var get proxy.Request
	for _, r := range s.Requests() {
		if r.Verb == "GET" && r.Resource == "widgets" {
			get = r
		}
	}
	if get.Namespace != "ns1" || get.Name != "w1" || get.Status != http.StatusOK ||
		get.Path != "/apis/waitable.test/v1/namespaces/ns1/widgets/w1" || get.Time.IsZero() {
		t.Errorf("Requests() has GET %+v, want ns1/w1 at its path with status 200 and a time", get)
	}

	s.ResetCounts()
	if got := s.Count("LIST", "widgets", ""); got != 0 {
		t.Errorf("Count(LIST, widgets) after ResetCounts = %d, want 0", got)
	}
	if got := len(s.Requests()); got != 0 {
		t.Errorf("len(Requests()) after ResetCounts = %d, want 0", got)
	}
}

// TestCountSubresource checks that a write of the status subresource is
// counted as widgets/status, not as widgets.
func TestCountSubresource(t *testing.T) {
	t.Parallel()
	s := apiserver.Start(t, apiserver.Options{})
	s.CreateWidget(t, "default", "w1", nil)
	widgets := dynamicClient(t, s.Config).Resource(apiserver.WidgetResource).Namespace("default")
	ctx := context.Background()
	w, err := widgets.Get(ctx, "w1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.Object["status"] = map[string]any{"phase": "Running"}
	if _, err := widgets.UpdateStatus(ctx, w, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := s.Count("UPDATE", "widgets/status", "default"); got != 1 {
		t.Errorf("Count(UPDATE, widgets/status, default) = %d, want 1", got)
	}
	if got := s.Count("UPDATE", "widgets", ""); got != 0 {
		t.Errorf("Count(UPDATE, widgets) = %d, want 0", got)
	}
}

// TestAnyCredentials checks that the proxy forwards a request with a
// wrong bearer token, or none, as kubectl sends over plain HTTP.
func TestAnyCredentials(t *testing.T) {
	t.Parallel()
	s := apiserver.Start(t, apiserver.Options{})
	for _, token := range []string{"wrong", ""} {
		config := rest.CopyConfig(s.Config)
		config.BearerToken = token
		_, err := dynamicClient(t, config).Resource(apiserver.WidgetResource).List(context.Background(), metav1.ListOptions{})
		if err != nil {
			t.Errorf("List with token %q = %v, want nil", token, err)
		}
	}
}

// TestFaultForbiddenWatch checks that a 403 fault on watches reaches a
// client-go dynamic client as a Forbidden error, and that the requests
// the fault spares are forwarded.
func TestFaultForbiddenWatch(t *testing.T) {
	t.Parallel()
	s := apiserver.Start(t, apiserver.Options{})
	s.SetFault(func(r *http.Request) *proxy.Fault {
		if proxy.Classify(r).Verb == "WATCH" {
			return &proxy.Fault{Status: http.StatusForbidden}
		}
		return nil
	})
	widgets := dynamicClient(t, s.Config).Resource(apiserver.WidgetResource).Namespace("default")
	ctx := context.Background()

	_, err := widgets.Watch(ctx, metav1.ListOptions{})
	if !apierrors.IsForbidden(err) {
		t.Errorf("Watch(widgets) = %v, want Forbidden", err)
	}
	if _, err := widgets.List(ctx, metav1.ListOptions{}); err != nil {
		t.Errorf("List(widgets) = %v, want nil", err)
	}
	if got := s.Count("WATCH", "widgets", "default"); got != 1 {
		t.Errorf("Count(WATCH) = %d, want 1", got)
	}
	if got := s.Requests()[0].Status; got != http.StatusForbidden {
		t.Errorf("Requests()[0].Status = %d, want 403", got)
	}

	s.SetFault(nil)
	w, err := widgets.Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("Watch(widgets) after SetFault(nil) = %v, want nil", err)
	}
	w.Stop()
}

// noRetries is a REST client whose requests client-go does not retry, so
// that a test sees the first response.
type noRetries struct{ rest.Interface }

func (c noRetries) Get() *rest.Request { return c.Interface.Get().MaxRetries(0) }

// TestFaultTooManyRequests checks that a 429 fault with Retry-After: 2
// reaches client-go as TooManyRequests with a suggested delay of 2
// seconds, in the metav1.Status that the proxy writes.
func TestFaultTooManyRequests(t *testing.T) {
	t.Parallel()
	s := apiserver.Start(t, apiserver.Options{})
	s.SetFault(func(r *http.Request) *proxy.Fault {
		return &proxy.Fault{Status: http.StatusTooManyRequests, Header: http.Header{"Retry-After": {"2"}}}
	})
	rc, err := rest.UnversionedRESTClientFor(dynamic.ConfigFor(s.Config))
	if err != nil {
		t.Fatal(err)
	}
	widgets := dynamic.New(noRetries{rc}).Resource(apiserver.WidgetResource).Namespace("default")

	_, err = widgets.List(context.Background(), metav1.ListOptions{})
	if !apierrors.IsTooManyRequests(err) {
		t.Fatalf("List(widgets) = %v, want TooManyRequests", err)
	}
	if delay, ok := apierrors.SuggestsClientDelay(err); !ok || delay != 2 {
		t.Errorf("SuggestsClientDelay(%v) = %d, %v, want 2, true", err, delay, ok)
	}
	var status *apierrors.StatusError
	if !errors.As(err, &status) || status.ErrStatus.Reason != metav1.StatusReasonTooManyRequests ||
		status.ErrStatus.Details == nil || status.ErrStatus.Details.RetryAfterSeconds != 2 {
		t.Errorf("List(widgets) = %#v, want the proxy's metav1.Status with reason TooManyRequests and details.retryAfterSeconds 2", err)
	}
}

// TestClientGoRetriesTooManyRequests shows what a client under test must
// know: client-go itself retries a GET, LIST or WATCH that gets a 429 (or
// a 5xx) with a Retry-After header, up to 10 times, sleeping for the
// header's seconds in between. Here Retry-After is 0, so that the retries
// cost no time.
func TestClientGoRetriesTooManyRequests(t *testing.T) {
	t.Parallel()
	s := apiserver.Start(t, apiserver.Options{})
	s.CreateWidget(t, "default", "w1", nil)
	var faults atomic.Int32
	s.SetFault(func(r *http.Request) *proxy.Fault {
		if faults.Add(1) > 2 {
			return nil
		}
		return &proxy.Fault{Status: http.StatusTooManyRequests, Header: http.Header{"Retry-After": {"0"}}}
	})
	widgets := dynamicClient(t, s.Config).Resource(apiserver.WidgetResource).Namespace("default")
	if _, err := widgets.Get(context.Background(), "w1", metav1.GetOptions{}); err != nil {
		t.Fatalf("Get(w1) = %v, want nil after client-go's retries", err)
	}
	if got := s.Count("GET", "widgets", "default"); got != 3 {
		t.Errorf("Count(GET) = %d, want 3 (two 429s, then the answer)", got)
	}
}

// TestFaultStatus checks the response a Fault makes, as client-go reads
// it: the metav1.Status written for an empty Body has the reason of the
// status code (Expired for 410), a Body is written as it is, and Header is
// sent.
func TestFaultStatus(t *testing.T) {
	t.Parallel()
	s := apiserver.Start(t, apiserver.Options{})
	rc, err := rest.UnversionedRESTClientFor(dynamic.ConfigFor(s.Config))
	if err != nil {
		t.Fatal(err)
	}
	widgets := dynamic.New(noRetries{rc}).Resource(apiserver.WidgetResource).Namespace("default")
	for _, c := range []struct {
		name  string
		fault proxy.Fault
		is    func(error) bool
	}{
		{"403", proxy.Fault{Status: http.StatusForbidden}, apierrors.IsForbidden},
		{"404", proxy.Fault{Status: http.StatusNotFound}, apierrors.IsNotFound},
		{"410", proxy.Fault{Status: http.StatusGone}, apierrors.IsResourceExpired},
		{"429", proxy.Fault{Status: http.StatusTooManyRequests}, apierrors.IsTooManyRequests},
		{"500", proxy.Fault{Status: http.StatusInternalServerError}, apierrors.IsInternalError},
		{"503", proxy.Fault{Status: http.StatusServiceUnavailable}, apierrors.IsServiceUnavailable},
		{"body", proxy.Fault{Status: http.StatusConflict, Header: http.Header{"Content-Type": {"application/json"}},
			Body: `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"AlreadyExists","code":409}`},
			apierrors.IsAlreadyExists},
		{"header", proxy.Fault{Status: http.StatusTooManyRequests, Header: http.Header{"Retry-After": {"7"}}},
			func(err error) bool { d, ok := apierrors.SuggestsClientDelay(err); return ok && d == 7 }},
	} {
		t.Run(c.name, func(t *testing.T) {
			s.SetFault(func(*http.Request) *proxy.Fault { return &c.fault })
			_, err := widgets.Get(context.Background(), "w1", metav1.GetOptions{})
			if !c.is(err) {
				t.Errorf("Get with Fault %+v = %v", c.fault, err)
			}
		})
	}
}
