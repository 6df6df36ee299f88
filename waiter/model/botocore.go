package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"time"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/waiter"
)

// botocoreFile is botocore's waiters-2.json.
type botocoreFile struct {
	Version int                        `json:"version"`
	Waiters map[string]json.RawMessage `json:"waiters"`
}

type botocoreWaiter struct {
	Delay       int64             `json:"delay"`
	MaxAttempts int               `json:"maxAttempts"`
	Operation   string            `json:"operation"`
	Description string            `json:"description"`
	Acceptors   []json.RawMessage `json:"acceptors"`
}

type botocoreAcceptor struct {
	Matcher  string          `json:"matcher"`
	Argument string          `json:"argument"`
	Expected json.RawMessage `json:"expected"`
	State    classify.State  `json:"state"`
}

// LoadBotocore reads a botocore waiters-2.json document (format version 2)
// and maps each waiter onto a [waiter.Definition]:
//
//   - delay becomes a fixed schedule (MinDelay = MaxDelay = delay), and
//     maxAttempts (a number of polls) the definition's MaxPolls;
//   - matcher path, pathAll and pathAny with a string expected value become
//     output matchers with stringEquals, allStringEquals and
//     anyStringEquals; with any other expected value (botocore compares any
//     JSON value) they become a booleanEquals on an expression that does
//     the same comparison, such as (argument) == `true`;
//   - status becomes an HTTP status matcher ([classify.OnHTTPStatus]);
//   - error with a string becomes an errorType matcher, and error with
//     true or false means "any error" or "no error" (a success matcher).
//
// Operation.ID is the operation's name; botocore gives no shape IDs.
// Problems are reported all at once, each naming the waiter and acceptor.
// The definitions carry no Model: for the member names of the service's
// shapes, read its service-2.json too, with [LoadBotocoreService].
func LoadBotocore(r io.Reader) (*Catalog, error) {
	return loadBotocore(r, nil)
}

// LoadBotocoreService reads a botocore waiters-2.json document as
// [LoadBotocore] does, together with the service-2.json beside it (the
// service's model), which gives each definition what a Smithy model
// would: Operation.Input, Output and Errors (shape names), Service (the
// model's serviceId), and Operation.Model, a [*Shapes] of the shapes
// the operation's input and output reach, whose member names [waiter.New] keys
// struct fields by. A waiter of an operation the service does not have,
// and a path matcher on an operation without output, are errors.
func LoadBotocoreService(waiters, service io.Reader) (*Catalog, error) {
	data, err := io.ReadAll(service)
	if err != nil {
		return nil, &Error{Where: "service", Err: err}
	}
	ssrc := source{data}
	if kind := ssrc.sniff(); kind != "botocore-service" && kind != "" {
		return nil, &Error{
			Where: "service",
			Err: fmt.Errorf(
				"this is %s, not a botocore service-2.json document",
				hint(kind, "LoadBotocoreService"),
			),
		}
	}
	var svc botocoreService
	if err := json.Unmarshal(data, &svc); err != nil {
		return nil, &Error{Where: "service", Err: ssrc.explain(data, err, 0)}
	}
	if svc.Operations == nil || svc.Shapes == nil {
		return nil, &Error{
			Where: "service",
			Err:   errors.New(`the service model has no "operations" or no "shapes"`),
		}
	}
	return loadBotocore(waiters, &svc)
}

// botocoreService is the part of a botocore service-2.json this package
// reads.
type botocoreService struct {
	Metadata struct {
		ServiceID string `json:"serviceId"`
	} `json:"metadata"`
	Operations map[string]struct {
		Input  *botocoreRef  `json:"input"`
		Output *botocoreRef  `json:"output"`
		Errors []botocoreRef `json:"errors"`
	} `json:"operations"`
	Shapes map[string]struct {
		Type    string                 `json:"type"`
		Members map[string]botocoreRef `json:"members"`
		Member  *botocoreRef           `json:"member"`
		Value   *botocoreRef           `json:"value"`
		Union   bool                   `json:"union"`
	} `json:"shapes"`
}

type botocoreRef struct {
	Shape string `json:"shape"`
}

// operation fills d's Operation from the service model.
func (svc *botocoreService) operation(d *waiter.Definition) error {
	op, ok := svc.Operations[d.Operation.ID]
	if !ok {
		return &waiter.DefinitionError{
			Waiter:   d.Name,
			Acceptor: -1,
			Rule:     "operation",
			Err:      fmt.Errorf("the service model has no operation %s", d.Operation.ID),
		}
	}
	info := waiter.Operation{
		ID:      d.Operation.ID,
		Service: svc.Metadata.ServiceID,
		Errors:  []string{},
	}
	if op.Input != nil {
		info.Input = op.Input.Shape
	}
	if op.Output != nil {
		info.Output = op.Output.Shape
	}
	for _, e := range op.Errors {
		info.Errors = append(info.Errors, e.Shape)
	}
	if info.Output == "" {
		if i := slices.IndexFunc(d.Acceptors, func(a classify.Acceptor) bool { return a.Matcher.Output != nil }); i >= 0 {
			return &waiter.DefinitionError{
				Waiter:   d.Name,
				Acceptor: i,
				Rule:     "matcher",
				Err:      fmt.Errorf("an output matcher on %s, which has no output", info.ID),
			}
		}
	}
	sm := &Shapes{Input: info.Input, Output: info.Output, Shapes: map[string]Shape{}}
	var visit func(name string)
	visit = func(name string) {
		if _, seen := sm.Shapes[name]; seen {
			return
		}
		sh, ok := svc.Shapes[name]
		if !ok {
			return
		}
		switch {
		case sh.Type == "structure":
			typ := "structure"
			if sh.Union {
				typ = "union"
			}
			members := map[string]string{}
			for m, ref := range sh.Members {
				members[m] = ref.Shape
			}
			sm.Shapes[name] = Shape{Type: typ, Members: members}
			for _, target := range members {
				visit(target)
			}
		case sh.Type == "list" && sh.Member != nil:
			sm.Shapes[name] = Shape{Type: "list", Member: sh.Member.Shape}
			visit(sh.Member.Shape)
		case sh.Type == "map" && sh.Value != nil:
			sm.Shapes[name] = Shape{Type: "map", Member: sh.Value.Shape}
			visit(sh.Value.Shape)
		}
	}
	for _, name := range []string{info.Input, info.Output} {
		if name != "" {
			visit(name)
		}
	}
	info.Model = sm
	d.Operation = info
	return nil
}

func loadBotocore(r io.Reader, svc *botocoreService) (*Catalog, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, &Error{Err: err}
	}
	src := source{data}
	if kind := src.sniff(); kind != "botocore" && kind != "" {
		fn := "LoadBotocore"
		if svc != nil {
			fn = "LoadBotocoreService"
		}
		return nil, &Error{
			Err: fmt.Errorf("this is %s, not a botocore waiters-2.json document", hint(kind, fn)),
		}
	}
	var f botocoreFile
	var errs []error
	for _, err := range src.decodeEach(data, &f) {
		errs = append(errs, &Error{Err: err})
	}
	if f.Version != 2 {
		return nil, errors.Join(
			append(errs, &Error{Where: "version", Err: fmt.Errorf("%d is not 2", f.Version)})...)
	}
	names := slices.Sorted(maps.Keys(f.Waiters))
	c := newCatalog()
	for _, name := range names {
		d, err := src.parseBotocoreWaiter(name, f.Waiters[name], "waiters."+name)
		if err == nil {
			err = d.Validate()
		}
		if err == nil && svc != nil {
			err = svc.operation(&d)
		}
		if err == nil {
			err = c.add(d)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return c, nil
}

func (src source) parseBotocoreWaiter(
	name string,
	data []byte,
	where string,
) (waiter.Definition, error) {
	var w botocoreWaiter
	var errs []error
	bad := src.decodeEach(data, &w)
	for _, err := range bad {
		errs = append(errs, &Error{Where: where, Err: err})
	}
	if len(errs) > 0 && w.Acceptors == nil {
		return waiter.Definition{}, errors.Join(errs...) // not a waiter object: nothing more to say
	}
	if (w.Delay < 1 || w.Delay > 1<<31) && !failed(bad, "delay") {
		errs = append(
			errs,
			&Error{
				Where: where + ".delay",
				Err:   fmt.Errorf("%d seconds is out of range (1 to 2^31)", w.Delay),
			},
		)
	}
	if w.MaxAttempts < 1 && !failed(bad, "maxAttempts") {
		errs = append(
			errs,
			&Error{
				Where: where + ".maxAttempts",
				Err:   fmt.Errorf("%d is not a positive number of attempts", w.MaxAttempts),
			},
		)
	}
	if w.Operation == "" && !failed(bad, "operation") {
		errs = append(errs, &Error{Where: where + ".operation", Err: errors.New("missing")})
	}
	delay := time.Duration(max(w.Delay, 1)) * time.Second
	d := waiter.Definition{
		Name: name, Documentation: w.Description,
		MinDelay: delay, MaxDelay: delay, MaxPolls: max(w.MaxAttempts, 0),
		Operation: waiter.Operation{ID: w.Operation},
	}
	for i, raw := range w.Acceptors {
		at := fmt.Sprintf("%s.acceptors[%d]", where, i)
		var b botocoreAcceptor
		if bad := src.decodeEach(raw, &b); bad != nil {
			for _, err := range bad {
				errs = append(errs, &Error{Where: at, Err: err})
			}
			continue
		}
		m, err := b.matcher()
		if err != nil {
			errs = append(errs, &Error{Where: at, Err: err})
			continue
		}
		d.Acceptors = append(d.Acceptors, classify.Acceptor{State: b.State, Matcher: m})
	}
	return d, errors.Join(errs...)
}

// matcher translates a botocore acceptor's matcher.
func (b botocoreAcceptor) matcher() (classify.Matcher, error) {
	if len(b.Expected) == 0 {
		return classify.Matcher{}, errors.New("expected is missing")
	}
	var str string
	isString := json.Unmarshal(b.Expected, &str) == nil
	var literal any
	if err := json.Unmarshal(b.Expected, &literal); err != nil {
		return classify.Matcher{}, fmt.Errorf("expected: %w", err)
	}
	switch b.Matcher {
	case "path", "pathAll", "pathAny":
		if b.Argument == "" {
			return classify.Matcher{}, fmt.Errorf("matcher %s needs an argument", b.Matcher)
		}
		if isString {
			cmp := map[string]classify.Comparator{"path": classify.StringEquals, "pathAll": classify.AllStringEquals, "pathAny": classify.AnyStringEquals}[b.Matcher]
			return classify.OnOutput(b.Argument, cmp, str), nil
		}
		lit, _ := json.Marshal(literal) // compact form of a value that just decoded
		a, v := "("+b.Argument+")", "`"+string(lit)+"`"
		expr := map[string]string{
			"path":    a + " == " + v,
			"pathAll": "type(" + a + ") == 'array' && length(" + a + ") > `0` && length(" + a + "[?@ != " + v + "]) == `0`",
			"pathAny": "type(" + a + ") == 'array' && contains(" + a + ", " + v + ")",
		}[b.Matcher]
		return classify.OnOutput(expr, classify.BooleanEquals, "true"), nil
	case "status":
		code, ok := literal.(float64)
		if !ok || code != float64(int(code)) {
			return classify.Matcher{}, fmt.Errorf(
				"matcher status expects an integer HTTP status, not %s",
				b.Expected,
			)
		}
		return classify.OnHTTPStatus(int(code)), nil
	case "error":
		switch e := literal.(type) {
		case string:
			if e == "" {
				return classify.Matcher{}, errors.New("matcher error with an empty error code")
			}
			return classify.OnErrorType(e), nil
		case bool:
			return classify.OnSuccess(!e), nil // error: true is "any error"
		}
		return classify.Matcher{}, fmt.Errorf(
			"matcher error expects an error code or a boolean, not %s",
			b.Expected,
		)
	}
	return classify.Matcher{}, fmt.Errorf(
		"unknown matcher %q (want path, pathAll, pathAny, status or error)",
		b.Matcher,
	)
}
