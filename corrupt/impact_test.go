package corrupt

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/faultline-dev/faultline/callgraph"
	"github.com/faultline-dev/faultline/task"
)

// scripted is a runner over a fixed suite: a test fails when the overlay's file contains
// the marker it watches. It records the selection of every run.
type scripted struct {
	mu      sync.Mutex
	watches map[string]string // test id → marker whose presence makes it fail
	state   task.RunState     // state of subset runs (default RunOK)
	runs    [][]string        // selected ids per run (nil: the whole suite)
}

func (s *scripted) Run(_ context.Context, req task.RunRequest) (*task.Report, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runs = append(s.runs, slices.Clone(req.Select.IDs))
	rep := &task.Report{State: task.RunOK}
	if len(req.Select.IDs) > 0 && s.state != "" {
		rep.State = s.state
		return rep, nil
	}
	for id, marker := range s.watches {
		if len(req.Select.IDs) > 0 && !slices.Contains(req.Select.IDs, id) {
			continue
		}
		out := task.Pass
		for _, src := range req.Overlay {
			if strings.Contains(string(src.Data), marker) {
				out = task.Fail
			}
		}
		rep.Tests = append(rep.Tests, task.TestResult{ID: id, Outcome: out, Message: "boom"})
	}
	rep.Sort()
	return rep, nil
}

func (s *scripted) Close() error { return nil }

// impactFixture is a file with two functions, f (lines 1-4) and g (lines 6-9), and a
// suite of eight tests: t1…t4 run f and fail when it is corrupted (marker CF), t5…t8 run
// g; t5 and t6 fail when g is corrupted (marker CG), and so does t8, which reaches the
// corruption only through state another test leaves behind (not recorded).
const impactSrc = "def f():\n    a = 1\n    b = 2\n    return a + b\n\ndef g():\n    a = 1\n    b = 2\n    return a + b\n"

func impactFixture(t *testing.T) (*generator, *scripted, []Candidate) {
	t.Helper()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "m.py"), []byte(impactSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &scripted{watches: map[string]string{
		"t1": "CF", "t2": "CF", "t3": "CF", "t4": "CF",
		"t5": "CG", "t6": "CG", "t7": "never", "t8": "CG",
	}}
	base := Baseline{Passing: []string{"t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8"}}
	im := &Impact{
		Groups:  [][]string{{"t1", "t2"}, {"t3", "t4"}, {"t5", "t6", "t7"}, {"t8"}},
		Regions: []ImpactRegion{{File: "m.py", Line: 1, EndLine: 1, Groups: []int{0, 1}}, {File: "m.py", Line: 6, EndLine: 6, Groups: []int{2}}},
	}
	if err := im.Check(); err != nil {
		t.Fatal(err)
	}
	g := &generator{root: root, r: r, base: base, files: map[string][]byte{},
		o: Options{MinFailures: 3, Impact: im, Run: task.RunRequest{Root: root, Kind: task.Pytest}}}
	node := func(name string, line, end int) Candidate {
		return Candidate{Node: &callgraph.Node{Definition: callgraph.Definition{Function: task.Function{
			ID: "m.py::" + name, File: "m.py", Name: name, Line: line, EndLine: end}}}}
	}
	return g, r, []Candidate{node("f", 1, 4), node("g", 6, 9)}
}

// mutantAt replaces line (1-based) of impactSrc with text.
func mutantAt(line int, text string) Mutant {
	lines := strings.SplitAfter(impactSrc, "\n")
	start := 0
	for _, l := range lines[:line-1] {
		start += len(l)
	}
	return Mutant{File: "m.py", Edits: []Edit{{Start: start, End: start + len(lines[line-1]), Text: text}}}
}

func (g *generator) validateMutant(t *testing.T, cand Candidate, m Mutant) *Validation {
	t.Helper()
	src, _ := g.read("m.py")
	req := g.o.Run
	req.Overlay = task.Overlay{}
	req.Overlay.Set("m.py", m.Apply(src))
	v, err := g.validate(context.Background(), req, []Candidate{cand}, []Mutant{m})
	if err != nil {
		t.Fatal(err)
	}
	// The verdict must be the whole suite's.
	full, err := Validate(context.Background(), g.r, req, g.base, g.o.MinFailures, g.o.MessageLen)
	if err != nil {
		t.Fatal(err)
	}
	if v.Accepted != full.Accepted {
		t.Errorf("impact validation accepted=%v, the whole suite %v", v.Accepted, full.Accepted)
	}
	if v.Accepted && (!reflect.DeepEqual(v.FailToPass, full.FailToPass) || !reflect.DeepEqual(v.PassToPass, full.PassToPass)) {
		t.Errorf("F2P/P2P %v/%v, the whole suite's %v/%v", v.FailToPass, v.PassToPass, full.FailToPass, full.PassToPass)
	}
	return v
}

func TestImpactAcceptedIsConfirmedByTheWholeSuite(t *testing.T) {
	g, r, cands := impactFixture(t)
	v := g.validateMutant(t, cands[0], mutantAt(3, "    b = 'CF'\n"))
	if !v.Accepted || len(v.FailToPass) != 4 || len(v.PassToPass) != 4 {
		t.Fatalf("validation %+v, want accepted with 4 F2P and 4 P2P", v)
	}
	// The subset of f's tests first, then the whole suite (then validateMutant's own run).
	if len(r.runs) != 3 || !reflect.DeepEqual(r.runs[0], []string{"t1", "t2", "t3", "t4"}) || r.runs[1] != nil {
		t.Errorf("runs %v, want the subset t1…t4 then the whole suite", r.runs)
	}
}

func TestImpactRejectsOnTheSubset(t *testing.T) {
	g, r, cands := impactFixture(t)
	g.o.MinFailures = 5
	v := g.validateMutant(t, cands[0], mutantAt(3, "    b = 'CF'\n"))
	if v.Accepted || v.State != task.RunOK || len(v.FailToPass) != 4 {
		t.Fatalf("validation %+v, want a rejection with 4 failures", v)
	}
	if len(r.runs) != 2 || len(r.runs[0]) != 4 {
		t.Errorf("runs %v, want the subset alone (then validateMutant's whole suite)", r.runs)
	}
}

func TestImpactFallsBackToTheWholeSuite(t *testing.T) {
	cases := []struct {
		name  string
		setup func(g *generator, r *scripted)
		cand  int
		m     Mutant
	}{
		{"no recorded test reaches the function", func(g *generator, _ *scripted) { g.o.Impact.Regions = g.o.Impact.Regions[:1] }, 1, mutantAt(8, "    b = 'CG'\n")},
		{"code run outside any test", func(g *generator, _ *scripted) { g.o.Impact.Regions[0].Global = true }, 0, mutantAt(3, "    b = 'CF'\n")},
		{"an edit outside the function", nil, 0, mutantAt(5, "CF = 1\n")},
		{"the subset run did not complete", func(_ *generator, r *scripted) { r.state = task.RunTimeout }, 0, mutantAt(3, "    b = 'CF'\n")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, r, cands := impactFixture(t)
			g.o.MinFailures = 5
			if c.setup != nil {
				c.setup(g, r)
			}
			g.validateMutant(t, cands[c.cand], c.m)
			if r.runs[len(r.runs)-2] != nil {
				t.Errorf("runs %v: the verdict did not come from the whole suite", r.runs)
			}
		})
	}
}

func TestImpactUnrecordedStateIsTheAssumption(t *testing.T) {
	// t8 fails when g is corrupted but its recording never ran g (state left by another
	// file's test): the subset misses it. This is the documented assumption, shown here so
	// that a change to it is noticed; Impact.Always is how a recorder that cannot vouch
	// for a test keeps it in every subset.
	g, _, cands := impactFixture(t)
	sub, ok := g.o.Impact.subset([]impactSpan{{file: "m.py", start: 6, end: 9}}, g.base)
	if !ok || !reflect.DeepEqual(sub, []string{"t5", "t6", "t7"}) {
		t.Fatalf("subset %v %v, want t5 t6 t7", sub, ok)
	}
	g.o.Impact.Always = []string{"t8"}
	g.validateMutant(t, cands[1], mutantAt(8, "    b = 'CG'\n"))
}

func TestImpactCheck(t *testing.T) {
	for _, im := range []Impact{
		{Groups: [][]string{{"a"}, {"a"}}},
		{Regions: []ImpactRegion{{File: "x.py", Line: 1, EndLine: 1, Groups: []int{0}}}},
		{Regions: []ImpactRegion{{File: "x.py", Line: 3, EndLine: 2}}},
		{Regions: []ImpactRegion{{File: "/abs.py", Line: 1, EndLine: 1}}},
	} {
		if err := im.Check(); err == nil {
			t.Errorf("Check(%+v) = nil, want an error", im)
		}
	}
}

func TestImpactSpansEndOfFunction(t *testing.T) {
	g, _, cands := impactFixture(t)
	// Replacing f's last line with its newline stays inside f (lines 1-4); one byte more
	// reaches line 5.
	m := mutantAt(4, "    return 0\n")
	if _, ok := g.impactSpans(cands[:1], []Mutant{m}); !ok {
		t.Errorf("an edit of f's last line is outside f")
	}
	m.Edits[0].End++
	if _, ok := g.impactSpans(cands[:1], []Mutant{m}); ok {
		t.Errorf("an edit reaching line 5 is inside f (lines 1-4)")
	}
}
