package cluster

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Step is one write of the scheduler ([Bind]) or the kubelet (a status)
// about a pod, after a delay of real time. A status step reads the pod,
// changes its status as the kubelet would and writes it: a step changes
// what it names and keeps the rest (restart counts, last states,
// conditions), so that steps follow one another as a pod's life does.
type Step struct {
	name   string
	after  time.Duration
	bind   bool
	node   string
	status func(pod *corev1.Pod, sc statusContext)
	// event, for a step that is the kubelet's Warning Event about the
	// pod rather than a status: its reason and message.
	event *corev1.Event
}

// statusContext is what a status step knows besides the pod.
type statusContext struct {
	now   metav1.Time
	nodes int // how many nodes the cluster has
}

// After returns s taken d after the step before it (or after the pod
// appeared, or Apply was called, for a first step).
func (s Step) After(d time.Duration) Step {
	s.after = d
	return s
}

// Name is the step's name, as [Write.Step] records it: "Bind", "Ready",
// "ImagePullBackOff", ...
func (s Step) Name() string { return s.name }

// HealthyDelay is how long after its ContainerCreating status a pod of
// [Healthy] becomes Running and Ready, and after that Succeeded if it
// runs to completion.
const HealthyDelay = 100 * time.Millisecond

// Healthy is the kubelet of a cluster where every pod starts, in
// [HealthyDelay]: see [HealthyAfter].
func Healthy(pod *corev1.Pod) []Step { return HealthyAfter(HealthyDelay)(pod) }

// HealthyAfter returns the kubelet of a cluster where every pod starts in
// d: it binds the pod, writes ContainerCreating, then Ready d later, and
// for a pod that runs to completion (restartPolicy Never or OnFailure, a
// Job's) Succeeded [HealthyDelay] after that.
func HealthyAfter(d time.Duration) Kubelet {
	return func(pod *corev1.Pod) []Step {
		steps := []Step{Bind(), ContainerCreating(), Ready().After(d)}
		if pod.Spec.RestartPolicy != corev1.RestartPolicyAlways && pod.Spec.RestartPolicy != "" {
			steps = append(steps, Succeeded().After(HealthyDelay))
		}
		return steps
	}
}

// backOff returns the kubelet's back-off before the n-th retry (from 1)
// of an image pull or a container's restart: 10 s, doubled each time, at
// most 5 minutes.
func backOff(n int) time.Duration {
	d := 10 * time.Second
	for i := 1; i < n && d < 5*time.Minute; i++ {
		d *= 2
	}
	return min(d, 5*time.Minute)
}

// PullFailing is the kubelet of a pod whose container's image does not
// pull: bind, ContainerCreating, then ErrImagePull with err's message
// (after pull, the time the failed pull takes) and ImagePullBackOff at
// once, again and again at the kubelet's back-off (10 s, 20 s, 40 s, ...,
// at most 5 minutes).
func PullFailing(container string, err PullError, pull time.Duration) []Step {
	steps := []Step{Bind(), ContainerCreating()}
	for n := 1; n <= 10; n++ {
		after := pull
		if n > 1 {
			after += backOff(n - 1)
		}
		steps = append(steps, ErrImagePull(container, err).After(after), ImagePullBackOff(container, err))
	}
	return steps
}

// CrashLooping is the kubelet of a pod whose container exits soon after
// each start: bind, ContainerCreating, Running, then CrashLoopBackOff
// with exit (after run, the time the container runs) and Running again
// at the kubelet's back-off (10 s, 20 s, 40 s, ..., at most 5 minutes),
// the restart count rising by one with each crash.
func CrashLooping(container string, exit Exit, run time.Duration) []Step {
	steps := []Step{Bind(), ContainerCreating(), Running().After(HealthyDelay)}
	for n := 1; n <= 10; n++ {
		steps = append(steps, CrashLoopBackOff(container, exit).After(run), Running().After(backOff(n)))
	}
	return steps
}

// Bind binds the pod as the scheduler does (a Binding, which sets its
// PodScheduled condition): to the node its required node affinity names
// (a DaemonSet's pod), or to the cluster's nodes in turn. A pod already
// bound stays where it is.
func Bind() Step { return Step{name: "Bind", bind: true} }

// BindTo binds the pod to node, as [Bind] does.
func BindTo(node string) Step { return Step{name: "Bind", bind: true, node: node} }

// Exit is how a container's process ended.
type Exit struct {
	// Code is the exit code: 137 for SIGKILL.
	Code int32
	// Reason is the runtime's reason: "Error" for a non-zero exit,
	// "OOMKilled" for the kernel's OOM killer, "Completed" for 0.
	Reason string
}

// OOMKilled is a container killed by the kernel's OOM killer.
var OOMKilled = Exit{Code: 137, Reason: "OOMKilled"}

// ExitCode is a process that exited with code, as the runtime reports it
// (reason "Error", or "Completed" for 0).
func ExitCode(code int32) Exit {
	if code == 0 {
		return Exit{Code: 0, Reason: "Completed"}
	}
	return Exit{Code: code, Reason: "Error"}
}

// PullError is how an image pull failed, as the container runtime says
// it: the kubelet puts its message in the container's status, behind
// ErrImagePull and, during the back-off, ImagePullBackOff.
type PullError struct {
	// Transient tells a pull that may succeed if tried again (the
	// registry timed out or was unavailable) from one that will not (the
	// image is not there).
	Transient bool
	message   func(r imageRef) string
}

// The pull errors of containerd and CRI-O, with the messages they give.
var (
	// ImageNotFound: containerd found no such tag or digest.
	ImageNotFound = PullError{message: func(r imageRef) string {
		return fmt.Sprintf("rpc error: code = NotFound desc = failed to pull and unpack image %[1]q: "+
			"failed to resolve reference %[1]q: %[1]s: not found", r.full)
	}}
	// ManifestUnknown: CRI-O's registry answered MANIFEST_UNKNOWN.
	ManifestUnknown = PullError{message: func(r imageRef) string {
		return fmt.Sprintf("rpc error: code = Unknown desc = initializing source docker://%s: "+
			"reading manifest %s in %s: manifest unknown", r.full, r.tag, r.repoFull)
	}}
	// RegistryTLSTimeout: containerd's request to the registry timed out
	// in the TLS handshake.
	RegistryTLSTimeout = PullError{Transient: true, message: func(r imageRef) string {
		return fmt.Sprintf("rpc error: code = Unknown desc = failed to pull and unpack image %[1]q: "+
			"failed to resolve reference %[1]q: failed to do request: Head %[2]q: net/http: TLS handshake timeout",
			r.full, r.manifestURL())
	}}
	// RegistryUnavailable: the registry answered containerd 503.
	RegistryUnavailable = PullError{Transient: true, message: func(r imageRef) string {
		return fmt.Sprintf("rpc error: code = Unknown desc = failed to pull and unpack image %[1]q: "+
			"failed to resolve reference %[1]q: unexpected status from HEAD request to %[2]s: 503 Service Unavailable",
			r.full, r.manifestURL())
	}}
)

// Message returns the message of a pull of image that failed with e.
func (e PullError) Message(image string) string { return e.message(parseImage(image)) }

// imageRef is an image reference as the runtime spells it.
type imageRef struct {
	full     string // docker.io/library/nginx:1.27
	host     string // docker.io
	repo     string // library/nginx
	repoFull string // docker.io/library/nginx
	tag      string // 1.27, or a digest
}

// parseImage reads image as the runtime does: a first part with a "." or
// ":", or "localhost", is a registry, else the image is on Docker Hub (in
// "library/" for a single name); the tag is "latest" if none is given.
func parseImage(image string) imageRef {
	r := imageRef{host: "docker.io"}
	name := image
	if first, rest, ok := strings.Cut(image, "/"); ok && (strings.ContainsAny(first, ".:") || first == "localhost") {
		r.host, name = first, rest
	}
	sep := "@"
	repo, tag, ok := strings.Cut(name, "@")
	if !ok {
		sep = ":"
		if i := strings.LastIndex(name, ":"); i >= 0 {
			repo, tag = name[:i], name[i+1:]
		} else {
			repo, tag = name, "latest"
		}
	}
	if r.host == "docker.io" && !strings.Contains(repo, "/") {
		repo = "library/" + repo
	}
	r.repo, r.tag = repo, tag
	r.repoFull = r.host + "/" + repo
	r.full = r.repoFull + sep + tag
	return r
}

// manifestURL is the URL of the image's manifest that the runtime asks the
// registry for (Docker Hub's is registry-1.docker.io).
func (r imageRef) manifestURL() string {
	host := r.host
	if host == "docker.io" {
		host = "registry-1.docker.io"
	}
	return fmt.Sprintf("https://%s/v2/%s/manifests/%s", host, r.repo, r.tag)
}
