package waiter

import (
	"fmt"
	"strings"

	"github.com/waitable/waitable/classify"
)

// SeenCount is how many answers of one kind a wait saw: which acceptor
// matched and the state it gave, and for an error its code. Every
// Checkpoint counts its wait's answers so (Checkpoint.Seen), and an
// [*Error] holds them, so that a wait that failed or timed out says what
// it saw all along (as aws-sdk-js-v3's observedResponses does). The counts
// of an event's checkpoint, of a Run or of an Error are not changed
// afterwards.
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

// count counts one more answer of the kind (acceptor, state, code) (see
// SeenCount) in *s, in place: a wait's own counts are its alone (Step,
// the events and errors take copies).
func count(s *[]SeenCount, acceptor int, state, code string) {
	i := index(*s, acceptor, state, code)
	if i < 0 && len(*s) >= maxSeen-1 {
		acceptor, state, code = -1, "other", "other"
		i = index(*s, acceptor, state, code)
	}
	if i >= 0 {
		(*s)[i].N++
		return
	}
	*s = append(*s, SeenCount{Acceptor: acceptor, State: state, Code: code, N: 1})
}

// index returns where the kind (acceptor, state, code) is in s, -1 if it
// is not: the last first, as the answers of a wait mostly repeat.
func index(s []SeenCount, acceptor int, state, code string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if c := &s[i]; c.Acceptor == acceptor && c.State == state && c.Code == code {
			return i
		}
	}
	return -1
}

// String reads like "3 × acceptor 1 retry": a count of one kind of
// answer; several counts read "3 × acceptor 1 retry, 2 ×
// ThrottlingException retry, 1 × acceptor 0 success" in a message.
func (c SeenCount) String() string {
	var b strings.Builder
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
	return b.String()
}

// seenKind is what kind of answer a call was, as SeenCount's State and
// Code say: the state the wait decided ("timeout" when the deadline cut
// it off, late), and for an error (err), what cv, its verdict, says.
func seenKind(state classify.State, late bool, err error, cv *classify.Verdict) (stateName, code string) {
	stateName = state.String()
	if late {
		stateName = "timeout"
	}
	if err != nil && cv != nil {
		switch {
		case cv.Code != "":
			code = cv.Code
		case cv.StatusCode != 0:
			code = fmt.Sprintf("HTTP %d", cv.StatusCode)
		default:
			code = "error"
		}
	}
	return stateName, code
}
