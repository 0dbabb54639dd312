package calc

import "testing"

func TestAcc(t *testing.T) {
	var a Acc
	a.Add(2)
	if a.n != 2 {
		t.Fatal(a.n)
	}
}
