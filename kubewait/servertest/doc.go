// Package servertest tests kubewait against a real Kubernetes API server
// in process (etcd embedded, the apiextensions API server with custom
// resources, a request-counting and fault-injecting proxy in front), with
// the machine's kubectl as the reference. It has no code of its own.
package servertest
