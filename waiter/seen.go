package waiter

import (
	"fmt"
	"strings"

	"github.com/waitable/waitable/classify"
)

// Seen counts a wait's answers by what they were: which acceptor matched
// and the state it gave, and for an error its code. Every attempt's
// checkpoint carries it, an [*Error] holds it, and [Run.Seen] returns it,
// so that a wait that failed or timed out says what it saw all along (as
// aws-sdk-js-v3's observedResponses does). The Seen of an event's
// checkpoint, of a Run or of an Error is not changed afterwards.
type Seen []SeenCount

// SeenCount is how many answers of one kind a wait saw.
type SeenCount struct {
	// Acceptor is the index of the acceptor that matched, -1 for none.
	Acceptor int `json:"acceptor"`
	// State is what the answer did to the wait: "success", "failure",
	// "retry", or "timeout" for a call cut off by the deadline.
	State string `json:"state"`
	// Code is the error's code (classify's Verdict.Code, or the HTTP
	// status as "HTTP 503"), "error" for an error with neither, "" for an
	// output.
	Code string `json:"code,omitempty"`
	// N is how many there were.
	N int `json:"n"`
}

// maxSeen bounds the kinds a Seen keeps: answers of further kinds (a
// service that puts a request id in its error codes) are counted in one
// entry whose State and Code are "other".
const maxSeen = 32

// add returns s with one more answer of kind k (k.N is ignored),
// counted in place: the wait's own Seen is its alone (Step and the events
// take copies).
func (s Seen) add(k SeenCount) Seen {
	i := s.index(k)
	if i < 0 && len(s) >= maxSeen-1 {
		k = SeenCount{Acceptor: -1, State: "other", Code: "other"}
		i = s.index(k)
	}
	if i < 0 {
		k.N = 1
		if s == nil {
			s = make(Seen, 0, 2) // most waits see two kinds: what they waited through, and their end
		}
		return append(s, k)
	}
	s[i].N++
	return s
}

// again counts an output (not an error, not cut off) of the same kind as
// the last one counted, in place, and reports whether it did: the common
// case of a wait that sees the same answer poll after poll, without
// building its kind.
func (s Seen) again(o *Poll, state classify.State) bool {
	if o.Err != nil || o.Late || len(s) == 0 {
		return false
	}
	c := &s[len(s)-1]
	if c.Acceptor != o.Acceptor || c.Code != "" || c.State != state.String() {
		return false
	}
	c.N++
	return true
}

// index returns where the kind of k is in s, -1 if it is not: the last
// first, as the answers of a wait mostly repeat.
func (s Seen) index(k SeenCount) int {
	for i := len(s) - 1; i >= 0; i-- {
		if c := &s[i]; c.Acceptor == k.Acceptor && c.State == k.State && c.Code == k.Code {
			return i
		}
	}
	return -1
}

// Total returns the number of answers counted.
func (s Seen) Total() int {
	n := 0
	for _, c := range s {
		n += c.N
	}
	return n
}

// String reads like "3 × acceptor 1 retry, 2 × ThrottlingException retry,
// 1 × acceptor 0 success".
func (s Seen) String() string {
	var b strings.Builder
	for i, c := range s {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d × ", c.N)
		switch {
		case c.Code != "" && c.Acceptor >= 0:
			fmt.Fprintf(&b, "%s (acceptor %d) %s", c.Code, c.Acceptor, c.State)
		case c.Code != "":
			fmt.Fprintf(&b, "%s %s", c.Code, c.State)
		case c.Acceptor >= 0:
			fmt.Fprintf(&b, "acceptor %d %s", c.Acceptor, c.State)
		default:
			fmt.Fprintf(&b, "no acceptor %s", c.State)
		}
	}
	return b.String()
}

// seenKind is what kind of answer o was, as the wait decided it (state),
// v what its error said.
func seenKind(o *Poll, state classify.State, v *classify.Verdict) SeenCount {
	k := SeenCount{Acceptor: o.Acceptor, State: state.String()}
	if o.Late {
		k.State = "timeout"
	}
	if o.Err != nil && v != nil {
		switch {
		case v.Code != "":
			k.Code = v.Code
		case v.StatusCode != 0:
			k.Code = fmt.Sprintf("HTTP %d", v.StatusCode)
		default:
			k.Code = "error"
		}
	}
	return k
}
