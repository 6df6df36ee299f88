package kubewait

import "github.com/waitable/waitable/classify"

// Created is the rule that the object exists: kubectl wait's --for=create.
// Unlike kubectl, which polls for it every 500 ms, the wait learns of the
// object from its watch.
func Created() Rule {
	return Rule{is: createdRule{}, text: "create", // any answer that is not an error
		accs: []classify.Acceptor{{State: classify.Success, Matcher: classify.OnSuccess(true)}}}.compiled()
}

// createdRule is Created's rule.
type createdRule struct{}

func (createdRule) name() string { return "KubeCreated" }
