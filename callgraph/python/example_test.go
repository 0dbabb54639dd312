package python_test

import (
	"context"
	"fmt"

	"github.com/faultline-dev/faultline/callgraph"
	"github.com/faultline-dev/faultline/callgraph/python"
)

func Example() {
	files := []callgraph.SourceFile{
		{Path: "shapes.py", Src: []byte(`class Shape:
    def __init__(self, size):
        self.size = size

    def area(self):
        return self.size ** 2
`)},
		{Path: "main.py", Src: []byte(`from shapes import Shape


def report(s):
    """Print the area."""
    print(s.area())


report(Shape(3))
`)},
	}
	a, err := python.New(python.Options{}).Analyze(context.Background(), files)
	if err != nil {
		panic(err)
	}
	for _, d := range a.Definitions {
		fmt.Printf("%-24s %-8s lines %d-%d code lines %d\n", d.ID, d.Kind, d.Line, d.EndLine, d.Metrics.CodeLines)
	}
	for _, c := range a.Calls {
		fmt.Printf("%s -> %s (line %d)\n", c.Caller, c.Callee, c.Line)
	}
	fmt.Printf("call sites %d, resolved %d, unresolved %d\n", a.CallSites, a.Resolved, a.Unresolved)
	// Output:
	// main.py::<module>        module   lines 1-9 code lines 5
	// main.py::report          function lines 4-6 code lines 3
	// shapes.py::Shape         class    lines 1-6 code lines 5
	// shapes.py::Shape.__init__ method   lines 2-3 code lines 2
	// shapes.py::Shape.area    method   lines 5-6 code lines 2
	// main.py::<module> -> main.py::report (line 9)
	// main.py::<module> -> shapes.py::Shape.__init__ (line 9)
	// main.py::report -> shapes.py::Shape.area (line 6)
	// call sites 4, resolved 3, unresolved 1
}
