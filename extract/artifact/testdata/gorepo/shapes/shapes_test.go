package shapes

import "testing"

func TestArea(t *testing.T) {
	r := Rect{2, 3}
	r.Scale(2)
	if r.Area() != 24 {
		t.Fatal(r.Area())
	}
}
