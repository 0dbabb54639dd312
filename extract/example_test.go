package extract_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/faultline-dev/faultline/extract"
	"github.com/faultline-dev/faultline/metrics"
	"github.com/faultline-dev/faultline/task"
)

// A trace as the tracer writes it: tests/test_geo.py calls area and perimeter; area calls
// the helper _mul; tests/test_text.py calls shout.
const geoTrace = `{"version":1,"objects":[
 {"id":"pkg/geo.py::_mul::1","file":"pkg/geo.py","name":"_mul","line":1,"calls":2,"callees":[]},
 {"id":"pkg/geo.py::area::5","file":"pkg/geo.py","name":"area","line":5,"calls":2,"callees":["pkg/geo.py::_mul::1"]},
 {"id":"pkg/geo.py::perimeter::9","file":"pkg/geo.py","name":"perimeter","line":9,"calls":1,"callees":[]},
 {"id":"tests/test_geo.py::test_area::4","file":"tests/test_geo.py","name":"test_area","line":4,"calls":1,"callees":["pkg/geo.py::area::5"]},
 {"id":"tests/test_geo.py::test_perimeter::8","file":"tests/test_geo.py","name":"test_perimeter","line":8,"calls":1,"callees":["pkg/geo.py::perimeter::9"]}],
 "imports":[]}`

const textTrace = `{"version":1,"objects":[
 {"id":"pkg/text.py::shout::1","file":"pkg/text.py","name":"shout","line":1,"calls":1,"callees":[]},
 {"id":"tests/test_text.py::test_shout::3","file":"tests/test_text.py","name":"test_shout","line":3,"calls":1,"callees":["pkg/text.py::shout::1"]}],
 "imports":[]}`

func Example() {
	geo, err := extract.DecodeTrace([]byte(geoTrace))
	if err != nil {
		panic(err)
	}
	text, err := extract.DecodeTrace([]byte(textTrace))
	if err != nil {
		panic(err)
	}
	ctx := context.Background()

	// Top objects: what the test file calls directly.
	cands := extract.Candidates(geo, "tests/test_geo.py", 0, nil)
	top, err := extract.TopObjects(ctx, extract.Heuristic{}, extract.ClassifyRequest{TestFile: "tests/test_geo.py", Candidates: cands})
	if err != nil {
		panic(err)
	}
	fmt.Println("top:", top)

	// P2P files: those that execute none of the top objects.
	ch, err := extract.ChooseP2P(top, []extract.P2PFile{{File: "tests/test_text.py", Trace: text}}, 1, 5, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		panic(err)
	}
	fmt.Println("p2p:", ch.Files)

	// Breadth-first extraction under a line budget, with the definitions' lines.
	defs := extract.NewDefIndex([]task.Function{
		{File: "pkg/geo.py", Name: "_mul", Kind: task.KindFunction, Line: 1, EndLine: 2},
		{File: "pkg/geo.py", Name: "area", Kind: task.KindFunction, Line: 5, EndLine: 6},
		{File: "pkg/geo.py", Name: "perimeter", Kind: task.KindFunction, Line: 9, EndLine: 10},
	})
	g := extract.NewDepGraph(geo, []*extract.Trace{text}, nil, defs)
	ex := extract.Extract(g, ch.Top, 3000)
	fmt.Println("extracted:", ex.Extracted, ex.Lines, "lines")

	// Scoring a repair attempt (the one FeatureBench scorer is in package metrics).
	f2p := &task.Report{State: task.RunOK, Tests: []task.TestResult{
		{ID: "tests/test_geo.py::test_area", Outcome: task.Pass},
		{ID: "tests/test_geo.py::test_perimeter", Outcome: task.Fail},
	}}
	s := metrics.FeatureBench(f2p, nil, nil)
	fmt.Printf("resolved=%v pass rate=%.2f\n", s.Resolved, s.PassRate)
	// Output:
	// top: [pkg/geo.py::area::5 pkg/geo.py::perimeter::9]
	// p2p: [tests/test_text.py]
	// extracted: [pkg/geo.py::_mul::1 pkg/geo.py::area::5 pkg/geo.py::perimeter::9] 6 lines
	// resolved=false pass rate=0.50
}
