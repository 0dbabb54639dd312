package area

import "testing"

func TestOther(t *testing.T) {
	if Square(0) != 0 {
		t.Fatal("zero")
	}
}
