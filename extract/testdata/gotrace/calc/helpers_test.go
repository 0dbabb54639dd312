package calc

import "testing"

// checkSorted is a helper in another test file: TraceGo knows it ran only from the static
// graph (coverage does not instrument test files), and reaches Sorted through it.
func checkSorted(t *testing.T, xs []int, first int) {
	t.Helper()
	if got := Sorted(xs); got[0] != first {
		t.Fatal(got)
	}
}
