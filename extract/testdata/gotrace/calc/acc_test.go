package calc

import "testing"

func TestAcc(t *testing.T) {
	var a Acc
	addTwice(&a, 1)
	if a.n != 2 {
		t.Fatal(a.n)
	}
}

// addTwice is a helper of TestAcc only: it is no object of calc_test.go's trace.
func addTwice(a *Acc, x int) {
	a.Add(x)
	a.Add(x)
}
