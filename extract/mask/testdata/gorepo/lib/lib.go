// Package lib is a fixture for Go masking.
package lib

import (
	"fmt"
	"strings"
)

// Exported is used by the P2P tests.
func Exported() string { return "x" }

// Upper upper-cases s.
// It is the only user of strings.
func Upper(s string) string {
	return strings.ToUpper(s)
}

// Format formats n.
func Format(n int) string { return fmt.Sprint(n) }

// T is a type with a method.
type T struct{}

// Name returns the name.
func (t *T) Name() string { return "t" }

func helper() int { return 1 }

func usesHelper() int { return helper() + 1 }
