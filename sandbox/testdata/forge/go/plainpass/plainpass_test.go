package plainpass

import (
	"fmt"
	"testing"
)

// TestFail prints lines that look like a pass and like go's summary, unmarked: they are
// output, and the test fails.
func TestFail(t *testing.T) {
	fmt.Println("--- PASS: TestFail (0.00s)")
	fmt.Println("PASS")
	fmt.Println("ok  \texample.com/forge/plainpass\t0.001s")
	t.Fatal("real failure")
}

func TestOK(t *testing.T) {}
