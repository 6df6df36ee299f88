package classify

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	nearname "github.com/waitable/waitable/internal/suggest"
)

// Check reports, for an expression compared by c on values of Go type
// root, what can be known before any call (the specification's "JMESPath
// static analysis"): a field name that the type does not have (Statuss for
// Status), and a comparator that can never match the path's type (a
// stringEquals on a projection, a booleanEquals on a string).
//
// It checks what the types allow it to: a path that goes through an
// interface (any) is not checked past it, and for expressions that are not
// simple paths it only checks that every field name exists on some struct
// reachable from root. A nil root, or an interface root, is not checked.
func (e *Expr) Check(root reflect.Type, c Comparator) error {
	root = derefType(root)
	if root == nil || root.Kind() == reflect.Interface || isDocument(root) {
		return nil
	}
	if e.simple == nil {
		return e.checkNames(root)
	}
	rt, list, err := e.simple.staticType(root)
	if err != nil {
		return err
	}
	return checkComparator(rt, list, c)
}

// staticType returns the static type of n's result on a value of type t:
// for a projection, list is true and rt is the element type. rt is nil
// when the type cannot be known before run time.
func (n *node) staticType(t reflect.Type) (rt reflect.Type, list bool, err error) {
	t = derefType(t)
	if n.op == opIdentity {
		return t, false, nil
	}
	if t == nil || t.Kind() == reflect.Interface || isDocument(t) {
		return nil, n.projects(), nil
	}
	switch n.op {
	case opField:
		switch {
		case t.Kind() == reflect.Struct && t != timeType:
			idx := resolveField(t, n.name, n.names)
			if idx == nil {
				return nil, false, fmt.Errorf("field %q does not exist on %s%s", n.name, t, suggest(t, n.name))
			}
			return t.FieldByIndex(idx).Type, false, nil
		case isObjectType(t):
			return t.Elem(), false, nil
		}
		return nil, false, fmt.Errorf("field %q is read from %s, which is not an object", n.name, t)
	case opSub:
		lt, _, err := n.l.staticType(t)
		if err != nil || lt == nil {
			return nil, false, err
		}
		return n.r.staticType(lt)
	case opIndex:
		lt, _, err := n.l.staticType(t)
		if err != nil || lt == nil {
			return nil, false, err
		}
		if lt = derefType(lt); lt.Kind() == reflect.Interface {
			return nil, false, nil
		}
		if !isListType(lt) {
			return nil, false, fmt.Errorf("index [%d] is applied to %s, which is not an array", n.index, lt)
		}
		return lt.Elem(), false, nil
	case opProject, opValues, opFlatten:
		et, known, err := n.elemType(t)
		if err != nil || !known {
			return nil, true, err
		}
		if n.op == opFlatten {
			return et, true, nil
		}
		rt, _, err := n.r.staticType(et)
		return rt, true, err
	}
	return nil, false, nil
}

// elemType returns the type of the elements a projecting node iterates
// over (before its right-hand side is applied).
func (n *node) elemType(t reflect.Type) (et reflect.Type, known bool, err error) {
	switch n.op {
	case opProject:
		if n.l.op == opFlatten {
			return n.l.elemType(t)
		}
		lt, _, err := n.l.staticType(t)
		return listElem(lt, "a projection [*]", err)
	case opValues:
		lt, _, err := n.l.staticType(t)
		if err != nil || lt == nil {
			return nil, false, err
		}
		switch lt = derefType(lt); {
		case lt.Kind() == reflect.Map && isObjectType(lt):
			return lt.Elem(), true, nil
		case lt.Kind() == reflect.Struct && lt != timeType:
			return nil, false, nil // values of different types
		case lt.Kind() == reflect.Interface:
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("a value projection .* is applied to %s, which is not an object", lt)
	case opFlatten:
		var inner reflect.Type
		if n.l.projects() {
			lt, _, err := n.l.staticType(t)
			if err != nil || lt == nil {
				return nil, false, err
			}
			inner = lt
		} else {
			lt, _, err := n.l.staticType(t)
			et, known, err := listElem(lt, "a flatten []", err)
			if !known {
				return nil, false, err
			}
			inner = et
		}
		if d := derefType(inner); d.Kind() == reflect.Interface {
			return nil, false, nil
		} else if isListType(d) {
			return d.Elem(), true, nil
		}
		return inner, true, nil
	}
	return nil, false, nil
}

func listElem(lt reflect.Type, what string, err error) (reflect.Type, bool, error) {
	if err != nil || lt == nil {
		return nil, false, err
	}
	if lt = derefType(lt); lt.Kind() == reflect.Interface {
		return nil, false, nil
	}
	if !isListType(lt) {
		return nil, false, fmt.Errorf("%s is applied to %s, which is not an array", what, lt)
	}
	return lt.Elem(), true, nil
}

// checkComparator reports a comparator that cannot match a result of the
// given static type.
func checkComparator(rt reflect.Type, list bool, c Comparator) error {
	want := func(t reflect.Type, kind string) error {
		t = derefType(t)
		switch {
		case t == nil || t.Kind() == reflect.Interface:
			return nil
		case kind == "string" && (t.Kind() == reflect.String || isBytes(t)):
			return nil
		case kind == "boolean" && t.Kind() == reflect.Bool:
			return nil
		}
		return fmt.Errorf("%s needs a %s, but the path gives %s", c, kind, t)
	}
	switch c {
	case StringEquals, BooleanEquals:
		kind := map[Comparator]string{StringEquals: "string", BooleanEquals: "boolean"}[c]
		if list {
			return fmt.Errorf("%s needs a %s, but the path projects an array", c, kind)
		}
		return want(rt, kind)
	case AllStringEquals, AnyStringEquals:
		if list {
			return want(rt, "string")
		}
		t := derefType(rt)
		if t == nil || t.Kind() == reflect.Interface {
			return nil
		}
		if !isListType(t) {
			return fmt.Errorf("%s needs an array of strings, but the path gives %s", c, t)
		}
		return want(t.Elem(), "string")
	}
	return nil
}

// checkNames reports a field name that exists on no struct reachable from
// root. If an interface or a map is reachable, names could be anywhere and
// nothing is reported.
func (e *Expr) checkNames(root reflect.Type) error {
	var structs []reflect.Type
	open := false
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		t = derefType(t)
		if t == nil || seen[t] {
			return
		}
		seen[t] = true
		switch {
		case isDocument(t):
			open = true
			return
		}
		switch t.Kind() {
		case reflect.Interface:
			open = true
		case reflect.Map:
			open = true
		case reflect.Slice, reflect.Array:
			walk(t.Elem())
		case reflect.Struct:
			if t == timeType {
				return
			}
			structs = append(structs, t)
			for _, f := range reflect.VisibleFields(t) {
				if f.IsExported() {
					walk(f.Type)
				}
			}
		}
	}
	walk(root)
	if open {
		return nil
	}
	var missing []string
	for name := range e.idents {
		found := false
		for _, t := range structs {
			if resolveField(t, name, e.names) != nil {
				found = true
				break
			}
		}
		if !found {
			missing = append(missing, fmt.Sprintf("%q", name))
		}
	}
	if missing == nil {
		return nil
	}
	sort.Strings(missing)
	return fmt.Errorf("field %s exists on no type reachable from %s", strings.Join(missing, ", "), root)
}

// suggest names the fields of t closest to name, as " (did you mean X?)".
func suggest(t reflect.Type, name string) string {
	best, bestD := "", 3
	for _, f := range reflect.VisibleFields(t) {
		if !f.IsExported() {
			continue
		}
		if d := nearname.Distance(strings.ToLower(f.Name), strings.ToLower(name)); d < bestD {
			best, bestD = f.Name, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %s?)", best)
}

// documentType is a Smithy document (smithy-go's document.Interface, or
// any type that marshals itself so): its shape is known only at run time.
var documentType = reflect.TypeFor[interface{ MarshalSmithyDocument() ([]byte, error) }]()

func isDocument(t reflect.Type) bool {
	return t.Implements(documentType) || reflect.PointerTo(t).Implements(documentType)
}
