// Package servertest holds what of package kubewait runs against a real
// Kubernetes API server in process: the tests that wait for custom
// resources through it, with kubectl wait as the reference. The server
// itself, etcd embedded under the API server of custom resources with a
// request-counting, fault-injecting proxy in front, is in
// internal/apiserver. It is a module of its own so that a user of
// kubewait does not get the API server and etcd in the module graph.
package servertest
