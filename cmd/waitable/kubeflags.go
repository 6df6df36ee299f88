package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/waitable/waitable/kubewait"
)

const kubeUsage = `Usage: waitable kube [flags] TYPE/NAME...
       waitable kube [flags] TYPE[,TYPE...] NAME...
       waitable kube [flags] -f FILE... [-R]
       waitable kube [flags] TYPE[,TYPE...] (-l SELECTOR | --field-selector SEL | --all) [--count N]

Waits, as kubectl wait does, until every object meets every --for, one
meets a --fail-on rule, or --timeout passes. TYPE is what kubectl takes
(widget, widgets, wd, widget.waitable.test, widgets.v1.waitable.test). A
manifest (-f) names objects of any kinds. The objects' watches tell the
wait of each change; on success each object prints kubectl's line on
standard output (widget.waitable.test/a condition met), once per --for as
kubectl does.

Rules (--for, --fail-on), as kubectl wait --for writes them:
  condition=TYPE[=STATUS]   a status condition (STATUS True if left out)
  jsonpath=EXPR[=VALUE]     a JSONPath value, or that the path has one
  create, delete            the object exists, or is gone
  kstatus=Current|Failed    kstatus's verdict (reconciled, or failed)

Flags:
  --for RULE            what each object must meet (required; repeatable: every
                        one must hold of the object at once; delete takes no other)
  --fail-on RULE        an object meeting RULE ends the wait with failure (repeatable)
  -f, --filename FILE   the objects of a manifest: a file, a directory (its .json,
                        .yaml and .yml files, its subfolders' too) or - for standard input; YAML
                        documents, JSON, a List (repeatable)
  -R, --recursive       with -f: the directories' subdirectories too (default true,
                        as kubectl wait's; -R=false reads a directory's own files)
  -l, --selector SEL    the objects whose labels match SEL (app=web,tier!=db)
  --field-selector SEL  the objects whose fields match SEL (metadata.name=a)
  --all                 every object of the type in the namespace
  --count N             with a selector or --all: wait for at least N objects,
                        those created during the wait included, each meeting --for
  -n, --namespace NS    the namespace (default: the kubeconfig context's, or default)
  -A, --all-namespaces  with a selector or --all: every namespace
  --timeout D           the command's total time, discovery included, for every
                        object at once (default 30s; it must be positive)
  -o, --output FORMAT   name, json or yaml: print each object that met --for as
                        kubectl wait -o does, once per --for
  --kubeconfig FILE     the kubeconfig (default: $KUBECONFIG, or ~/.kube/config)
  --context NAME        the kubeconfig's context (default: its current context)
  --json                one JSON object per event on standard output, then the result
  --quiet               print no progress
`

// kubeFlags are waitable kube's flags.
type kubeFlags struct {
	forRules                []kubewait.Rule
	failOn                  []kubewait.Rule
	files                   []string
	recursive               bool
	selector, fieldSelector string
	namespace               string
	all, allNamespaces      bool
	count                   int
	timeout                 time.Duration
	output                  string
	kubeconfig, kubeContext string
	json, quiet             bool
}

// forText is the --for rules as kubectl writes them, joined by ", ".
func (f kubeFlags) forText() string {
	texts := make([]string, len(f.forRules))
	for i, r := range f.forRules {
		texts[i] = r.String()
	}
	return strings.Join(texts, ", ")
}

// bySelector reports whether the objects are those of a selector or --all.
func (f kubeFlags) bySelector() bool { return f.selector != "" || f.fieldSelector != "" || f.all }

// kubeTarget is one TYPE/NAME of the command line, or one TYPE of a
// selector or --all (name "").
type kubeTarget struct{ typ, name string }

// stringsFlag is a repeatable flag's values.
type stringsFlag []string

func (s *stringsFlag) String() string     { return strings.Join(*s, ",") }
func (s *stringsFlag) Set(v string) error { *s = append(*s, v); return nil }

// parseKube reads the command line: the flags (before, between or after
// the arguments, as kubectl takes them) and the targets.
func parseKube(args []string, stderr io.Writer) (kubeFlags, []kubeTarget, error) {
	var f kubeFlags
	fs := flag.NewFlagSet("kube", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, kubeUsage) }
	rule := func(s string) (kubewait.Rule, error) {
		r, err := kubewait.ParseRule(s)
		if err != nil {
			return r, errors.New(strings.TrimPrefix(err.Error(), "kubewait: "))
		}
		return r, nil
	}
	fs.Func("for", "", func(s string) error {
		r, err := rule(s)
		f.forRules = append(f.forRules, r)
		return err
	})
	fs.Func("fail-on", "", func(s string) error {
		r, err := rule(s)
		f.failOn = append(f.failOn, r)
		return err
	})
	for _, name := range []string{"f", "filename"} {
		fs.Var((*stringsFlag)(&f.files), name, "")
	}
	for _, name := range []string{"R", "recursive"} {
		fs.BoolVar(&f.recursive, name, true, "") // kubectl wait's default
	}
	for _, name := range []string{"l", "selector"} {
		fs.StringVar(&f.selector, name, "", "")
	}
	fs.StringVar(&f.fieldSelector, "field-selector", "", "")
	for _, name := range []string{"n", "namespace"} {
		fs.StringVar(&f.namespace, name, "", "")
	}
	for _, name := range []string{"A", "all-namespaces"} {
		fs.BoolVar(&f.allNamespaces, name, false, "")
	}
	for _, name := range []string{"o", "output"} {
		fs.StringVar(&f.output, name, "", "")
	}
	fs.BoolVar(&f.all, "all", false, "")
	fs.IntVar(&f.count, "count", 0, "")
	fs.DurationVar(&f.timeout, "timeout", 30*time.Second, "")
	fs.StringVar(&f.kubeconfig, "kubeconfig", "", "")
	fs.StringVar(&f.kubeContext, "context", "", "")
	fs.BoolVar(&f.json, "json", false, "")
	fs.BoolVar(&f.quiet, "quiet", false, "")
	args, err := parseInterleaved(fs, args, false)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return f, nil, err
		}
		return f, nil, usageError{err}
	}
	var targets []kubeTarget
	if len(f.files) == 0 {
		if targets, err = kubeTargets(args, f); err != nil {
			return f, nil, err
		}
	}
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	switch {
	case len(f.files) > 0 && len(args) > 0:
		bad("-f and %q: give files or TYPE arguments, not both (as kubectl)", args[0])
	case len(f.files) > 0 && (f.bySelector() || f.allNamespaces):
		bad("-f names its objects: it takes no -l, --field-selector, --all or -A")
	}
	switch {
	case len(f.forRules) == 0:
		bad("--for is required (condition=Ready, jsonpath={.status.phase}=Running, create, delete, kstatus=Current)")
	case len(f.forRules) > 1 && slices.ContainsFunc(f.forRules, func(r kubewait.Rule) bool { return r.String() == "delete" }):
		bad("--for=delete takes no other --for (an object that is gone meets no other rule)")
	}
	if f.timeout <= 0 {
		bad("--timeout %v: want a positive duration (the wait's total time)", f.timeout)
	}
	switch {
	case f.count < 0:
		bad("--count %d: negative", f.count)
	case f.count > 0 && !f.bySelector():
		bad("--count needs -l, --field-selector or --all")
	case f.count > 0 && len(targets) > 1:
		bad("--count takes one TYPE, not %d", len(targets))
	}
	if f.selector != "" {
		if _, err := labels.Parse(f.selector); err != nil {
			bad("-l %q: %v", f.selector, err)
		}
	}
	if f.fieldSelector != "" {
		if _, err := fields.ParseSelector(f.fieldSelector); err != nil {
			bad("--field-selector %q: %v", f.fieldSelector, err)
		}
	}
	switch f.output = strings.ToLower(f.output); {
	case f.output != "" && f.output != "name" && f.output != "json" && f.output != "yaml":
		bad("-o %s: want name, json or yaml", f.output)
	case f.output != "" && f.json:
		bad("-o %s and --json: give one of them (--json prints the events, -o the objects)", f.output)
	}
	if len(errs) > 0 {
		return f, nil, usageError{errors.Join(errs...)}
	}
	return f, targets, nil
}

// kubeTargets reads the arguments as kubectl does: TYPE/NAME..., or
// TYPE[,TYPE...] NAME... (each TYPE's NAMEs in turn), or TYPE[,TYPE...]
// with a selector or --all.
func kubeTargets(args []string, f kubeFlags) ([]kubeTarget, error) {
	if len(args) == 0 {
		return nil, usagef("want TYPE/NAME..., TYPE NAME..., -f FILE or TYPE with -l or --all")
	}
	if f.selector != "" && f.all {
		return nil, usagef("-l and --all: give one of them")
	}
	var targets []kubeTarget
	add := func(t kubeTarget) {
		if !slices.Contains(targets, t) {
			targets = append(targets, t)
		}
	}
	if strings.Contains(args[0], "/") {
		for _, a := range args {
			typ, name, ok := strings.Cut(a, "/")
			if !ok || typ == "" || name == "" || strings.Contains(name, "/") {
				return nil, usagef("%q: want TYPE/NAME, as every argument after the first TYPE/NAME", a)
			}
			add(kubeTarget{typ, name})
		}
	} else {
		for typ := range strings.SplitSeq(args[0], ",") {
			if typ == "" {
				return nil, usagef("%q: an empty TYPE", args[0])
			}
			for _, name := range args[1:] {
				if strings.Contains(name, "/") {
					return nil, usagef("%q: after TYPE, give NAMEs (or only TYPE/NAME arguments)", name)
				}
				add(kubeTarget{typ, name})
			}
			if len(args) == 1 {
				add(kubeTarget{typ, ""})
			}
		}
	}
	named := targets[0].name != ""
	switch {
	case named && f.bySelector():
		return nil, usagef("names and -l, --field-selector or --all: give one of them")
	case !named && !f.bySelector():
		return nil, usagef("%s: give NAMEs, -l SELECTOR, --field-selector SELECTOR or --all", args[0])
	case named && f.allNamespaces:
		return nil, usagef("-A: objects are named in one namespace; use -n, or -l or --all with -A")
	}
	return targets, nil
}
