package model

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
	return s.decodeAt(part, s.base(part), "", v, true)
}

// base returns the offset of part in s.doc.
func (s source) base(part []byte) int {
	if len(part) == len(s.doc) {
		return 0
	}
	return max(bytes.Index(s.doc, part), 0)
}

// decodeAt is decode for a part at offset at of s.doc, the value of the
// member named field ("" for none); strict refuses unknown fields.
func (s source) decodeAt(part []byte, at int, field string, v any, strict bool) error {
	dec := json.NewDecoder(bytes.NewReader(part))
	if strict {
		dec.DisallowUnknownFields()
	}
	err := dec.Decode(v)
	if err == nil && dec.More() {
		err = errors.New("unexpected data after the JSON value")
	}
	if err == nil {
		return nil
	}
	return s.explainAt(at, err, dec.InputOffset(), field)
}

// decodeEach decodes part, a JSON object in s.doc, into the struct v
// points to one member at a time, so that it reports every problem, not
// only the first: each unknown key (where it is) and each member that does
// not decode (as decode says). A part that is not an object is one
// problem. What decodes is set.
func (s source) decodeEach(part []byte, v any) []error {
	return s.decodeMembers(part, v, true)
}

// decodeKnown is decodeEach for a part whose keys this package does not
// all read (a Smithy shape): unknown keys, at any depth, are no problem.
func (s source) decodeKnown(part []byte, v any) []error {
	return s.decodeMembers(part, v, false)
}

func (s source) decodeMembers(part []byte, v any, strict bool) []error {
	base := s.base(part)
	dec := json.NewDecoder(bytes.NewReader(part))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		if err := s.decodeAt(part, base, "", v, strict); err != nil {
			return []error{err}
		}
		return nil
	}
	rv := reflect.ValueOf(v).Elem()
	var errs []error
	for dec.More() {
		keyAt := s.skipSpace(base + int(dec.InputOffset()))
		tok, err := dec.Token()
		if err != nil {
			return append(errs, s.explainAt(base, err, dec.InputOffset(), ""))
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return append(errs, s.explainAt(base, err, dec.InputOffset(), ""))
		}
		end := int(dec.InputOffset())
		f, ok := jsonField(rv.Type(), key)
		if !ok {
			if strict {
				errs = append(errs, fmt.Errorf("%s: unknown field %q", s.position(keyAt), key))
			}
			continue
		}
		if err := s.decodeAt(part[end-len(raw):end], base+end-len(raw), key, rv.FieldByIndex(f).Addr().Interface(), strict); err != nil {
			errs = append(errs, &memberError{key, err})
		}
	}
	if _, err := dec.Token(); err != nil {
		return append(errs, s.explainAt(base, err, dec.InputOffset(), ""))
	}
	if dec.More() {
		errs = append(
			errs,
			fmt.Errorf(
				"%s: unexpected data after the JSON value",
				s.position(s.skipSpace(base+int(dec.InputOffset()))),
			),
		)
	}
	return errs
}

// memberError is a member of an object that did not decode.
type memberError struct {
	key string
	err error
}

func (e *memberError) Error() string { return e.err.Error() }
func (e *memberError) Unwrap() error { return e.err }

// failed reports whether the member key is among the problems errs.
func failed(errs []error, key string) bool {
	for _, err := range errs {
		if me, ok := err.(*memberError); ok && me.key == key {
			return true
		}
	}
	return false
}

// skipSpace returns the offset of the first byte at or after off that is
// not white space, a comma or a colon: where a token begins.
func (s source) skipSpace(off int) int {
	for off < len(s.doc) && strings.IndexByte(" \t\r\n,:", s.doc[off]) >= 0 {
		off++
	}
	return off
}

// jsonField finds the field of struct type t that encoding/json decodes
// key into: by its json tag or name, exactly, else ignoring case.
func jsonField(t reflect.Type, key string) ([]int, bool) {
	var fold []int
	for _, f := range reflect.VisibleFields(t) {
		if !f.IsExported() || f.Anonymous {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if name == key {
			return f.Index, true
		}
		if fold == nil && strings.EqualFold(name, key) {
			fold = f.Index
		}
	}
	return fold, fold != nil
}

// explain rephrases an encoding/json error met while decoding part.
func (s source) explain(part []byte, err error, at int64) error {
	return s.explainAt(s.base(part), err, at, "")
}

// explainAt rephrases an encoding/json error met while decoding the part
// of s.doc at offset base, the value of the member named field ("" for
// none); at is the decoder's offset in the part.
func (s source) explainAt(base int, err error, at int64, field string) error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		return fmt.Errorf("%s: %s", s.position(base+int(syntax.Offset)-1), syntax.Error())
	case errors.As(err, &typ):
		what := "the value"
		switch {
		case typ.Field != "" && field != "":
			what = field + "." + typ.Field
		case typ.Field != "":
			what = typ.Field
		case field != "":
			what = field
		}
		start := base + int(typ.Offset) - 1
		if typ.Field == "" {
			start = base // the part is the value
		}
		return fmt.Errorf(
			"%s: %s: %s where %s is expected",
			s.position(start),
			what,
			withArticle(typ.Value),
			jsonKind(typ.Type),
		)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%s: the document ends in the middle of a value", s.position(len(s.doc)))
	}
	if strings.HasPrefix(err.Error(), "json: unknown field") {
		return fmt.Errorf(
			"%s: %s",
			s.position(base+int(at)),
			strings.TrimPrefix(err.Error(), "json: "),
		)
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
