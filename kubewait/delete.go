package kubewait

import "github.com/waitable/waitable/classify"

// Deleted is the rule that the object is gone: kubectl wait's --for=delete.
// An object deleted and created again under the same name counts as
// deleted: its UID, as first seen, changed. An object that does not exist
// when the wait begins is deleted at once.
func Deleted() Rule { return Rule{is: deletedRule{}, text: "delete"}.compiled() }

// deletedRule is Deleted's rule: NotFound, or an object of another UID
// than the one first seen.
type deletedRule struct{ acceptorRule }

func (deletedRule) acceptors(state classify.State) []classify.Acceptor {
	return []classify.Acceptor{
		{State: state, Matcher: classify.Matcher{ErrorType: "NotFound"}},
		{State: state, Matcher: classify.Matcher{InputOutput: &classify.PathMatcher{
			Path: "input.uid != '' && output.metadata.uid != input.uid", Expected: "true",
			Comparator: classify.BooleanEquals}}},
	}
}

func (deletedRule) name() string { return "KubeDeleted" }
