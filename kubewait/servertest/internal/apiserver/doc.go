// Package apiserver runs a Kubernetes API server in process for tests:
// etcd embedded (k8s.io/apiserver's etcd3/testserver) under the API server
// of custom resources (k8s.io/apiextensions-apiserver), with two custom
// resources installed ([WidgetResource], namespaced, and [GadgetResource],
// cluster-scoped) and a proxy in front (package proxy) that records every
// request and answers some with faults. [Start] starts one for a test.
//
// Clients under test reach the server through the proxy, with
// [Server.Config] or the kubectl file [Server.Kubeconfig]: [Server.Count]
// then says how many lists, watches and gets they made, and
// [Server.SetFault] fails the requests a test picks (a 403 on watches, a
// 429 with Retry-After). The widget methods ([Server.CreateWidget],
// [Server.SetCondition], [Server.SetStatusField], [Server.DeleteWidget])
// do what a user or a controller would, straight to the server; no
// controller runs. [Server.Restart] and [Server.Compact] break watches as
// an API server's restart and etcd's compaction do.
//
// The server is the API server of custom resources alone, not a
// kube-apiserver: it serves apiextensions.k8s.io and the custom resources
// but no core API (no namespaces, pods, events or RBAC), so a custom
// resource may be created in any namespace name without creating the
// namespace. No authorization or admission webhook applies: the proxy
// forwards every request as the server's privileged loopback identity.
// The server needs no binaries: everything runs in the test process.
// Importing the package silences klog, which the server and client-go log
// to, in the whole process.
//
// This package is internal to the module: the tests of kubewait against a
// real API server import it.
package apiserver
