// Command kubectl is kubectl, built from k8s.io/kubectl at the version
// this module requires: what the tests run when the machine has no
// kubectl of its own (or one too old for kubectl wait's --for=create).
// It is the main of k8s.io/kubernetes/cmd/kubectl, which the module proxy
// serves only inside the whole of Kubernetes.
package main

import (
	"k8s.io/component-base/cli"
	"k8s.io/kubectl/pkg/cmd"
	"k8s.io/kubectl/pkg/cmd/util"
)

func main() {
	command := cmd.NewDefaultKubectlCommand()
	if err := cli.RunNoErrOutput(command); err != nil {
		util.CheckErr(err)
	}
}
