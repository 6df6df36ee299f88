package kubewait

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
)

// Current is the rule that kstatus (sigs.k8s.io/cli-utils, what Helm 4
// and kpt wait with) computes the object's status as Current: reconciled,
// with its generation observed. kstatus knows the built-in kinds and the
// Reconciling, Stalled and Ready conditions of custom ones. Its message is
// what events report.
func Current() Rule {
	return Rule{is: kstatusRule{status.CurrentStatus}, text: "kstatus=Current"}
}

// Failed is the rule that kstatus computes the object's status as Failed
// (a Stalled condition, a failed Job or Pod, ...): a FailOn rule.
func Failed() Rule {
	return Rule{is: kstatusRule{status.FailedStatus}, text: "kstatus=Failed"}
}

// kstatusRule is Current's and Failed's rule: kstatus computes the status.
type kstatusRule struct{ status status.Status }

// matches never errs: an object kstatus cannot read has no status.
func (r kstatusRule) matches(obj Object) (bool, error) {
	res, err := status.Compute(&unstructured.Unstructured{Object: obj})
	return err == nil && res.Status == r.status, nil
}

// describe returns kstatus's status and message.
func (kstatusRule) describe(obj Object) (reason, message string) {
	res, err := status.Compute(&unstructured.Unstructured{Object: obj})
	if err != nil {
		return "Unknown", err.Error()
	}
	return string(res.Status), res.Message
}

func (r kstatusRule) name() string { return "Kube" + string(r.status) }
