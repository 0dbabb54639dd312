package golang

import (
	"context"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/faultline-dev/faultline/callgraph"
)

// analyzeWith runs the front end with the given number of resolution workers and
// returns the analyzer.
func analyzeWith(t *testing.T, opts Options, workers int, files []callgraph.SourceFile) *analyzer {
	t.Helper()
	fe := New(opts)
	fe.workers = workers
	a, err := fe.analyze(context.Background(), files)
	require.NoError(t, err)
	return a
}

// TestParallelResolutionEqualsSerial resolves real modules (test files included) with one
// worker, which fills the lazy memos in walk order, and with several, which settles them
// first and replays the files' type-flow records in file order: the analyses must be
// equal, calls in the same order.
func TestParallelResolutionEqualsSerial(t *testing.T) {
	if testing.Short() {
		t.Skip("analyses several modules twice")
	}
	subjects := []struct {
		module, version string
		modes           []InterfaceMode
	}{
		{"github.com/sergi/go-diff", "v1.4.0", []InterfaceMode{InterfacesTypeFlow, InterfacesCHA, InterfacesNone}},
		{"go.yaml.in/yaml/v3", "v3.0.5", []InterfaceMode{InterfacesTypeFlow, InterfacesCHA}},
		{"github.com/klauspost/compress", "v1.18.7", []InterfaceMode{InterfacesTypeFlow}},
		{"gonum.org/v1/gonum", "v0.17.0", []InterfaceMode{InterfacesTypeFlow}},
	}
	// More workers than cores still interleave the walks (GOMAXPROCS is at least 1).
	workers := max(4, runtime.GOMAXPROCS(0))
	for _, s := range subjects {
		t.Run(s.module, func(t *testing.T) {
			files := loadFiles(t, moduleDir(t, s.module, s.version), true)
			for _, mode := range s.modes {
				opts := Options{Interfaces: mode}
				serial := analyzeWith(t, opts, 1, files)
				par := analyzeWith(t, opts, workers, files)
				require.Equal(t, workers, par.workers, "%s: the parallel run fell back to one worker", mode)
				require.NotEmpty(t, serial.out.Calls)
				assert.Equal(t, serial.out, par.out, "%s", mode)
			}
		})
	}
}

// cyclicVars is a package whose variables a and b need each other's types, with a
// function b from a build variant: what the cycle leaves depends on where its inference
// is entered. Entered at b (as the walk of use does, first), b is T and b.M() resolves;
// entered at a (declaration order), b has no type.
var cyclicVars = []callgraph.SourceFile{
	{Path: "go.mod", Src: []byte("module example.com/p\n")},
	{Path: "a.go", Src: []byte("package p\n\nfunc use() { b.M() }\n")},
	{Path: "b.go", Src: []byte("package p\n\nvar a = b[0]\n\nvar b = a()\n")},
	{Path: "c.go", Src: []byte("//go:build other\n\npackage p\n\ntype T struct{}\n\nfunc (T) M() {}\n\nfunc b[X any]() T { return T{} }\n")},
}

// TestSettleCycleFallsBack: settling memos in declaration order would cut the cycle
// elsewhere than the serial walk does, so settle undoes them and the files are resolved
// one after the other, giving the serial analysis.
func TestSettleCycleFallsBack(t *testing.T) {
	opts := Options{Interfaces: InterfacesNone, AllFiles: true} // c.go is a build variant
	serial := analyzeWith(t, opts, 1, cyclicVars)
	require.Contains(t, serial.out.Calls, callgraph.Call{Caller: "a.go::use", Callee: "c.go::T.M", Line: 3})
	par := analyzeWith(t, opts, 4, cyclicVars)
	assert.Equal(t, 1, par.workers, "settle should have met the cycle")
	assert.Equal(t, serial.out, par.out)

	// Without the cycle, settle succeeds and the workers run.
	acyclic := append([]callgraph.SourceFile{}, cyclicVars[:2]...)
	acyclic = append(acyclic,
		callgraph.SourceFile{Path: "b.go", Src: []byte("package p\n\nvar a = b[0]\n\nvar b = mk()\n")},
		callgraph.SourceFile{Path: "c.go", Src: []byte("package p\n\ntype T struct{}\n\nfunc (T) M() {}\n\nfunc mk() []T { return nil }\n")})
	par = analyzeWith(t, opts, 4, acyclic)
	assert.Equal(t, 4, par.workers)
	assert.Equal(t, analyzeWith(t, opts, 1, acyclic).out, par.out)
}

// TestSettleUndo: when settle meets a cycle it leaves the memos it filled as they were.
func TestSettleUndo(t *testing.T) {
	a, _, err := New(Options{Interfaces: InterfacesNone, AllFiles: true}).prepare(context.Background(), cyclicVars)
	require.NoError(t, err)
	require.Len(t, a.vars, 2)
	require.False(t, a.settle())
	for _, v := range a.vars {
		assert.False(t, v.done, "variable %d of %s left settled", v.index, v.file.path)
	}
	for _, td := range a.named {
		assert.False(t, td.resolved, "type %s left settled", td.name)
		assert.False(t, td.msetDone, "method set of %s left settled", td.name)
	}
	assert.Nil(t, a.byMethod)
}

// selfRefs is a package whose declarations need themselves but no other declaration that
// needs them (as builtin/builtin.go's type bool bool): whoever asks first, each is cut
// at its own inference with the same result, so settle keeps the memos and the workers
// run.
var selfRefs = []callgraph.SourceFile{
	{Path: "go.mod", Src: []byte("module example.com/p\n")},
	{Path: "a.go", Src: []byte("package p\n\nfunc use() { y.M(); z.M(); var b byte; b.M() }\n")},
	{Path: "b.go", Src: []byte("package p\n\ntype byte = uint8\n\ntype uint8 uint8\n\nfunc (uint8) M() {}\n\nvar x = x.N()\n\nvar y = x\n\nvar z = T{}\n")},
	{Path: "c.go", Src: []byte("package p\n\ntype T struct{}\n\nfunc (T) M() {}\n")},
}

// TestSettleSelfReferences: self-references do not make the resolution serial, and the
// parallel analysis is the serial one.
func TestSettleSelfReferences(t *testing.T) {
	for _, mode := range []InterfaceMode{InterfacesTypeFlow, InterfacesCHA, InterfacesNone} {
		opts := Options{Interfaces: mode}
		serial := analyzeWith(t, opts, 1, selfRefs)
		require.Contains(t, serial.out.Calls, callgraph.Call{Caller: "a.go::use", Callee: "c.go::T.M", Line: 3})
		par := analyzeWith(t, opts, 4, selfRefs)
		assert.Equal(t, 4, par.workers, "%s: settle should have kept the memos", mode)
		assert.Equal(t, serial.out, par.out, "%s", mode)
	}
	// The cuts were met, and were self-references.
	a, _, err := New(Options{}).prepare(context.Background(), selfRefs)
	require.NoError(t, err)
	require.True(t, a.settle())
}
