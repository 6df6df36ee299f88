// Package anchor runs the tools that a wait for a rollout is compared
// with, side by side on the same objects of a test cluster (package
// cluster): kubectl rollout status, both the kubectl built from
// k8s.io/kubectl and the machine's ([Kubectls], [RolloutStatus]), and
// kstatus's watcher (sigs.k8s.io/cli-utils pkg/kstatus/watcher) as a
// library, waiting as Helm 4's --wait does ([Kstatus]). Each says when
// it decided, so that a test compares their times with the kubelet's
// writes.
package anchor
