package linemut_test

import (
	"fmt"

	"github.com/faultline-dev/faultline/internal/linemut"
)

func ExampleAll() {
	for _, m := range linemut.All("    if n <= 1:  # base case", linemut.Context{}, linemut.Default()) {
		fmt.Printf("%-16s %s\n", m.Rule, m.Line)
	}
	// Output:
	// flip-comparison      if n > 1:  # base case
	// off-by-one           if n <= 2:  # base case
	// off-by-one           if n <= 0:  # base case
	// negate-condition     if not (n <= 1):  # base case
}
