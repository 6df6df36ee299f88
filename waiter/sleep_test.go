package waiter_test

import (
	"context"
	"errors"
	"fmt"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/waitable/waitable/clocktest"
	"github.com/waitable/waitable/waiter"
)

// TestSleepingWaitIsAGoroutine: a sleeping Run (Start's, a Group's
// member's) and a sleeping WaitAll member is one goroutine in the
// waiter's sleep, as a goroutine dump shows, that makes its calls on
// time and ends at once on a poke, Run.Cancel or the end of the caller's
// context; once every wait has ended, no goroutine is left.
func TestSleepingWaitIsAGoroutine(t *testing.T) {
	const n = 1000
	for _, entry := range []string{"Start", "WaitAll", "Group"} {
		t.Run(entry, func(t *testing.T) {
			clocktest.Run(t, func(t *testing.T) {
				var calls atomic.Int32
				op := func(context.Context, GetThingInput) (*GetThingOutput, error) {
					if calls.Add(1) > 2*n {
						return status("success"), nil
					}
					return status("creating"), nil
				}
				w := mustNew(t, thingExists, op, waiter.WithDelays(time.Minute, time.Minute))
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				inputs := make([]GetThingInput, n)
				for i := range inputs {
					inputs[i] = GetThingInput{fmt.Sprint(i)}
				}
				var runs []*waiter.Run[*GetThingOutput]
				var all sync.WaitGroup
				switch entry {
				case "Start":
					for _, in := range inputs {
						runs = append(runs, w.Start(ctx, in, time.Hour))
					}
				case "WaitAll":
					all.Go(func() { waiter.WaitAll(ctx, w, inputs, time.Hour, waiter.GroupOptions{}) })
				case "Group":
					g := waiter.NewGroup(ctx, waiter.GroupOptions{})
					for _, in := range inputs {
						runs = append(runs, waiter.Go(g, in.Name, w, in, time.Hour))
					}
				}
				clocktest.Settle()
				if got := int(calls.Load()); got != n {
					t.Fatalf("%d calls once every wait made its first, want %d", got, n)
				}
				if got, _ := sleeping(); got != n {
					t.Errorf("%d goroutines in the waiter's sleep while %d waits sleep, want %d", got, n, n)
				}
				time.Sleep(time.Minute) // every wait's second call, on time
				clocktest.Settle()
				if got := int(calls.Load()); got != 2*n {
					t.Errorf("%d calls a minute later, want %d", got, 2*n)
				}
				if got, _ := sleeping(); got != n {
					t.Errorf("%d goroutines in the waiter's sleep while %d waits sleep again, want %d", got, n, n)
				}
				start := time.Now()
				if runs != nil {
					time.Sleep(time.Second) // a poke waits a second after the last call
					start = time.Now()
					runs[0].Poke() // the next call now, on a poke
					clocktest.Settle()
					if o, err := runs[0].Result(); err != nil || *o.Status != "success" || time.Since(start) != 0 {
						t.Errorf("a poked Run = %v, %v after %v; want success at once", o, err, time.Since(start))
					}
					runs[1].Cancel()
					if _, err := runs[1].Result(); !errors.Is(err, context.Canceled) || time.Since(start) != 0 {
						t.Errorf("a cancelled Run = %v after %v; want context.Canceled at once", err, time.Since(start))
					}
				}
				cancel() // the caller's context ends every sleep
				for _, r := range runs[min(2, len(runs)):] {
					if _, err := r.Result(); !errors.Is(err, context.Canceled) || time.Since(start) != 0 {
						t.Fatalf("a Run whose caller's context ended = %v after %v; want context.Canceled at once", err, time.Since(start))
					}
				}
				all.Wait()
				clocktest.Settle()
				if got, _ := sleeping(); got != 0 {
					t.Errorf("%d goroutines in the waiter's sleep once every wait ended, want 0", got)
				}
			})
			goleak.VerifyNone(t)
		})
	}
}

// TestWaitCarriesTheCallersLabels: a wait started under pprof.Do (Wait,
// Start, a Group's Go, WaitAll) makes every call, the first and those
// after its sleeps, with the caller's profiler labels in its context, and
// sleeps in a goroutine that carries them, so that a profile tells whose
// wait the work was.
func TestWaitCarriesTheCallersLabels(t *testing.T) {
	const n = 10
	for _, entry := range []string{"Wait", "Start", "Group", "WaitAll"} {
		t.Run(entry, func(t *testing.T) {
			clocktest.Run(t, func(t *testing.T) {
				var mu sync.Mutex
				calls, unlabelled := map[string]int{}, 0
				op := func(ctx context.Context, in GetThingInput) (*GetThingOutput, error) {
					mu.Lock()
					defer mu.Unlock()
					if v, ok := pprof.Label(ctx, "tenant"); !ok || v != "acme" || !callerLabelled() {
						unlabelled++
					}
					if calls[in.Name]++; calls[in.Name] == 3 {
						return status("success"), nil
					}
					return status("creating"), nil
				}
				w := mustNew(t, thingExists, op, waiter.WithDelays(time.Minute, time.Minute))
				inputs := make([]GetThingInput, n)
				for i := range inputs {
					inputs[i] = GetThingInput{fmt.Sprint(i)}
				}
				var errs []error
				var all sync.WaitGroup
				all.Go(func() {
					pprof.Do(t.Context(), pprof.Labels("tenant", "acme"), func(ctx context.Context) {
						switch entry {
						case "Wait":
							var g sync.WaitGroup
							errs = make([]error, n)
							for i, in := range inputs {
								g.Go(func() { _, errs[i] = w.Wait(ctx, in, time.Hour) })
							}
							g.Wait()
						case "Start", "Group":
							g := waiter.NewGroup(ctx, waiter.GroupOptions{})
							var runs []*waiter.Run[*GetThingOutput]
							for _, in := range inputs {
								if entry == "Start" {
									runs = append(runs, w.Start(ctx, in, time.Hour))
								} else {
									runs = append(runs, waiter.Go(g, "", w, in, time.Hour))
								}
							}
							for _, r := range runs {
								_, err := r.Result()
								errs = append(errs, err)
							}
						case "WaitAll":
							_, err := waiter.WaitAll(ctx, w, inputs, time.Hour, waiter.GroupOptions{})
							errs = append(errs, err)
						}
					})
				})
				clocktest.Settle()
				if got, labelled := sleeping(); got != n || labelled != n {
					t.Errorf("%d goroutines in the waiter's sleep, %d of them with the caller's labels; want %d, all", got, labelled, n)
				}
				time.Sleep(2 * time.Minute)
				all.Wait()
				if err := errors.Join(errs...); err != nil {
					t.Fatal(err)
				}
				for _, in := range inputs {
					if calls[in.Name] != 3 {
						t.Errorf("wait %s made %d calls, want 3", in.Name, calls[in.Name])
					}
				}
				if unlabelled != 0 {
					t.Errorf("%d of %d calls ran without the caller's labels (in their context or their goroutine), want none",
						unlabelled, 3*n)
				}
			})
		})
	}
}

// sleeping counts the goroutines in the waiter's sleep, process-wide, as
// runtime/pprof's goroutine profile shows them, and those of them whose
// labels are the caller's in TestWaitCarriesTheCallersLabels.
func sleeping() (n, labelled int) {
	var b strings.Builder
	if err := pprof.Lookup("goroutine").WriteTo(&b, 1); err != nil {
		panic(err)
	}
	// Records are separated by blank lines; each opens with "<count> @ <pcs>",
	// then its labels, if any, and its stack, a frame a line.
	for _, rec := range strings.Split(b.String(), "\n\n") {
		lines := strings.Split(strings.TrimPrefix(rec, "\n"), "\n")
		if strings.HasPrefix(lines[0], "goroutine profile:") {
			lines = lines[1:]
		}
		if len(lines) == 0 || !strings.Contains(rec, "waiter.(*loop[...]).sleep+") {
			continue
		}
		count, _, _ := strings.Cut(lines[0], " @ ")
		k, err := strconv.Atoi(count)
		if err != nil {
			panic(fmt.Sprintf("goroutine profile record %q: %v", lines[0], err))
		}
		n += k
		if strings.Contains(rec, `# labels: {"tenant":"acme"}`) {
			labelled += k
		}
	}
	return n, labelled
}

// callerLabelled reports whether the goroutine that calls it carries the
// labels of TestWaitCarriesTheCallersLabels, as the goroutine profile
// shows it (the record whose stack is writing the profile).
func callerLabelled() bool {
	var b strings.Builder
	if err := pprof.Lookup("goroutine").WriteTo(&b, 1); err != nil {
		panic(err)
	}
	for _, rec := range strings.Split(b.String(), "\n\n") {
		if strings.Contains(rec, "runtime/pprof.writeGoroutine+") {
			return strings.Contains(rec, `# labels: {"tenant":"acme"}`)
		}
	}
	panic("no goroutine writes the goroutine profile")
}

// TestPokeOrCancelAsTheTimerFires: a poke or Run.Cancel that comes at the
// instant a sleeping wait's timer fires wakes it once: never two calls at
// one instant, and a cancelled wait ends at that instant.
func TestPokeOrCancelAsTheTimerFires(t *testing.T) {
	const n = 100
	clocktest.Run(t, func(t *testing.T) {
		type wait struct {
			r     *waiter.Run[*GetThingOutput]
			calls []time.Time
		}
		waits := make([]wait, 2*n)
		start := time.Now()
		for i := range waits {
			op := func(context.Context, GetThingInput) (*GetThingOutput, error) {
				waits[i].calls = append(waits[i].calls, time.Now())
				if len(waits[i].calls) == 4 {
					return status("success"), nil
				}
				return status("creating"), nil
			}
			waits[i].r = mustNew(t, thingExists, op, waiter.WithDelays(2*time.Second, 2*time.Second)).
				Start(t.Context(), GetThingInput{fmt.Sprint(i)}, time.Hour)
			go func() {
				time.Sleep(2 * time.Second) // the instant the timer fires
				if i < n {
					waits[i].r.Poke()
				} else {
					waits[i].r.Cancel()
				}
			}()
		}
		for i := range waits {
			_, err := waits[i].r.Result()
			w := waits[i]
			for k := 1; k < len(w.calls); k++ {
				if !w.calls[k].After(w.calls[k-1]) {
					t.Fatalf("wait %d: calls at %v", i, w.calls)
				}
			}
			if i < n && (err != nil || len(w.calls) != 4) {
				t.Errorf("poked wait %d = %v after calls at %v; want success after 4", i, err, w.calls)
			}
			if i >= n {
				last := w.calls[len(w.calls)-1]
				if !errors.Is(err, context.Canceled) || len(w.calls) > 2 || last.After(start.Add(2*time.Second)) {
					t.Errorf("cancelled wait %d = %v after calls at %v; want context.Canceled, no call after +2s", i, err, w.calls)
				}
			}
		}
	})
}
