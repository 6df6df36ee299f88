package waiter

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestDueHeapOrder: the Batch's heap gives its members back in the order
// of their instants through any mix of additions, moves (earlier and
// later) and removals, and every member knows its place.
func TestDueHeapOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	base := time.Unix(0, 0)
	for round := range 200 {
		var h dueHeap[int, int]
		var ms []*member[int, int]
		at := map[*member[int, int]]time.Time{}
		for range rng.IntN(300) {
			switch op := rng.IntN(4); {
			case op < 2 || len(ms) == 0: // add
				m := &member[int, int]{index: -1}
				ms = append(ms, m)
				at[m] = base.Add(time.Duration(rng.IntN(50)) * time.Second)
				h.set(m, at[m])
			case op == 2: // move
				m := ms[rng.IntN(len(ms))]
				at[m] = base.Add(time.Duration(rng.IntN(50)) * time.Second)
				h.set(m, at[m])
			default: // remove
				k := rng.IntN(len(ms))
				h.remove(ms[k])
				if ms[k].index != -1 {
					t.Fatalf("round %d: a removed member's index is %d, want -1", round, ms[k].index)
				}
				delete(at, ms[k])
				ms = slices.Delete(ms, k, k+1)
			}
			for i, s := range h.slots {
				if s.m.index != i {
					t.Fatalf("round %d: the member at %d says it is at %d", round, i, s.m.index)
				}
			}
		}
		want := make([]time.Time, 0, len(ms))
		for _, m := range ms {
			want = append(want, at[m])
		}
		slices.SortFunc(want, time.Time.Compare)
		var got []time.Time
		for len(h.slots) > 0 {
			root := h.slots[0].m
			got = append(got, h.next())
			if !h.next().Equal(at[root]) {
				t.Fatalf("round %d: the root is at %v, its member was set to %v", round, h.next(), at[root])
			}
			if h.reached(h.next().Add(-1)) != nil || h.reached(h.next()) != root {
				t.Fatalf("round %d: reached is wrong around the root's instant %v", round, h.next())
			}
			h.remove(root)
		}
		if !slices.EqualFunc(got, want, time.Time.Equal) {
			t.Fatalf("round %d: the heap gave %v, want %v", round, got, want)
		}
	}
}
