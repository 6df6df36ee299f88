package model

import (
	"errors"
	"fmt"
)

// ErrInvalid is matched by errors.Is for every [*Error]: a document that
// is not a model this package can read, or a part of one that does not
// decode. A waiter that decodes but breaks the specification's rules is a
// *waiter.DefinitionError instead, matching waiter.ErrInvalidDefinition.
var ErrInvalid = errors.New("model: invalid model document")

// Error is a problem with the form of a model document: where it is and
// what is wrong.
type Error struct {
	// Where is the path to the problem in the document, such as
	// `shapes["com.example#GetThing"].traits["smithy.waiters#waitable"].ThingExists.acceptors[1]`,
	// or "service" for the service-2.json given to [LoadBotocoreService];
	// empty for the document as a whole.
	Where string
	// Err says what is wrong, starting with the line and column in the
	// document when the JSON decoder knows them.
	Err error
}

// Error returns "model: <where>: <problem>".
func (e *Error) Error() string {
	if e.Where == "" {
		return fmt.Sprintf("model: %v", e.Err)
	}
	return fmt.Sprintf("model: %s: %v", e.Where, e.Err)
}

// Is matches [ErrInvalid].
func (e *Error) Is(target error) bool { return target == ErrInvalid }

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }
