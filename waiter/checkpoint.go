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

// checkpointVersion is the version of [Checkpoint] this package writes
// and reads.
const checkpointVersion = 1

// Checkpoint is a wait between two calls: everything the waiter's rules
// need to decide what comes next, as plain data. Every attempt's event
// carries the Checkpoint after it, and so does [Run.Checkpoint]; give one
// to [Waiter.WaitFrom] or [Waiter.StartFrom] to carry a wait on in another
// process with the same deadline, attempt numbering and schedule position.
//
// A Checkpoint round-trips through encoding/json; its JSON form carries a
// checksum, so that a checkpoint damaged in storage is refused rather than
// resumed wrongly. Its zero value is not a wait: get one from
// [Waiter.Begin] or from an attempt (WaitFrom and StartFrom refuse the
// zero Checkpoint as empty, ProblemCorrupt).
type Checkpoint struct {
	// Version is the version of the checkpoint's form (1).
	Version int `json:"version"`
	// Waiter is the name of the waiter whose wait this is, and Rules a
	// fingerprint of its rules (acceptors, delays, limits): a checkpoint
	// resumes only with the same waiter and rules.
	Waiter string `json:"waiter"`
	Rules  string `json:"rules"`
	// Start is when the wait began and Deadline when it must end, on the
	// waiter's clock.
	Start    time.Time `json:"start"`
	Deadline time.Time `json:"deadline"`
	// Attempts is the number of calls made.
	Attempts int `json:"attempts"`
	// Transients is the number of errors retried as transient in a row
	// (see WithRetryStrategy); any other outcome resets it.
	Transients int `json:"transient"`
	// MaxLatency is the longest call so far: the time kept for the final
	// call, up to MinDelay.
	MaxLatency time.Duration `json:"maxLatencyNs"`
	// Seed draws the jitter of each delay (with the default jitter), so
	// that a resumed or replayed wait makes the same delays.
	Seed uint64 `json:"seed,string"`
	// Next is when the next call is due (zero before the first, and once
	// the wait has ended).
	Next time.Time `json:"next,omitzero"`
	// Streak is how many times in a row the success acceptor has matched,
	// and StreakStart when the first of them was made (WithStability).
	Streak      int       `json:"streak,omitempty"`
	StreakStart time.Time `json:"streakStart,omitzero"`
	// NotFound is how many not-found answers came in a row
	// (WithNotFoundLimit), and Identity the resource's identity as last
	// seen (WithIdentity).
	NotFound int    `json:"notFound,omitempty"`
	Identity string `json:"identity,omitempty"`
	// Seen counts the wait's answers by kind (see [SeenCount]).
	Seen []SeenCount `json:"seen,omitempty"`
	// End is how the wait ended ("success", "failure", "timeout",
	// "max_polls", "cancelled", "panic": the telemetry package's
	// Outcome names), "" while it goes on. A checkpoint of an ended wait
	// is refused by WaitFrom and StartFrom as ProblemEnded: there is nothing
	// left to do.
	End string `json:"end,omitempty"`
	// Pending is how long after Start the last call that saw the
	// resource not there yet (an answer judged retry) started, 0 if none
	// has (or the first did): the wait's end came after it, and a
	// [Sample] of the wait says so.
	Pending time.Duration `json:"pendingNs,omitempty"`
	// Prior is what the wait learnt, as it began, from the waits before it
	// ([Waiter.Learn]), nil if it learnt nothing: each attempt's
	// [Estimate], and the delays of WithLearnedSchedule, come from it, so
	// that a resumed or replayed wait estimates and decides as the first
	// did. The waits that learnt it share it: it is not changed.
	Prior *Prior `json:"prior,omitempty"`
}

// checkpointJSON is Checkpoint's JSON form: its fields and a checksum.
type checkpointJSON struct {
	plainCheckpoint
	Sum string `json:"sum"`
}

// plainCheckpoint is a Checkpoint without its JSON methods.
type plainCheckpoint Checkpoint

// sum is the checksum of everything but itself.
func (j checkpointJSON) sum() string {
	j.Sum = ""
	b, _ := json.Marshal(j) // a struct of plain fields always encodes
	h := fnv.New64a()
	h.Write(b)
	return strconv.FormatUint(h.Sum64(), 16)
}

// MarshalJSON encodes the checkpoint with a checksum.
func (s Checkpoint) MarshalJSON() ([]byte, error) {
	j := checkpointJSON{plainCheckpoint: plainCheckpoint(s)}
	j.Sum = j.sum()
	return json.Marshal(j)
}

// UnmarshalJSON decodes a checkpoint and checks its checksum and version: a
// damaged or foreign checkpoint is an error matching [ErrCheckpoint].
// Bytes that are not a checkpoint at all (null, {}, another JSON object)
// are ProblemCorrupt, not ProblemMismatch; null and {} say that the
// checkpoint is empty.
func (s *Checkpoint) UnmarshalJSON(b []byte) error {
	var j checkpointJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return &CheckpointError{Problem: ProblemCorrupt, Err: err}
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(b, &members) == nil && len(members) == 0 {
		return &CheckpointError{
			Problem: ProblemCorrupt,
			Err:     fmt.Errorf("empty checkpoint: %s holds no wait", bytes.TrimSpace(b)),
		}
	}
	if j.Version == 0 || j.Sum == "" {
		return &CheckpointError{
			Problem: ProblemCorrupt,
			Err:     fmt.Errorf("not a checkpoint: no version or checksum in %.40q", b),
		}
	}
	if j.Version != checkpointVersion {
		return &CheckpointError{
			Problem: ProblemMismatch,
			Err: fmt.Errorf(
				"version %d, this package reads version %d",
				j.Version,
				checkpointVersion,
			),
		}
	}
	if j.Sum == "" || j.Sum != j.sum() {
		return &CheckpointError{
			Problem: ProblemCorrupt,
			Err:     errors.New("checksum mismatch: the checkpoint was changed or damaged"),
		}
	}
	*s = Checkpoint(j.plainCheckpoint)
	return nil
}

// ParseCheckpoint decodes a Checkpoint from its JSON form. Unlike
// json.Unmarshal, whose syntax errors come before a type's own checks, it
// reports every problem, malformed JSON included, as a [*CheckpointError].
func ParseCheckpoint(data []byte) (Checkpoint, error) {
	var s Checkpoint
	if err := s.UnmarshalJSON(data); err != nil {
		return Checkpoint{}, err
	}
	return s, nil
}

// ErrCheckpoint is matched by errors.Is for every [*CheckpointError].
var ErrCheckpoint = errors.New("waiter: bad checkpoint")

// Problem says what is wrong with a checkpoint.
type Problem string

// The problems a checkpoint can have.
const (
	// ProblemMismatch: the checkpoint is of another waiter, of other rules
	// (the waiter's acceptors, delays or limits changed since), or was
	// written by an incompatible version of this package. Start a new
	// wait.
	ProblemMismatch Problem = "mismatch"
	// ProblemCorrupt: damaged, empty (the zero Checkpoint, {} or null), or
	// not a checkpoint at all.
	ProblemCorrupt Problem = "corrupt"
	// ProblemEnded: the wait it records has ended; nothing to resume.
	ProblemEnded Problem = "ended"
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

// empty reports whether s is the zero Checkpoint (its Seen nil or empty).
func (s Checkpoint) empty() bool {
	s.Seen = nil
	return reflect.ValueOf(s).IsZero()
}

// check reports whether s can be resumed by w.
func (w *Waiter[I, O]) check(s Checkpoint) error {
	bad := func(p Problem, format string, args ...any) error {
		return &CheckpointError{Problem: p, Err: fmt.Errorf(format, args...)}
	}
	switch {
	case s.empty():
		return bad(
			ProblemCorrupt,
			"empty checkpoint: the zero Checkpoint is not a wait (get one from Begin, an attempt's Checkpoint or Run.Checkpoint)",
		)
	case s.Version != checkpointVersion:
		return bad(
			ProblemMismatch,
			"version %d, this package reads version %d",
			s.Version,
			checkpointVersion,
		)
	case s.Waiter != w.def.Name:
		return bad(ProblemMismatch, "the checkpoint is of waiter %q, not %q", s.Waiter, w.def.Name)
	case s.Rules != w.rules:
		return bad(
			ProblemMismatch,
			"waiter %s's rules changed since the checkpoint (fingerprint %s, now %s)",
			s.Waiter,
			s.Rules,
			w.rules,
		)
	case s.End != "":
		return bad(
			ProblemEnded,
			"the wait ended (%s) after %s, at the latest %v",
			s.End,
			plural.N(s.Attempts, "poll"),
			s.Deadline,
		)
	case s.Attempts > 0 && s.Next.IsZero():
		// An ended wait's checkpoint from before End was kept.
		return bad(
			ProblemEnded,
			"the wait ended after %s: no next call is due",
			plural.N(s.Attempts, "poll"),
		)
	case s.Attempts < 0 || s.Transients < 0 || s.Transients > s.Attempts || s.MaxLatency < 0 || s.Streak < 0 || s.Streak > s.Attempts || s.NotFound < 0 || s.NotFound > s.Attempts:
		return bad(
			ProblemCorrupt,
			"attempts %d, transient %d, streak %d, max latency %v",
			s.Attempts,
			s.Transients,
			s.Streak,
			s.MaxLatency,
		)
	case s.Prior != nil && !s.Prior.valid():
		return bad(ProblemCorrupt, "its prior is not a distribution of durations")
	case s.Pending < 0 || s.Pending > s.Deadline.Sub(s.Start):
		return bad(ProblemCorrupt, "pending %v after the start, outside the wait (%v to %v)", s.Pending, s.Start, s.Deadline)
	case s.Start.IsZero() || !s.Deadline.After(s.Start):
		return bad(ProblemCorrupt, "start %v, deadline %v", s.Start, s.Deadline)
	case s.Attempts > 0 && (s.Next.Before(s.Start) || s.Next.After(s.Deadline)):
		return bad(
			ProblemCorrupt,
			"next call at %v, outside the wait (%v to %v)",
			s.Next,
			s.Start,
			s.Deadline,
		)
	}
	return nil
}

// clone returns a copy of s whose Seen is its own: a wait counts its
// answers in place.
func (s Checkpoint) clone() Checkpoint {
	s.Seen = slices.Clone(s.Seen)
	return s
}
