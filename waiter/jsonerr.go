package waiter

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
)

// source is a model document being read: sub-documents decoded from it
// report their errors at the line and column of the whole document.
type source struct{ doc []byte }

// decode decodes one JSON value, part of s.doc, into v, rejecting unknown
// fields and trailing data. Its errors speak of the document: the line
// and column, and JSON's types rather than Go's.
func (s source) decode(part []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(part))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil && dec.More() {
		err = errors.New("unexpected data after the JSON value")
	}
	if err == nil {
		return nil
	}
	return s.explain(part, err, dec.InputOffset())
}

// explain rephrases an encoding/json error met while decoding part.
func (s source) explain(part []byte, err error, at int64) error {
	base := 0
	if len(part) != len(s.doc) {
		base = max(bytes.Index(s.doc, part), 0)
	}
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		return fmt.Errorf("%s: %s", s.position(base+int(syntax.Offset)-1), syntax.Error())
	case errors.As(err, &typ):
		what := "the value"
		if typ.Field != "" {
			what = typ.Field
		}
		start := base + int(typ.Offset) - 1
		return fmt.Errorf("%s: %s: %s where %s is expected", s.position(start), what, withArticle(typ.Value), jsonKind(typ.Type))
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%s: the document ends in the middle of a value", s.position(len(s.doc)))
	}
	if strings.HasPrefix(err.Error(), "json: unknown field") {
		return fmt.Errorf("%s: %s", s.position(base+int(at)), strings.TrimPrefix(err.Error(), "json: "))
	}
	// A type's own check (an unknown acceptor state): where its value starts.
	return fmt.Errorf("%s: %w", s.position(base), err)
}

// position returns "line L, column C" (both from 1; columns in bytes) of
// the byte at offset off.
func (s source) position(off int) string {
	off = min(max(off, 0), len(s.doc))
	line := 1 + bytes.Count(s.doc[:off], []byte("\n"))
	col := off - bytes.LastIndexByte(s.doc[:off], '\n')
	return fmt.Sprintf("line %d, column %d", line, col)
}

// jsonKind names the JSON type a Go type decodes from.
func jsonKind(t reflect.Type) string {
	if t == nil {
		return "a value"
	}
	switch t.Kind() {
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	}
	if t.Kind() >= reflect.Int && t.Kind() <= reflect.Uint64 {
		return "an integer"
	}
	if t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64 {
		return "a number"
	}
	return "a value"
}

// withArticle turns encoding/json's description of a value ("array",
// "number 1.5", "string") into a phrase ("an array", "the number 1.5").
func withArticle(v string) string {
	switch {
	case strings.Contains(v, " "):
		return "the " + v
	case v == "array" || v == "object":
		return "an " + v
	case v == "bool":
		return "a boolean"
	}
	return "a " + v
}

// sniff says what kind of document s is, from its top-level keys:
// "smithy" (a Smithy JSON AST model), "botocore" (a waiters-2.json),
// "botocore-service" (a service-2.json),
// "waitable" (an object, perhaps a waitable trait's value), or a
// description of what it is when it is not an object ("" when it is not
// JSON at all; the decoder then reports where).
func (s source) sniff() string {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(s.doc, &top); err != nil {
		var typ *json.UnmarshalTypeError
		if errors.As(err, &typ) {
			return withArticle(typ.Value)
		}
		return ""
	}
	_, smithy := top["smithy"]
	_, shapes := top["shapes"]
	_, waiters := top["waiters"]
	_, version := top["version"]
	_, metadata := top["metadata"]
	_, operations := top["operations"]
	switch {
	case !smithy && metadata && operations:
		return "botocore-service"
	case smithy || shapes:
		return "smithy"
	case waiters && version:
		return "botocore"
	}
	return "waitable"
}

// hint describes a document of the given kind (from sniff) and names the
// function that reads it, for a user who called fn on it.
func hint(kind, fn string) string {
	switch kind {
	case "smithy":
		return "a Smithy JSON AST model (read it with LoadSmithy)"
	case "botocore":
		return "a botocore waiters-2.json document (read it with LoadBotocore)"
	case "botocore-service":
		return "a botocore service-2.json document (give it to LoadBotocoreService beside the service's waiters-2.json)"
	case "waitable":
		if fn == "LoadSmithy" {
			return `a JSON object without the "smithy" version key of a Smithy JSON AST model (for a waitable trait's value, use ParseWaitable)`
		}
		return `a JSON object without the "version" and "waiters" keys of a botocore waiters-2.json document`
	}
	return "a JSON " + strings.TrimPrefix(strings.TrimPrefix(kind, "an "), "a ")
}
