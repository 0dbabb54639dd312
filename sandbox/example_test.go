package sandbox_test

import (
	"fmt"
	"time"

	"github.com/faultline-dev/faultline/sandbox"
)

func ExampleTimeoutRule() {
	rule := sandbox.TimeoutRule{Factor: 2, Constant: 10 * time.Second, Ceiling: time.Minute}
	fmt.Println(rule.For(3*time.Second), rule.For(time.Hour))
	// Output: 16s 1m0s
}
