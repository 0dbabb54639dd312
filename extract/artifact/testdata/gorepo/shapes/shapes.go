// Package shapes measures shapes.
package shapes

// Rect is a rectangle.
type Rect struct{ W, H int }

// Area returns the area of r.
// It is W times H.
func (r Rect) Area() int {
	return r.W * r.H
}

func (r *Rect) Scale(k int) {
	r.W *= k
	r.H *= k
}
