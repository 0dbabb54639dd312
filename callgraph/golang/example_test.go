package golang_test

import (
	"context"
	"fmt"

	"github.com/faultline-dev/faultline/callgraph"
	"github.com/faultline-dev/faultline/callgraph/golang"
)

func Example() {
	files := []callgraph.SourceFile{
		{Path: "go.mod", Src: []byte("module example.com/m\n")},
		{Path: "shape/shape.go", Src: []byte(`package shape

type Square struct{ side float64 }

// Area is side².
func (s *Square) Area() float64 { return s.side * s.side }

func New(side float64) *Square { return &Square{side: side} }
`)},
		{Path: "main.go", Src: []byte(`package main

import sh "example.com/m/shape"

func main() {
	sq := sh.New(2)
	println(sq.Area())
}
`)},
	}
	a, err := golang.New(golang.Options{}).Analyze(context.Background(), files)
	if err != nil {
		panic(err)
	}
	for _, d := range a.Definitions {
		fmt.Printf("%s (%s, lines %d-%d, cyclomatic %d)\n", d.ID, d.Kind, d.Line, d.EndLine, d.Metrics.Cyclomatic)
	}
	for _, c := range a.Calls {
		fmt.Printf("%s -> %s at line %d\n", c.Caller, c.Callee, c.Line)
	}
	fmt.Printf("%d call sites, %d resolved\n", a.CallSites, a.Resolved)
	// Output:
	// main.go::main (function, lines 5-8, cyclomatic 1)
	// shape/shape.go::Square.Area (method, lines 6-6, cyclomatic 1)
	// shape/shape.go::New (function, lines 8-8, cyclomatic 1)
	// main.go::main -> shape/shape.go::New at line 6
	// main.go::main -> shape/shape.go::Square.Area at line 7
	// 3 call sites, 2 resolved
}

// The interface modes on one program: only *Square values reach s, so type flow (the
// default) resolves s.Area() to Square.Area alone, while class-hierarchy analysis also
// reaches Circle.Area, and InterfacesNone leaves the call unresolved.
func ExampleInterfaceMode() {
	files := []callgraph.SourceFile{
		{Path: "go.mod", Src: []byte("module example.com/m\n")},
		{Path: "main.go", Src: []byte(`package main

type Shape interface{ Area() float64 }

type Square struct{ side float64 }

func (q *Square) Area() float64 { return q.side * q.side }

type Circle struct{ r float64 }

func (c Circle) Area() float64 { return 3 * c.r * c.r }

func main() {
	var s Shape = &Square{side: 2}
	println(s.Area(), Circle{r: 1}.r)
}
`)},
	}
	for _, mode := range []golang.InterfaceMode{golang.InterfacesTypeFlow, golang.InterfacesCHA, golang.InterfacesNone} {
		a, err := golang.New(golang.Options{Interfaces: mode}).Analyze(context.Background(), files)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s:", mode)
		for _, c := range a.Calls {
			fmt.Printf(" %s", c.Callee)
		}
		fmt.Println()
	}
	// Output:
	// typeflow: main.go::Square.Area
	// cha: main.go::Square.Area main.go::Circle.Area
	// none:
}
