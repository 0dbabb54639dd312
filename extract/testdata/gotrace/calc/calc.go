package calc

import "sort"

// Sum adds xs.
func Sum(xs []int) int {
	t := 0
	for _, x := range xs {
		t = add(t, x)
	}
	return t
}

func add(a, b int) int { return a + b }

// Sorted returns xs in descending order through a sort callback.
func Sorted(xs []int) []int {
	out := append([]int(nil), xs...)
	sort.Slice(out, func(i, j int) bool { return less(out[j], out[i]) })
	return out
}

func less(a, b int) bool { return a < b }

// Unused is never called by the tests.
func Unused() int { return add(1, 2) }

type Acc struct{ n int }

// Add accumulates.
func (a *Acc) Add(x int) { a.n = add(a.n, x) }
