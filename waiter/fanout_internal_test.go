package waiter

import (
	"context"
	"testing"
	"time"
)

// TestGroupReleasesItsShards: the contexts a group shares its waits out
// among, under a caller's context that can end, are released once their
// last wait has ended (they would otherwise stay children of the caller's
// context as long as it lives), and made again for waits added later.
func TestGroupReleasesItsShards(t *testing.T) {
	w, err := NewFunc("ready", func(context.Context, int) (int, error) { return 0, nil },
		func(int, int, error) (bool, error) { return true, nil })
	if err != nil {
		t.Fatal(err)
	}
	g := NewGroup(t.Context(), GroupOptions{})
	for round := range 2 {
		for i := range 3 * groupShards {
			Go(g, "", w, i, time.Minute)
		}
		if err := g.Wait(); err != nil {
			t.Fatal(err)
		}
		g.mu.Lock()
		for i, sh := range g.shards {
			if sh.live != 0 || sh.ctx != nil || sh.cancel != nil {
				t.Errorf("round %d: shard %d holds %d waits after they all ended (context %v)", round, i, sh.live, sh.ctx)
			}
		}
		g.mu.Unlock()
	}
}
