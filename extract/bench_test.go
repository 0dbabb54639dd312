package extract

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/task"
)

// synthTrace builds a trace of n library objects in 50 files, each calling up to four
// random others, and a test file calling 20 of them.
func synthTrace(n int) (*Trace, *DefIndex) {
	r := rand.New(rand.NewPCG(1, 1))
	id := func(i int) string {
		return ObjectID(fmt.Sprintf("lib/m%02d.py", i%50), fmt.Sprintf("f%d", i), 10*(i/50)+1)
	}
	var objs []Object
	var fns []task.Function
	for i := range n {
		var cs []string
		for range r.IntN(5) {
			cs = append(cs, id(r.IntN(n)))
		}
		slices.Sort(cs)
		cs = slices.Compact(cs)
		f, name, line, _ := ParseObjectID(id(i))
		objs = append(objs, Object{ID: id(i), File: f, Name: name, Line: line, Calls: 1, Callees: cs})
		fns = append(fns, task.Function{File: f, Name: name, Kind: task.KindFunction, Line: line, EndLine: line + 5})
	}
	var cs []string
	for k := range 20 {
		cs = append(cs, id(k*7%n))
	}
	slices.Sort(cs)
	objs = append(objs, Object{ID: "tests/test_x.py::test::1", File: "tests/test_x.py", Name: "test", Line: 1, Calls: 1, Callees: slices.Compact(cs)})
	slices.SortFunc(objs, func(a, b Object) int { return strings.Compare(a.ID, b.ID) })
	return &Trace{Objects: objs, Imports: []Import{}}, NewDefIndex(fns)
}

func BenchmarkCandidates(b *testing.B) {
	tr, _ := synthTrace(20000)
	for b.Loop() {
		if len(Candidates(tr, "tests/test_x.py", 5, nil)) == 0 {
			b.Fatal("no candidates")
		}
	}
}

func BenchmarkExtract(b *testing.B) {
	tr, defs := synthTrace(20000)
	g := NewDepGraph(tr, nil, nil, defs)
	top := DirectUses(tr, "tests/test_x.py")
	for b.Loop() {
		if ex := Extract(g, top, 4000); ex.Lines == 0 {
			b.Fatal("nothing extracted")
		}
	}
}
