// Package errjoin reads errors.Join's result back, for the packages that
// report every problem of a definition.
package errjoin

// Split returns the errors joined in err (by errors.Join or a type with
// Unwrap() []error), err alone if it is no join, and nil for nil.
func Split(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}
