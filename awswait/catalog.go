package awswait

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/waitable/waitable/internal/suggest"
	"github.com/waitable/waitable/waiter"
	"github.com/waitable/waitable/waiter/model"
)

// waitersJSON is AWS's published waiter definitions: every waiter of the
// Smithy models in aws/api-models-aws, and, for the services whose Smithy
// model is not there (EC2 among them), the newest waiters-2.json of
// botocore. It is made from the repository's testdata/aws by
// TestEmbeddedWaiters (go test -run TestEmbeddedWaiters -update).
//
//go:embed waiters.json
var waitersJSON []byte

// embedded is waiters.json's shape.
type embedded struct {
	// Smithy holds one entry per waiter of the Smithy models.
	Smithy []smithyEntry `json:"smithy"`
	// Botocore holds, by botocore service name, a waiters-2.json document.
	Botocore map[string]json.RawMessage `json:"botocore"`
}

type smithyEntry struct {
	SDKID     string          `json:"sdkId"`
	Operation string          `json:"operation"`
	Output    string          `json:"output,omitempty"`
	Errors    []string        `json:"errors"`
	Name      string          `json:"name"`
	Waiter    json.RawMessage `json:"waiter"`
}

// botocoreNames maps the Go package of a service whose botocore name
// differs to that name.
var botocoreNames = map[string]string{
	"elasticloadbalancing":     "elb",
	"elasticloadbalancingv2":   "elbv2",
	"directoryservice":         "ds",
	"databasemigrationservice": "dms",
	"lexmodelsv2":              "lexv2-models",
}

// serviceWaiters returns the waiters of the service whose aws-sdk-go-v2
// package is pkg (the SDK ID in lower case with no spaces). Each service's
// are decoded from the embedded definitions on first use and kept, so that
// a program holds the waiters of the services it uses, not all of AWS's.
func serviceWaiters(pkg string) ([]waiter.Definition, error) {
	v, _ := decoded.LoadOrStore(pkg, &lazyService{})
	s := v.(*lazyService)
	s.once.Do(func() { s.defs, s.err = decodeService(pkg) })
	return s.defs, s.err
}

// decoded holds a *lazyService by package name.
var decoded sync.Map

type lazyService struct {
	once sync.Once
	defs []waiter.Definition
	err  error
}

// decodeService decodes the embedded waiters of the service of package
// pkg.
func decodeService(pkg string) ([]waiter.Definition, error) {
	var e embedded
	if err := json.Unmarshal(waitersJSON, &e); err != nil {
		return nil, fmt.Errorf("awswait: the embedded waiters do not decode: %w", err)
	}
	var out []waiter.Definition
	var errs []error
	for _, s := range e.Smithy {
		if packageName(s.SDKID) != pkg {
			continue
		}
		trait, _ := json.Marshal(map[string]json.RawMessage{s.Name: s.Waiter})
		defs, err := model.ParseWaitable(trait)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		d := defs[0]
		d.Operation = waiter.Operation{ID: s.Operation, Output: s.Output, Errors: s.Errors, Model: awsModel{pkg}}
		out = append(out, d)
	}
	doc, ok := e.Botocore[botocoreName(pkg, e.Botocore)]
	if ok {
		c, err := model.LoadBotocore(bytes.NewReader(doc))
		if err != nil {
			errs = append(errs, err)
		} else {
			for _, n := range c.Names() {
				d, _ := c.Get(n)
				d.Operation.Model = awsModel{pkg}
				out = append(out, d)
			}
		}
	}
	return out, errors.Join(errs...)
}

// botocoreName returns the botocore name of the service whose Go package is
// pkg, among the names of docs: botocoreNames' if it has one, else the
// name that is pkg but for its dashes ("arc-region-switch" for
// arcregionswitch), else pkg.
func botocoreName(pkg string, docs map[string]json.RawMessage) string {
	if b, ok := botocoreNames[pkg]; ok {
		return b
	}
	for name := range docs {
		if notAlnum.ReplaceAllString(name, "") == pkg {
			return name
		}
	}
	return pkg
}

var notAlnum = regexp.MustCompile(`[^a-z0-9]`)

// packageName is the aws-sdk-go-v2 package of a service's SDK ID.
func packageName(sdkID string) string { return notAlnum.ReplaceAllString(strings.ToLower(sdkID), "") }

// Names returns the names of AWS's waiters for the service of method,
// sorted.
func Names[In, Out, Options any](method Method[In, Out, Options]) []string {
	defs, _ := serviceWaiters(servicePackage[In]())
	return names(defs)
}

// names returns the names of defs, sorted.
func names(defs []waiter.Definition) []string {
	var names []string
	for _, d := range defs {
		names = append(names, d.Name)
	}
	slices.Sort(names)
	return names
}

// servicePackage is the Go package name of an aws-sdk-go-v2 service's
// input type: "dynamodb" for dynamodb.DescribeTableInput.
func servicePackage[In any]() string {
	p := reflect.TypeFor[In]().PkgPath()
	return p[strings.LastIndexByte(p, '/')+1:]
}

// Definition returns AWS's waiter named name for the service of method,
// checking that it polls method's operation. A name the service has no
// waiter of (or a service with none) is an error matching
// model.ErrUnknownWaiter, as [model.Catalog.Get]'s is, that suggests the
// nearest names.
func Definition[In, Out, Options any](method Method[In, Out, Options], name string) (waiter.Definition, error) {
	return definition(servicePackage[In](), reflect.TypeFor[In](), name)
}

// definition returns AWS's waiter named name for the service whose
// aws-sdk-go-v2 package is pkg, checking that it polls the operation whose
// input type is in.
func definition(pkg string, in reflect.Type, name string) (waiter.Definition, error) {
	defs, err := serviceWaiters(pkg)
	if err != nil {
		return waiter.Definition{}, err
	}
	if len(defs) == 0 {
		return waiter.Definition{}, unknownWaiterf("awswait: AWS publishes no waiters for %s (the package of %v)", pkg, in)
	}
	i := slices.IndexFunc(defs, func(d waiter.Definition) bool { return d.Name == name })
	if i < 0 {
		return waiter.Definition{}, unknownWaiterf("awswait: %s has no waiter %q%s", pkg, name, nearest(name, names(defs)))
	}
	d := defs[i]
	op := d.Operation.ID[strings.LastIndexByte(d.Operation.ID, '#')+1:]
	if in := in.Name(); strings.TrimSuffix(in, "Input") != op {
		return waiter.Definition{}, fmt.Errorf("awswait: %s.%s polls %s, not the operation of %s.%s", pkg, name, op, pkg, in)
	}
	return d, nil
}

// unknownWaiterError is a waiter name AWS does not publish for a service:
// it matches model.ErrUnknownWaiter.
type unknownWaiterError struct{ msg string }

func unknownWaiterf(format string, args ...any) error {
	return &unknownWaiterError{msg: fmt.Sprintf(format, args...)}
}

func (e *unknownWaiterError) Error() string { return e.msg }

// Is matches model.ErrUnknownWaiter.
func (e *unknownWaiterError) Is(target error) bool { return target == model.ErrUnknownWaiter }

// New returns AWS's waiter named name (such as "InstanceRunning") for the
// service of method (such as client.DescribeInstances), calling it through
// [Op]: one line from an aws-sdk-go-v2 client to a waiter. Its acceptors'
// paths are checked against the SDK's Go types, and its retry strategy is
// the standard one with the service's published defaults
// (retry.WithService), unless opts say otherwise. A pending answer whose
// HTTP response says Retry-After (or x-amz-retry-after) is polled again
// no sooner (waiter.WithPollHint, reading the output's ResultMetadata).
// A name AWS publishes no waiter of for the service is an error matching
// model.ErrUnknownWaiter (see [Definition]).
func New[In, Out, Options any](method Method[In, Out, Options], name string, opts ...waiter.Option) (*waiter.Waiter[*In, *Out], error) {
	def, err := Definition(method, name)
	if err != nil {
		return nil, err
	}
	op, err := Op(method)
	if err != nil {
		return nil, err
	}
	defaults := serviceStrategy(servicePackage[In]())
	if hint := pollHint[Out](); hint != nil {
		defaults = append(defaults, waiter.WithPollHint(hint))
	}
	return waiter.New(def, op, append(defaults, opts...)...)
}

// nearest suggests the names closest to name.
func nearest(name string, names []string) string {
	var close []string
	for _, n := range names {
		if d := suggest.Distance(strings.ToLower(n), strings.ToLower(name)); d <= max(2, len(name)/4) {
			close = append(close, n)
		}
	}
	if len(close) == 0 {
		if len(names) > 8 {
			names = append(names[:8:8], "…")
		}
		return fmt.Sprintf(" (it has %s)", strings.Join(names, ", "))
	}
	return fmt.Sprintf(" (did you mean %s?)", strings.Join(close, " or "))
}
