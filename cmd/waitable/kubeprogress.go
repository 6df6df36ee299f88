package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/internal/plural"
	"github.com/waitable/waitable/kubewait"
)

// kubeProgress prints waitable kube's events as they happen (a line each
// on standard error, or a JSON object each on standard output with
// --json), then how the wait ended. Every request's goroutine calls
// event: one lock keeps the lines whole.
type kubeProgress struct {
	o           *kubeOptions
	kinds       map[schema.GroupVersionResource]schema.GroupVersionKind // each resource's kind
	out, errOut io.Writer
	start       time.Time
	server      string      // the API server's URL
	answers     *lastAnswer // its last answer (nil: not known)
	// named are the named objects, in the order of the command line or
	// the manifest; lines the lines held back for the rule waited for
	// now: the named objects' under nil, each selector's under its
	// request.
	named   []kubewait.Ref
	lines   map[*kubewait.Request]*lineQueue
	overdue map[kubewait.Ref]bool // the objects a line said were overdue
	mu      sync.Mutex
}

type kubeEventJSON struct {
	Time      time.Time `json:"time"`
	ElapsedMS float64   `json:"elapsed_ms"`
	Resource  string    `json:"resource"`
	Namespace string    `json:"namespace,omitempty"`
	Name      string    `json:"name,omitempty"`
	Object    string    `json:"object,omitempty"`
	State     string    `json:"state,omitempty"`
	Reason    string    `json:"reason,omitempty"`
	Message   string    `json:"message,omitempty"`
	Outcome   string    `json:"outcome,omitempty"`
	Watch     string    `json:"watch,omitempty"`
	Error     string    `json:"error,omitempty"`
	// ETA is the time the object's wait has left, estimated from its
	// past waits; Overdue that it has run longer than 95% of them.
	ETA     *etaJSON `json:"eta,omitempty"`
	Overdue bool     `json:"overdue,omitempty"`
}

type kubeResultJSON struct {
	Result    string           `json:"result"`
	ElapsedMS float64          `json:"elapsed_ms"`
	Objects   []kubeObjectJSON `json:"objects"`
	Error     string           `json:"error,omitempty"`
}

type kubeObjectJSON struct {
	Resource  string `json:"resource"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name,omitempty"`
	Object    string `json:"object,omitempty"`
	State     string `json:"state"`
	Reason    string `json:"reason,omitempty"`
	Message   string `json:"message,omitempty"`
	Error     string `json:"error,omitempty"`
}

// event prints one event of r's wait: an object's transition, or what
// happened to a watch.
func (p *kubeProgress) event(r *kubewait.Request, e kubewait.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.o.json {
		j := kubeEventJSON{Time: e.Time, ElapsedMS: ms(e.Time.Sub(p.start)), Resource: resourceName(e.Ref.Resource),
			Namespace: e.Ref.Namespace, Name: e.Ref.Name, Watch: e.Watch}
		if e.Watch == "" && e.Ref.Name == "" { // the Count's: its request's
			j.Resource, j.Namespace = resourceName(r.Resource), r.Namespace
		}
		if e.Watch == "" {
			j.Object = p.object(r, e.Ref)
			j.State, j.Reason, j.Message, j.Outcome = e.Decision.String(), e.Reason, e.Message, e.End
			if x := e.Estimate; x.None == "" && e.End == "" {
				j.ETA = &etaJSON{ms(x.P10), ms(x.P50), ms(x.P90)}
			}
			j.Overdue = e.Estimate.Overdue
		}
		if e.Err != nil {
			j.Error = e.Err.Error()
		}
		writeJSON(p.out, j)
		return
	}
	if e.Watch == "" && e.Ref.Name != "" {
		p.track(r, e)
	}
	if p.o.quiet {
		return
	}
	at := "+" + short(e.Time.Sub(p.start)).String()
	if e.Watch != "" {
		line := fmt.Sprintf("%s  %s: watch %s", at, p.watched(r, e.Ref), e.Watch)
		if e.Err != nil {
			line += ": " + e.Err.Error()
		}
		fmt.Fprintln(p.errOut, line)
		return
	}
	state := e.Decision.String()
	if e.End != "" {
		state = e.End
	}
	d := detail(e.Reason, e.Message)
	if e.Ref.Name == "" { // the Count: fewer objects match
		d = " (" + countMessage(e.Message) + ")"
	}
	if p.overdue == nil {
		p.overdue = map[kubewait.Ref]bool{}
	}
	said := p.overdue[e.Ref]
	d += etaText(e.Estimate, e.End != "", &said)
	p.overdue[e.Ref] = said
	fmt.Fprintf(p.errOut, "%s  %s  %s%s\n", at, p.object(r, e.Ref), state, d)
}

// finish prints how the wait ended: on standard output, kubectl's line
// (or, with -o, the object) for each object that met --for, once per
// --for, in the order of the command line or the manifest (a selector's
// objects by namespace and name); a summary on standard error. It
// returns the worst outcome's exit status.
func (p *kubeProgress) finish(outcomes []kubeOutcome, elapsed time.Duration) (int, error) {
	code := exitSuccess
	var invalid error
	for _, o := range outcomes {
		if worse(o.code, code) {
			code = o.code
		}
		if o.code == exitUsage {
			invalid = o.err
		}
	}
	var fault error // the API server's, for exitUnavailable and exitNoPerm
	for _, o := range outcomes {
		if o.code == code && fault == nil {
			fault = serverFault(p.server, o.err)
		}
	}
	var se serverError
	if code == exitTimeout && errors.As(p.answers.last(), &se) {
		// The server answered 5xx, or could not be reached, or refused
		// access, to the end.
		code, fault = se.code, se
	}
	word := map[int]string{exitSuccess: "success", exitFailure: "failure", exitTimeout: "timeout",
		exitUsage: "usage", exitInterrupted: "interrupted", exitUnavailable: "server unavailable", exitNoPerm: "access refused"}[code]
	if p.o.json {
		r := kubeResultJSON{Result: word, ElapsedMS: ms(elapsed), Objects: []kubeObjectJSON{}}
		for _, o := range outcomes {
			for _, obj := range o.res.Objects {
				j := kubeObjectJSON{Resource: resourceName(obj.Resource), Namespace: obj.Namespace, Name: obj.Name,
					Object: p.object(o.req, obj.Ref), State: obj.Decision.String(), Reason: obj.Reason, Message: obj.Message}
				if obj.Name == "" {
					j.Object, j.Resource = "", resourceName(o.req.Resource)
				}
				if obj.Err != nil {
					j.Error = obj.Err.Error()
				}
				r.Objects = append(r.Objects, j)
			}
			if o.err != nil && r.Error == "" && !errors.Is(o.err, errStopped) {
				r.Error = o.err.Error()
			}
		}
		writeJSON(p.out, r)
		if invalid == nil {
			return code, fault
		}
		return code, usageOf(invalid)
	}
	met := 0
	for _, o := range outcomes {
		for _, obj := range o.res.Objects {
			if obj.Name != "" && obj.Decision == classify.Success {
				met++
			}
		}
	}
	if code == exitSuccess {
		if !p.o.quiet {
			fmt.Fprintf(p.errOut, "waitable: success after %s: %s met %s\n", short(elapsed), plural.N(met, "object"), p.o.rulesText())
		}
		return code, nil
	}
	if code == exitUsage {
		return code, usageOf(invalid)
	}
	var notMet error // kubectl's last words on a timeout
	fmt.Fprintf(p.errOut, "waitable: %s after %s, waiting for %s:\n", word, short(elapsed), rulesOf(outcomes))
	for _, o := range outcomes {
		switch {
		case errors.Is(o.err, kubewait.ErrNoObjects):
			fmt.Fprintf(p.errOut, "  %s: no matching resources found\n", p.selection(o.req))
			continue
		case o.err != nil && len(o.res.Objects) == 0 && !errors.Is(o.err, errStopped):
			fmt.Fprintf(p.errOut, "  %s: %v\n", p.selection(o.req), o.err)
			continue
		}
		for _, obj := range o.res.Objects {
			if obj.Decision == classify.Success {
				fmt.Fprintf(p.errOut, "  %s: met%s\n", p.object(o.req, obj.Ref), detail(obj.Reason, obj.Message))
				continue
			}
			if obj.Name == "" { // the Count: fewer objects match
				fmt.Fprintf(p.errOut, "  %s: %s, want --count %d\n", p.selection(o.req), countMessage(obj.Message), o.req.Count)
				continue
			}
			state := "not met"
			if notMet == nil && obj.Decision != classify.Failure {
				notMet = fmt.Errorf("timed out waiting for the condition on %s/%s", obj.Resource.Resource, obj.Name)
			}
			switch {
			case obj.Decision == classify.Failure && obj.Rule != "":
				state = "failed on " + obj.Rule
			case obj.Decision == classify.Failure:
				state = "failed"
			case obj.Reason == "NotFound" && obj.Message == "":
				state, obj.Reason = "not found", ""
			}
			fmt.Fprintf(p.errOut, "  %s: %s%s\n", p.object(o.req, obj.Ref), state, detail(obj.Reason, obj.Message))
		}
	}
	if fault == nil && code == exitTimeout {
		return code, notMet
	}
	return code, fault
}

// rulesOf is the rule that outcomes waited for, as kubectl writes it.
func rulesOf(outcomes []kubeOutcome) string {
	if len(outcomes) == 0 {
		return ""
	}
	texts := make([]string, len(outcomes[0].req.For))
	for i, r := range outcomes[0].req.For {
		texts[i] = r.String()
	}
	return strings.Join(texts, ", ")
}

// countMessage is what kubewait says of a Count not reached ("2 of 3
// objects: widgets.waitable.test in ns matching app=web") without what
// the command's own line already names.
func countMessage(m string) string {
	m, _, _ = strings.Cut(m, ": ")
	return m
}

// usageOf makes a request that kubewait refused a usage error.
func usageOf(err error) error {
	if err == nil {
		return nil
	}
	return usageError{err}
}

// detail is " (reason: message)", or less when either is empty.
func detail(reason, message string) string {
	switch {
	case reason != "" && message != "":
		return " (" + reason + ": " + message + ")"
	case reason+message != "":
		return " (" + reason + message + ")"
	}
	return ""
}
