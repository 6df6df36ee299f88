package awswait

import (
	"github.com/waitable/waitable/retry"
	"github.com/waitable/waitable/waiter"
)

// serviceStrategy is the standard retry strategy with the service's
// published defaults.
func serviceStrategy(pkg string) []waiter.Option {
	s, err := retry.NewStandard(retry.WithService(pkg))
	if err != nil {
		return nil // cannot happen: the options are ours
	}
	return []waiter.Option{waiter.WithRetryStrategy(s)}
}
