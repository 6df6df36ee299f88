package kubewait

import "github.com/waitable/waitable/classify"

// Deleted is the rule that the object is gone: kubectl wait's --for=delete.
// An object deleted and created again under the same name counts as
// deleted: its UID, as first seen, changed. An object that does not exist
// when the wait begins is deleted at once.
func Deleted() Rule {
	// NotFound, or an object of another UID than the one first seen.
	return Rule{is: deletedRule{}, text: "delete", accs: []classify.Acceptor{
		{State: classify.Success, Matcher: classify.OnErrorType("NotFound")},
		{State: classify.Success, Matcher: classify.OnInputOutput("input.uid != '' && output.metadata.uid != input.uid",
			classify.BooleanEquals, "true")},
	}}.compiled()
}

// deletedRule is Deleted's rule.
type deletedRule struct{}

func (deletedRule) name() string { return "KubeDeleted" }
