package calc

import "testing"

func TestSum(t *testing.T) {
	if Sum([]int{1, 2, 3}) != 6 {
		t.Fatal("sum")
	}
}

func TestSorted(t *testing.T) {
	checkSorted(t, []int{1, 3, 2}, 3)
}
