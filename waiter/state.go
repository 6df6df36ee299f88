package waiter

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"reflect"
	"slices"
	"strconv"
	"time"

	"github.com/waitable/waitable/internal/plural"
)

// StateVersion is the version of [State] this package writes and reads.
const StateVersion = 1

// State is a wait between two calls: everything the waiter's rules need to
// decide what comes next, as plain data. Every attempt's event carries the
// State after it (its checkpoint), and so does [Run.Checkpoint]; give one
// to [Waiter.Resume] (or [Waiter.WaitFrom]) to carry a wait on in another
// process with the same deadline, attempt numbering and schedule position.
//
// A State round-trips through encoding/json; its JSON form carries a
// checksum, so that a checkpoint damaged in storage is refused rather than
// resumed wrongly. Its zero value is not a wait: get one from
// [Waiter.Begin] or from an attempt (Resume and WaitFrom refuse the zero
// State as an empty checkpoint, ProblemCorrupt).
type State struct {
	// Version is StateVersion.
	Version int
	// Waiter is the name of the waiter whose wait this is, and Rules a
	// fingerprint of its rules (acceptors, delays, limits): a checkpoint
	// resumes only with the same waiter and rules.
	Waiter, Rules string
	// Start is when the wait began and Deadline when it must end, on the
	// waiter's clock.
	Start, Deadline time.Time
	// Attempts is the number of calls made.
	Attempts int
	// Transient is the number of errors retried as transient in a row
	// (see WithRetryStrategy); any other outcome resets it.
	Transient int
	// MaxLatency is the longest call so far: the time kept for the final
	// call, up to MinDelay.
	MaxLatency time.Duration
	// Seed draws the jitter of each delay (with the default jitter), so
	// that a resumed or replayed wait makes the same delays.
	Seed uint64
	// Next is when the next call is due (zero before the first, and once
	// the wait has ended).
	Next time.Time
	// Streak is how many times in a row the success acceptor has matched,
	// and StreakStart when the first of them was made (WithStability).
	Streak      int
	StreakStart time.Time
	// NotFound is how many not-found answers came in a row
	// (WithNotFoundLimit), and Identity the resource's identity as last
	// seen (WithIdentity).
	NotFound int
	Identity string
	// Seen counts the wait's answers by kind (see [Seen]).
	Seen Seen
	// End is how the wait ended ("success", "failure", "timeout",
	// "max_polls", "cancelled", "panic": the telemetry package's
	// Outcome names), "" while it goes on. A checkpoint of an ended wait
	// is refused by Resume and WaitFrom as ProblemEnded: there is nothing
	// left to do.
	End string
}

// stateJSON is State's JSON form.
type stateJSON struct {
	Version     int           `json:"version"`
	Waiter      string        `json:"waiter"`
	Rules       string        `json:"rules"`
	Start       time.Time     `json:"start"`
	Deadline    time.Time     `json:"deadline"`
	Attempts    int           `json:"attempts"`
	Transient   int           `json:"transient"`
	MaxLatency  time.Duration `json:"maxLatencyNs"`
	Seed        uint64        `json:"seed,string"`
	Next        time.Time     `json:"next,omitzero"`
	Streak      int           `json:"streak,omitempty"`
	StreakStart time.Time     `json:"streakStart,omitzero"`
	NotFound    int           `json:"notFound,omitempty"`
	Identity    string        `json:"identity,omitempty"`
	Seen        Seen          `json:"seen,omitempty"`
	End         string        `json:"end,omitempty"`
	Sum         string        `json:"sum"`
}

// sum is the checksum of everything but itself.
func (j stateJSON) sum() string {
	j.Sum = ""
	b, _ := json.Marshal(j) // a struct of plain fields always encodes
	h := fnv.New64a()
	h.Write(b)
	return strconv.FormatUint(h.Sum64(), 16)
}

// MarshalJSON encodes the state with a checksum.
func (s State) MarshalJSON() ([]byte, error) {
	j := stateJSON(s.jsonForm())
	j.Sum = j.sum()
	return json.Marshal(j)
}

func (s State) jsonForm() stateJSON {
	return stateJSON{Version: s.Version, Waiter: s.Waiter, Rules: s.Rules, Start: s.Start, Deadline: s.Deadline,
		Attempts: s.Attempts, Transient: s.Transient, MaxLatency: s.MaxLatency, Seed: s.Seed, Next: s.Next, Streak: s.Streak, StreakStart: s.StreakStart, NotFound: s.NotFound, Identity: s.Identity, Seen: s.Seen, End: s.End}
}

// UnmarshalJSON decodes a state and checks its checksum and version: a
// damaged or foreign checkpoint is an error matching [ErrCheckpoint].
// Bytes that are not a checkpoint at all (null, {}, another JSON object)
// are ProblemCorrupt, not ProblemVersion; null and {} say that the
// checkpoint is empty.
func (s *State) UnmarshalJSON(b []byte) error {
	var j stateJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return &CheckpointError{Problem: ProblemCorrupt, Err: err}
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(b, &members) == nil && len(members) == 0 {
		return &CheckpointError{Problem: ProblemCorrupt, Err: fmt.Errorf("empty checkpoint: %s holds no wait", bytes.TrimSpace(b))}
	}
	if j.Version == 0 || j.Sum == "" {
		return &CheckpointError{Problem: ProblemCorrupt, Err: fmt.Errorf("not a checkpoint: no version or checksum in %.40q", b)}
	}
	if j.Version != StateVersion {
		return &CheckpointError{Problem: ProblemVersion, Err: fmt.Errorf("version %d, this package reads version %d", j.Version, StateVersion)}
	}
	if j.Sum == "" || j.Sum != j.sum() {
		return &CheckpointError{Problem: ProblemCorrupt, Err: errors.New("checksum mismatch: the checkpoint was changed or damaged")}
	}
	*s = State{Version: j.Version, Waiter: j.Waiter, Rules: j.Rules, Start: j.Start, Deadline: j.Deadline,
		Attempts: j.Attempts, Transient: j.Transient, MaxLatency: j.MaxLatency, Seed: j.Seed, Next: j.Next, Streak: j.Streak, StreakStart: j.StreakStart, NotFound: j.NotFound, Identity: j.Identity, Seen: j.Seen, End: j.End}
	return nil
}

// ParseCheckpoint decodes a State from its JSON form. Unlike
// json.Unmarshal, whose syntax errors come before a type's own checks, it
// reports every problem, malformed JSON included, as a [*CheckpointError].
func ParseCheckpoint(data []byte) (State, error) {
	var s State
	if err := s.UnmarshalJSON(data); err != nil {
		return State{}, err
	}
	return s, nil
}

// ErrCheckpoint is matched by errors.Is for every [*CheckpointError].
var ErrCheckpoint = errors.New("waiter: bad checkpoint")

// Problem says what is wrong with a checkpoint.
type Problem string

// The problems a checkpoint can have.
const (
	ProblemVersion Problem = "version"        // written by an incompatible version of this package
	ProblemWaiter  Problem = "another waiter" // a checkpoint of another waiter
	ProblemRules   Problem = "other rules"    // the waiter's acceptors, delays or limits changed since
	ProblemCorrupt Problem = "corrupt"        // damaged, empty (the zero State, {} or null), or not a checkpoint at all
	ProblemEnded   Problem = "ended"          // the wait it records has ended: nothing to resume
)

// CheckpointError is a checkpoint that cannot be resumed: which problem,
// and the details.
type CheckpointError struct {
	Problem Problem
	Err     error
}

// Error returns "waiter: checkpoint: <problem>: <details>".
func (e *CheckpointError) Error() string {
	return fmt.Sprintf("waiter: checkpoint: %s: %v", e.Problem, e.Err)
}

// Is matches [ErrCheckpoint].
func (e *CheckpointError) Is(target error) bool { return target == ErrCheckpoint }

// Unwrap returns the details.
func (e *CheckpointError) Unwrap() error { return e.Err }

// empty reports whether s is the zero State (its Seen nil or empty).
func (s State) empty() bool {
	s.Seen = nil
	return reflect.ValueOf(s).IsZero()
}

// check reports whether s can be resumed by w.
func (w *Waiter[I, O]) check(s State) error {
	bad := func(p Problem, format string, args ...any) error {
		return &CheckpointError{Problem: p, Err: fmt.Errorf(format, args...)}
	}
	switch {
	case s.empty():
		return bad(ProblemCorrupt, "empty checkpoint: the zero State is not a wait (get one from Begin, an attempt's Checkpoint or Run.Checkpoint)")
	case s.Version != StateVersion:
		return bad(ProblemVersion, "version %d, this package reads version %d", s.Version, StateVersion)
	case s.Waiter != w.def.Name:
		return bad(ProblemWaiter, "the checkpoint is of waiter %q, not %q", s.Waiter, w.def.Name)
	case s.Rules != w.rules:
		return bad(ProblemRules, "waiter %s's rules changed since the checkpoint (fingerprint %s, now %s)", s.Waiter, s.Rules, w.rules)
	case s.End != "":
		return bad(ProblemEnded, "the wait ended (%s) after %s, at the latest %v", s.End, plural.N(s.Attempts, "poll"), s.Deadline)
	case s.Attempts > 0 && s.Next.IsZero():
		// An ended wait's checkpoint from before State.End was kept.
		return bad(ProblemEnded, "the wait ended after %s: no next call is due", plural.N(s.Attempts, "poll"))
	case s.Attempts < 0 || s.Transient < 0 || s.Transient > s.Attempts || s.MaxLatency < 0 || s.Streak < 0 || s.Streak > s.Attempts || s.NotFound < 0 || s.NotFound > s.Attempts:
		return bad(ProblemCorrupt, "attempts %d, transient %d, streak %d, max latency %v", s.Attempts, s.Transient, s.Streak, s.MaxLatency)
	case s.Start.IsZero() || !s.Deadline.After(s.Start):
		return bad(ProblemCorrupt, "start %v, deadline %v", s.Start, s.Deadline)
	case s.Attempts > 0 && (s.Next.Before(s.Start) || s.Next.After(s.Deadline)):
		return bad(ProblemCorrupt, "next call at %v, outside the wait (%v to %v)", s.Next, s.Start, s.Deadline)
	}
	return nil
}

// snapshot returns a copy of s that its wait's counting does not change:
// the wait counts its Seen in place.
func (s *State) snapshot() State {
	c := *s
	c.Seen = slices.Clone(s.Seen)
	return c
}

// frozen is a copy of a State that nothing changes, with room for one
// kind of answer seen in the same allocation: most waits see one kind
// until their last answer.
type frozen struct {
	s    State
	seen [1]SeenCount
}

// freezeState returns a snapshot of s on the heap, in one allocation
// when s has seen at most one kind of answer.
func freezeState(s *State) *State {
	f := &frozen{s: *s}
	switch {
	case s.Seen == nil: // stays nil
	case len(s.Seen) <= len(f.seen):
		f.s.Seen = append(f.seen[:0:len(f.seen)], s.Seen...)
	default:
		f.s.Seen = slices.Clone(s.Seen)
	}
	return &f.s
}

// same reports whether s and t are the same checkpoint: every field
// equal (times with ==: the same reading), Seen element by element.
func (s *State) same(t *State) bool {
	return s.Version == t.Version && s.Waiter == t.Waiter && s.Rules == t.Rules &&
		s.Start == t.Start && s.Deadline == t.Deadline && s.Attempts == t.Attempts &&
		s.Transient == t.Transient && s.MaxLatency == t.MaxLatency && s.Seed == t.Seed &&
		s.Next == t.Next && s.Streak == t.Streak && s.StreakStart == t.StreakStart &&
		s.NotFound == t.NotFound && s.Identity == t.Identity && s.End == t.End &&
		slices.Equal(s.Seen, t.Seen)
}
