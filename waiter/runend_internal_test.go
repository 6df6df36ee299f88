package waiter

import (
	"context"
	"reflect"
	"runtime"
	"testing"
	"time"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/clocktest"
)

// TestStateSameComparesEveryField: same tells two checkpoints apart by any
// one field (a field added to State and not to same fails here), and a
// Seen by any element.
func TestStateSameComparesEveryField(t *testing.T) {
	base := func() State {
		at := time.Unix(1000, 0)
		return State{Version: StateVersion, Waiter: "w", Rules: "r", Start: at, Deadline: at.Add(time.Hour),
			Attempts: 2, Transient: 1, MaxLatency: time.Second, Seed: 7, Next: at.Add(time.Minute), Streak: 1,
			StreakStart: at.Add(time.Second), NotFound: 1, Identity: "id", End: "",
			Seen: Seen{{Acceptor: 0, State: "retry", N: 2}}}
	}
	a, b := base(), base()
	if !a.same(&b) {
		t.Fatal("two equal States are not the same")
	}
	v := reflect.ValueOf(&b).Elem()
	for i := range v.NumField() {
		b = base()
		f := v.Field(i)
		switch f.Kind() {
		case reflect.Int, reflect.Int64:
			f.SetInt(f.Int() + 1)
		case reflect.Uint64:
			f.SetUint(f.Uint() + 1)
		case reflect.String:
			f.SetString(f.String() + "x")
		case reflect.Slice: // Seen
			b.Seen = Seen{{Acceptor: 0, State: "retry", N: 3}}
		case reflect.Struct: // a time.Time
			f.Set(reflect.ValueOf(f.Interface().(time.Time).Add(time.Nanosecond)))
		default:
			t.Fatalf("field %s: no other value for %s", v.Type().Field(i).Name, f.Type())
		}
		if a.same(&b) {
			t.Errorf("States that differ in %s are the same", v.Type().Field(i).Name)
		}
	}
	b = base()
	b.Seen = append(b.Seen, SeenCount{Acceptor: 1, State: "success", N: 1})
	if a.same(&b) {
		t.Error("States that differ in Seen's length are the same")
	}
}

// TestFreezeStateCopies: a frozen State is a copy the wait's counting in
// place does not change, whatever the number of kinds seen, and a State
// that has seen nothing keeps a nil Seen.
func TestFreezeStateCopies(t *testing.T) {
	for _, kinds := range []int{0, 1, 2, 3} {
		var s State
		s.Attempts = kinds
		for k := range kinds {
			s.Seen = append(s.Seen, SeenCount{Acceptor: k, State: "retry", N: 1})
		}
		f := freezeState(&s)
		if !f.same(&s) {
			t.Fatalf("%d kinds: frozen %+v, want %+v", kinds, *f, s)
		}
		if kinds == 0 {
			if f.Seen != nil {
				t.Errorf("0 kinds: frozen Seen %#v, want nil", f.Seen)
			}
			continue
		}
		s.Seen[0].N++
		if f.Seen[0].N != 1 {
			t.Errorf("%d kinds: counting in place changed the frozen Seen", kinds)
		}
		if kinds == 1 && cap(f.Seen) != len(f.Seen) { // room to spare: two appends to it would share it
			t.Errorf("1 kind: the frozen Seen has capacity %d", cap(f.Seen))
		}
	}
	one := State{Seen: Seen{{State: "retry", N: 1}}}
	if n := testing.AllocsPerRun(100, func() { freezeState(&one) }); n != 1 {
		t.Errorf("freezing a State that has seen one kind: %v allocations, want 1", n)
	}
}

// TestEndedRunKeepsLittle: once a wait has ended, its Run lets the driver
// go (the runner, its context and timer are garbage), and its final State,
// when it is the newest attempt's checkpoint, is kept once.
func TestEndedRunKeepsLittle(t *testing.T) {
	gone := make(chan struct{}) // made out of the bubble: the cleanup runs out of it
	var r *Run[string]          // kept alive until the end
	clocktest.Run(t, func(t *testing.T) {
		calls := 0
		op := func(context.Context, string) (string, error) {
			calls++
			if calls == 3 {
				return "ready", nil
			}
			return "pending", nil
		}
		def := Definition{Name: "Ready", Acceptors: []classify.Acceptor{
			{State: classify.Success, Matcher: classify.OnOutput("@", classify.StringEquals, "ready")},
		}}
		w, err := New(def, op, WithDelays(time.Second, time.Second))
		if err != nil {
			t.Fatal(err)
		}
		r = w.Start(t.Context(), "a", time.Hour)
		rn := r.driver().(*runner[string, string])
		runtime.AddCleanup(rn, func(ch chan struct{}) { close(ch) }, gone)
		rn = nil
		for range 2 {
			clocktest.Settle()
			clocktest.Advance(time.Second)
		}
		if _, err := r.Result(); err != nil {
			t.Fatal(err)
		}
		if c := r.driver(); c != nil {
			t.Errorf("an ended Run holds its driver %T", c)
		}
		r.Poke() // no-ops once the wait has ended
		r.Cancel()
		r.mu.Lock()
		k := r.ev.newest()
		if k == nil || r.cp != k.cp || r.own != nil {
			t.Errorf("final checkpoint kept twice: the Run's %p, its own %p, the newest attempt's %p", r.cp, r.own, k.cp)
		}
		r.mu.Unlock()
		if cp := r.Checkpoint(); cp.Attempts != 3 || cp.End != "success" {
			t.Errorf("final Checkpoint: %d attempts, end %q; want 3, success", cp.Attempts, cp.End)
		}
	})
	for range 100 { // the runner is garbage while the Run lives: a collection runs its cleanup
		runtime.GC()
		select {
		case <-gone:
			runtime.KeepAlive(r)
			return
		default:
			runtime.Gosched()
		}
	}
	t.Fatal("the runner of an ended wait was not collected while its Run lives")
}
