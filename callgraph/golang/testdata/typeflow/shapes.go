package main

// Shape is the interface every rule fixture calls through.
type Shape interface{ Area() float64 }

// Square reaches the interface calls of the fixtures.
type Square struct{ s float64 }

func (q *Square) Area() float64 { return q.s * q.s }

// Circle is created (so class-hierarchy analysis counts it) but never reaches an
// interface-typed location: type flow must not dispatch to Circle.Area.
type Circle struct{ r float64 }

func (c Circle) Area() float64 { return 3 * c.r * c.r }

func decoy() float64 { return Circle{r: 1}.Area() }
