package a_test

import (
	"testing"

	"example.com/repo/a"
)

// TestT uses [a.T] and [a.Exported], but not [a.Missing] nor [Helper].
func TestT(t *testing.T) { _ = a.T{} }
