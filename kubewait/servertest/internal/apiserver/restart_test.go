package apiserver_test

import (
	"context"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/waitable/waitable/kubewait/servertest/internal/apiserver"
)

// TestRestart checks that a watch through the proxy breaks when the API
// server restarts, and that the same client config works afterwards and
// finds the object created before.
func TestRestart(t *testing.T) {
	t.Parallel()
	s := apiserver.Start(t, apiserver.Options{})
	uid := s.CreateWidget(t, "default", "w1", nil)
	widgets := dynamicClient(t, s.Config).Resource(apiserver.WidgetResource).Namespace("default")
	ctx := context.Background()
	list, err := widgets.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := widgets.Watch(ctx, metav1.ListOptions{ResourceVersion: list.GetResourceVersion()})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	start := time.Now()
	s.Restart(t)
	t.Logf("Restart took %v", time.Since(start))

	for e := range w.ResultChan() {
		t.Errorf("watch from before Restart got %v, want its channel closed", e.Type)
	}
	got, err := widgets.Get(ctx, "w1", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("Get(w1) after Restart = %v, want nil", err)
	}
	if string(got.GetUID()) != uid {
		t.Errorf("Get(w1) after Restart has UID %s, want %s", got.GetUID(), uid)
	}
	direct := dynamicClient(t, s.Direct).Resource(apiserver.WidgetResource).Namespace("default")
	if _, err := direct.Get(ctx, "w1", metav1.GetOptions{}); err != nil {
		t.Errorf("Get(w1) through Direct after Restart = %v, want nil", err)
	}
	s.SetCondition(t, "default", "w1", "Ready", "True", "Restarted", "")
}

// TestCompact checks what a watch from a resourceVersion older than a
// compaction gets: a 410 Expired ERROR event with the watch cache off,
// and the events since that resourceVersion, from the cache, with it on.
func TestCompact(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		cache bool
	}{{"watch cache off", false}, {"watch cache on", true}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := apiserver.Start(t, apiserver.Options{WatchCache: &c.cache})
			s.CreateWidget(t, "default", "w1", nil)
			widgets := dynamicClient(t, s.Config).Resource(apiserver.WidgetResource).Namespace("default")
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			list, err := widgets.List(ctx, metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			s.SetStatusField(t, "default", "w1", "phase", "Pending")
			s.SetStatusField(t, "default", "w1", "phase", "Running")
			s.Compact(t)

			w, err := widgets.Watch(ctx, metav1.ListOptions{ResourceVersion: list.GetResourceVersion()})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			var e watch.Event
			select {
			case e = <-w.ResultChan():
			case <-ctx.Done():
				t.Fatal("no watch event")
			}
			if !c.cache {
				err := apierrors.FromObject(e.Object)
				if e.Type != watch.Error || !apierrors.IsResourceExpired(err) {
					t.Errorf("watch from %s after Compact got %v %v, want ERROR Expired", list.GetResourceVersion(), e.Type, err)
				}
				return
			}
			if e.Type != watch.Modified {
				t.Errorf("watch from %s after Compact got %v, want MODIFIED", list.GetResourceVersion(), e.Type)
			}
		})
	}
}
