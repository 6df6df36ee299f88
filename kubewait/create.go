package kubewait

import "github.com/waitable/waitable/classify"

// Created is the rule that the object exists: kubectl wait's --for=create.
// Unlike kubectl, which polls for it every 500 ms, the wait learns of the
// object from its watch.
func Created() Rule { return Rule{is: createdRule{}, text: "create"}.compiled() }

// createdRule is Created's rule: any answer that is not an error.
type createdRule struct{ acceptorRule }

func (createdRule) acceptors(state classify.State) []classify.Acceptor {
	yes := true
	return []classify.Acceptor{{State: state, Matcher: classify.Matcher{Success: &yes}}}
}

func (createdRule) name() string { return "KubeCreated" }
