package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/internal/plural"
	"github.com/waitable/waitable/internal/shapes"
	"github.com/waitable/waitable/internal/suggest"
	"github.com/waitable/waitable/jmespath"
	"github.com/waitable/waitable/waiter"
	"github.com/waitable/waitable/waiter/model"
)

const waitableTrait = "smithy.waiters#waitable"

// lintCommand checks the waiters of model files: Smithy JSON AST models
// or botocore waiters-2.json documents, told apart by their content. It
// checks every acceptor's paths against the operation's shapes: a Smithy
// model's own, a botocore document's in the service model (--service, or
// the service-2.json beside a waiters-2.json).
func (c *cli) lintCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "lint [--service service-2.json] MODEL...",
		Short: "Check the waiters of model files",
		Long: "MODEL is a Smithy JSON AST model or a botocore waiters-2.json document. Each\n" +
			"problem is a line FILE:LINE:COLUMN: waiter W: acceptor N: ...; paths are\n" +
			"checked against the operation's input and output shapes: a Smithy model's\n" +
			"own, a botocore document's in its service model.",
	}
	fs := cmd.Flags()
	warnings := fs.Bool("warnings", false, "also print what the loader allows but finds suspicious")
	service := fs.String("service", "", "the botocore service model (service-2.json) of the botocore documents given;\nwithout it, the service-2.json beside a waiters-2.json, if any")
	return c.leaf(cmd, func(_ context.Context, _ *cobra.Command, files []string) (int, error) {
		return lintFiles(files, *service, *warnings, c.stdout)
	})
}

// lintFiles checks the waiters of files, against the botocore service model
// service if not "", and prints the problems (and, if warnings, the
// loader's warnings).
func lintFiles(files []string, service string, warnings bool, stdout io.Writer) (int, error) {
	if len(files) == 0 {
		return exitUsage, usagef("give at least one model file")
	}
	var svc *serviceModel
	if service != "" {
		s, err := readService(service)
		if err != nil {
			return exitUsage, usageError{err}
		}
		svc = s
	}
	problems := 0
	for _, file := range files {
		l, c, err := loadModel(file)
		if err != nil {
			return exitUsage, err
		}
		l.checkTypes(svc)
		problems += l.report(stdout)
		l.warn(stdout, c, warnings)
		if c != nil && len(l.problems) == 0 {
			fmt.Fprintf(stdout, "%s: %s, ok%s\n", file, plural.N(len(c.Names()), "waiter"), l.note)
		}
	}
	return lintStatus(problems)
}

// load reads the file as a Smithy model or a botocore document, whichever
// it is.
func (l *linter) load() (*model.Catalog, error) {
	if l.isSmithy() {
		return model.LoadSmithy(bytes.NewReader(l.data))
	}
	return model.LoadBotocore(bytes.NewReader(l.data))
}

// isSmithy reports whether the file is a Smithy model: a JSON object with
// the key "smithy" or "shapes" (anywhere: a model may list its shapes
// first), or, if it is not JSON, a file that says "smithy" early on.
func (l *linter) isSmithy() bool {
	if l.root != nil {
		return l.root.get("smithy") != nil || l.root.get("shapes") != nil
	}
	return bytes.Contains(l.data[:min(len(l.data), 4096)], []byte(`"smithy"`))
}

// serviceModel is a botocore service model and its file.
type serviceModel struct {
	file  string
	model *shapes.Model
}

// readService reads a botocore service-2.json (or service-2.json.gz).
func readService(file string) (*serviceModel, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	if bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		if data, err = io.ReadAll(io.LimitReader(zr, 1<<30)); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
	}
	m, err := shapes.Botocore(data)
	if m == nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	// A shape that does not decode is of unknown type: paths through it
	// are not checked.
	return &serviceModel{file: file, model: m}, nil
}

// problem is one line of lint's output.
type problem struct {
	file      string
	line, col int
	msg       string
}

func (p problem) String() string {
	return fmt.Sprintf("%s:%d:%d: %s", p.file, p.line, p.col, p.msg)
}

// linter gathers the problems of one file.
type linter struct {
	file     string
	data     []byte
	root     *jsonNode // nil if the file is not JSON (the loader says where)
	lines    lines
	problems []problem
	seen     map[string]bool
	note     string // said after "ok"
}

func newLinter(file string, data []byte) *linter {
	l := &linter{file: file, data: data, lines: newLines(data), seen: map[string]bool{}}
	l.root, _ = indexJSON(data)
	return l
}

// add records a problem at offset off of the file.
func (l *linter) add(off int, msg string) {
	line, col := l.lines.position(max(off, 0))
	l.addAt(line, col, msg)
}

func (l *linter) addAt(line, col int, msg string) {
	p := problem{file: l.file, line: line, col: col, msg: msg}
	if l.seen[p.String()] {
		return
	}
	l.seen[p.String()] = true
	l.problems = append(l.problems, p)
}

// sorted returns the problems in the order of the file.
func (l *linter) sorted() []problem {
	out := slices.Clone(l.problems)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].line != out[j].line {
			return out[i].line < out[j].line
		}
		return out[i].col < out[j].col
	})
	return out
}

// loadProblems records the loader's problems, each where it is.
func (l *linter) loadProblems(err error) {
	for _, e := range leaves(err) {
		var me *model.Error
		var de *waiter.DefinitionError
		switch {
		case errors.As(e, &de):
			l.add(l.locate(de.Waiter, de.Acceptor, de.Rule, de.Err), de.Error())
		case errors.As(e, &me):
			l.modelProblem(me)
		default:
			l.add(0, strings.TrimPrefix(e.Error(), "model: "))
		}
	}
}

// leaves lists the problems of a joined error, one each.
func leaves(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, leaves(e)...)
		}
		return out
	}
	return []error{err}
}

var (
	atLine     = regexp.MustCompile(`^line (\d+), column (\d+): `)
	smithyAt   = regexp.MustCompile(`^shapes\["[^"]*"\]\.traits\["smithy\.waiters#waitable"\]\.([^.\[]+)`)
	botocoreAt = regexp.MustCompile(`^waiters\.([^.\[]+)`)
	acceptorAt = regexp.MustCompile(`^\.acceptors\[(\d+)\]`)
)

// modelProblem records a problem of the model's form: where the decoder
// says, or where the model's path leads; named by waiter and acceptor.
func (l *linter) modelProblem(me *model.Error) {
	msg := me.Err.Error()
	var context []string
	where := me.Where
	if m := smithyAt.FindStringSubmatch(where); m != nil {
		context, where = append(context, "waiter "+m[1]), where[len(m[0]):]
	} else if m := botocoreAt.FindStringSubmatch(where); m != nil {
		context, where = append(context, "waiter "+m[1]), where[len(m[0]):]
	}
	if context != nil {
		if m := acceptorAt.FindStringSubmatch(where); m != nil {
			context, where = append(context, "acceptor "+m[1]), where[len(m[0]):]
		}
		if where = strings.TrimPrefix(where, "."); where != "" {
			context = append(context, where)
		}
	} else if where != "" {
		context = append(context, where)
	}
	text := strings.Join(append(context, strings.TrimPrefix(msg, atLine.FindString(msg))), ": ")
	if m := atLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		col, _ := strconv.Atoi(m[2])
		l.addAt(line, col, text)
		return
	}
	n, _ := l.root.path(me.Where)
	off := 0
	if n != nil {
		off = n.off
	}
	l.add(off, text)
}

// waiterNode returns the JSON of the waiter named name: in a Smithy
// model's waitable traits, or a botocore document's waiters.
func (l *linter) waiterNode(name string) *jsonNode {
	if w := l.root.get("waiters").get(name); w != nil {
		return w
	}
	shapesNode := l.root.get("shapes")
	if shapesNode == nil {
		return nil
	}
	for _, id := range shapesNode.keys {
		if w := shapesNode.get(id).get("traits").get(waitableTrait).get(name); w != nil {
			return w
		}
	}
	return nil
}

// pathNode returns the string an acceptor's path is in: a Smithy
// matcher's path, a botocore acceptor's argument.
func pathNode(a *jsonNode) *jsonNode {
	if p := a.get("argument"); p != nil {
		return p
	}
	m := a.get("matcher")
	if p := m.get("output").get("path"); p != nil {
		return p
	}
	return m.get("inputOutput").get("path")
}

// locate returns the offset of what a loader's problem is about.
func (l *linter) locate(name string, acceptor int, rule string, err error) int {
	w := l.waiterNode(name)
	if w == nil {
		return 0
	}
	a := w.get("acceptors").at(acceptor)
	if a == nil {
		switch rule {
		case "name":
			return w.keyOff
		case "minDelay", "maxDelay":
			if n := cmpOr(w.get(rule), w.get("delay")); n != nil {
				return n.off
			}
		case "maxPolls":
			if n := w.get("maxAttempts"); n != nil {
				return n.off
			}
		case "acceptors":
			if n := w.get("acceptors"); n != nil {
				return n.off
			}
		}
		return w.off
	}
	var n *jsonNode
	switch rule {
	case "path":
		if n = pathNode(a); n != nil {
			return exprOffset(l.data, n, err)
		}
	case "comparator", "expected":
		m := a.get("matcher")
		n = cmpOr(m.get("output").get(rule), m.get("inputOutput").get(rule), a.get(rule))
	case "message", "state", "matcher":
		n = a.get(rule)
	}
	if n != nil {
		return n.off
	}
	return a.off
}

func cmpOr(ns ...*jsonNode) *jsonNode {
	for _, n := range ns {
		if n != nil {
			return n
		}
	}
	return nil
}

// exprOffset returns the offset in data of where err, a problem with the
// expression in the string n, is: its syntax or type error's offset, or
// the string's start. An expression the loader built around the string
// (botocore's translations, such as (argument) == `true`) is mapped back.
func exprOffset(data []byte, n *jsonNode, err error) int {
	var off int
	var te *jmespath.TypeError
	var se *jmespath.SyntaxError
	var expr string
	switch {
	case errors.As(err, &te):
		off, expr = te.Offset, te.Expr
	case errors.As(err, &se):
		off, expr = se.Offset, se.Expr
	default:
		return n.off
	}
	var src string
	if json.Unmarshal(data[n.off:n.end], &src) != nil {
		return n.off
	}
	if expr != src {
		i := strings.Index(expr, src)
		if i < 0 || off < i || off > i+len(src) {
			return n.off
		}
		off -= i
	}
	return n.stringOffset(data, off)
}

// checkTypes checks every acceptor's paths against the shapes of its
// operation, as far as the file and svc give them.
func (l *linter) checkTypes(svc *serviceModel) {
	switch {
	case l.root == nil:
	case l.isSmithy():
		l.checkSmithy()
	case l.root.get("waiters") != nil:
		l.checkBotocore(svc)
	}
}

// checkSmithy checks a Smithy model's acceptors against its own shapes.
func (l *linter) checkSmithy() {
	m, err := shapes.Smithy(l.data)
	shapesNode := l.root.get("shapes")
	if shapesNode == nil {
		return
	}
	// A shape that does not decode is of unknown type; what is wrong with
	// it, where the loader did not read (members), is a problem too.
	for _, err := range leaves(err) {
		var se *shapes.ShapeError
		if !errors.As(err, &se) {
			continue
		}
		n := shapesNode.get(se.ID)
		where := cmpOr(n.get(se.Field), n)
		if where != nil {
			l.add(where.off, fmt.Sprintf("shapes[%q]: %s", se.ID, strings.TrimPrefix(se.Error(), "shape "+se.ID+": ")))
		}
	}
	for _, id := range shapesNode.keys {
		trait := shapesNode.get(id).get("traits").get(waitableTrait)
		if trait == nil {
			continue
		}
		var in, out jmespath.Type
		if m != nil {
			in, out, _ = m.Operation(id)
		}
		for _, name := range trait.keys {
			for i, an := range trait.get(name).get("acceptors").elems {
				var a classify.Acceptor
				if json.Unmarshal(l.data[an.off:an.end], &a) != nil {
					continue // the loader says why
				}
				for _, err := range classify.CheckTypes([]classify.Acceptor{a}, in, out) {
					l.acceptorProblem(name, i, an, err)
				}
			}
		}
	}
}

// acceptorProblem records a type problem of acceptor i of waiter name.
func (l *linter) acceptorProblem(name string, i int, an *jsonNode, err error) {
	var ae *classify.AcceptorError
	if !errors.As(err, &ae) {
		l.add(an.off, err.Error())
		return
	}
	de := &waiter.DefinitionError{Waiter: name, Acceptor: i, Rule: ae.Rule, Err: ae.Err}
	n := pathNode(an)
	if ae.Rule == "message" {
		n = an.get("message")
	}
	if n == nil {
		l.add(an.off, de.Error())
		return
	}
	l.add(exprOffset(l.data, n, ae.Err), de.Error())
}

// botocoreAcceptor is what lint reads of a botocore acceptor.
type botocoreAcceptor struct {
	Matcher  string          `json:"matcher"`
	Argument string          `json:"argument"`
	Expected json.RawMessage `json:"expected"`
}

// checkBotocore checks a botocore document's acceptors against the
// shapes of the service model: svc, or the service-2.json beside a
// waiters-2.json. Without one, what does not depend on shapes is checked
// (a pathAll on a comparison's boolean).
func (l *linter) checkBotocore(svc *serviceModel) {
	if svc == nil && filepath.Base(l.file) == "waiters-2.json" {
		for _, name := range []string{"service-2.json", "service-2.json.gz"} {
			beside := filepath.Join(filepath.Dir(l.file), name)
			if _, err := os.Stat(beside); err != nil {
				continue
			}
			s, err := readService(beside)
			if err != nil {
				l.add(0, fmt.Sprintf("the service model beside it: %v", err))
				return
			}
			svc = s
			break
		}
	}
	if svc == nil {
		l.note = " (paths not checked against shapes: no service model; see --service)"
	}
	waiters := l.root.get("waiters")
	for _, name := range waiters.keys {
		w := waiters.get(name)
		var out jmespath.Type
		if svc != nil {
			var op string
			if n := w.get("operation"); n != nil && json.Unmarshal(l.data[n.off:n.end], &op) == nil && op != "" {
				var ok bool
				if _, out, ok = svc.model.Operation(op); !ok {
					l.add(n.off, fmt.Sprintf("waiter %s: operation: %s has no operation %q%s", name, svc.file, op, nearestOp(op, svc.model.Operations())))
				}
			}
		}
		for i, an := range w.get("acceptors").elems {
			var b botocoreAcceptor
			if json.Unmarshal(l.data[an.off:an.end], &b) != nil || b.Argument == "" {
				continue
			}
			cmp, ok := map[string]classify.Comparator{"path": classify.StringEquals, "pathAll": classify.AllStringEquals, "pathAny": classify.AnyStringEquals}[b.Matcher]
			if !ok {
				continue
			}
			var str string
			if json.Unmarshal(b.Expected, &str) == nil {
				a := classify.Acceptor{State: classify.Success, Matcher: classify.OnOutput(b.Argument, cmp, str)}
				for _, err := range classify.CheckTypes([]classify.Acceptor{a}, nil, out) {
					l.acceptorProblem(name, i, an, err)
				}
				continue
			}
			l.checkLiteral(name, i, an, b, out)
		}
	}
}

// checkLiteral checks a botocore path matcher whose expected value is not
// a string: botocore compares the argument's result (pathAll, pathAny:
// each element of it) with the JSON value.
func (l *linter) checkLiteral(name string, i int, an *jsonNode, b botocoreAcceptor, out jmespath.Type) {
	e, err := jmespath.Compile(b.Argument)
	if err != nil {
		return // the loader says why
	}
	rt, err := e.Check(out)
	for _, err := range leaves(err) {
		l.acceptorProblem(name, i, an, &classify.AcceptorError{Index: i, Rule: "path", Err: fmt.Errorf("%s: %w", b.Argument, err)})
	}
	var v any
	if json.Unmarshal(b.Expected, &v) != nil {
		return
	}
	want := jmespath.Null
	switch v.(type) {
	case bool:
		want = jmespath.Boolean
	case float64:
		want = jmespath.Number
	case []any:
		want = jmespath.Array
	case map[string]any:
		want = jmespath.Object
	}
	// Python's True == 1: botocore finds a boolean and a number equal.
	differ := func(k jmespath.Kind) bool {
		return k != want && !(k == jmespath.Boolean && want == jmespath.Number || k == jmespath.Number && want == jmespath.Boolean)
	}
	got := rt
	what := "the argument gives"
	if b.Matcher != "path" {
		k, ok := rt.Kind()
		if ok && k != jmespath.Array {
			l.acceptorProblem(name, i, an, &classify.AcceptorError{Index: i, Rule: "path", Err: fmt.Errorf("%s: %s matches an array (botocore: a list), but the argument gives %s: it never matches", b.Argument, b.Matcher, jmespath.Describe(rt))})
			return
		}
		if got = rt.Elem(); !ok || got == nil {
			return
		}
		what = "the argument's elements are"
	}
	if k, ok := got.Kind(); ok && k != jmespath.Null && differ(k) {
		l.acceptorProblem(name, i, an, &classify.AcceptorError{Index: i, Rule: "path", Err: fmt.Errorf("%s: expected %s is %s, but %s %s: the %s matcher never matches", b.Argument, bytes.TrimSpace(b.Expected), article(want), what, jmespath.Describe(got), b.Matcher)})
	}
}

func article(k jmespath.Kind) string {
	switch k {
	case jmespath.Null:
		return "null"
	case jmespath.Array, jmespath.Object:
		return "an " + k.String()
	}
	return "a " + k.String()
}

// nearestOp suggests the operation nearest op.
func nearestOp(op string, ops []string) string {
	if n := suggest.Nearest(op, ops, 3); n != "" {
		return fmt.Sprintf(" (did you mean %s?)", n)
	}
	return ""
}
