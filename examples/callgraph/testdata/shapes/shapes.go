// Package shapes sums areas through an interface.
package shapes

// Shape has an area.
type Shape interface{ Area() float64 }

// Square is a square of side S.
type Square struct{ S float64 }

// Area of the square.
func (q Square) Area() float64 { return q.S * q.S }

// Circle is a circle of radius R.
type Circle struct{ R float64 }

// Area of the circle.
func (c Circle) Area() float64 { return 3.14159 * c.R * c.R }

// Total adds the areas of xs: the call x.Area() goes through the interface.
func Total(xs []Shape) float64 {
	t := 0.0
	for _, x := range xs {
		t += x.Area()
	}
	return t
}

// Squares totals two squares: only Square values reach Total.
func Squares() float64 { return Total([]Shape{Square{1}, Square{2}}) }

// Unit makes a circle that is never used as a Shape.
func Unit() Circle { return Circle{1} }
