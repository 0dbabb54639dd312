// Package first has a helper that its tests call the way real suites call a MustParse: a
// corruption that makes it panic takes the test binary down in the first test.
package first

import (
	"fmt"
	"strconv"
)

// MustParse parses a decimal number and panics on anything else (or, corrupted, always).
func MustParse(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		panic(fmt.Sprintf("MustParse(%q): %v", s, err))
	}
	return n
}
