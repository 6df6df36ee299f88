// Package clustertest holds the tests that need a full cluster in
// process: k8s.io/kubernetes's kube-apiserver with the real workload
// controllers beside it and the test playing kubelet and scheduler
// (package internal/cluster), with kubectl rollout status and kstatus's
// watcher run beside it (package internal/anchor).
//
// It is a module of its own, nested in kubewait/servertest so that it
// shares that module's internal packages (the proxy, the kubectl builder,
// the command runner) by Go's internal rule: building k8s.io/kubernetes
// takes minutes and gigabytes, and kubewait/servertest keeps its own
// budget. Its go.mod maps the staging modules k8s.io/kubernetes requires
// at v0.0.0 to their v0.37.2 releases.
package clustertest
