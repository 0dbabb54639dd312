package javascript

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/faultline-dev/faultline/callgraph"
	"github.com/faultline-dev/faultline/callgraph/internal/fetest"
	"github.com/faultline-dev/faultline/task"
)

func loadTree(t testing.TB, root string) []callgraph.SourceFile {
	t.Helper()
	var files []callgraph.SourceFile
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		files = append(files, callgraph.SourceFile{Path: filepath.ToSlash(rel), Src: src})
		return nil
	})
	require.NoError(t, err)
	return files
}

func edgeSet(a *callgraph.Analysis) []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range a.Calls {
		e := c.Caller + " -> " + c.Callee
		if !seen[e] {
			seen[e] = true
			out = append(out, e)
		}
	}
	sort.Strings(out)
	return out
}

const (
	shapes  = "lib/shapes.js::"
	counter = "lib/counter.js::"
	legacy  = "lib/legacy.cjs::"
	mainJS  = "main.mjs::"
)

// appEdges is the hand-checked call graph of testdata/app.
var appEdges = []string{
	// this.m() through the class, super() and super-class constructors, module functions.
	shapes + "Shape.describe -> " + shapes + "Shape.name",
	shapes + "Shape.describe -> " + shapes + "Shape.area",
	shapes + "Square.constructor -> " + shapes + "Shape.constructor",
	shapes + "Square.area -> " + shapes + "sq",
	shapes + "make -> " + shapes + "Square.constructor",
	shapes + "util.twice -> " + shapes + "sq",
	// CommonJS: destructured require, namespace require, object export, this.field.m().
	legacy + "module.exports.run -> " + legacy + "helper",
	counter + "Counter.inc -> " + legacy + "helper",
	counter + "Counter.inc -> " + counter + "Logger.write",
	counter + "Counter.inc -> " + legacy + "module.exports.run",
	// ES imports: default (CommonJS interop and ES), named with alias, namespace through
	// export * and export {default as …} from, object members, the folded IIFE's call.
	mainJS + "<module> -> " + counter + "Counter.constructor",
	mainJS + "<module> -> " + counter + "Counter.inc",
	mainJS + "<module> -> " + shapes + "make",
	mainJS + "<module> -> " + shapes + "Square.constructor",
	mainJS + "<module> -> " + shapes + "Shape.describe",
	mainJS + "<module> -> " + shapes + "Square.area", // s = make(3): make returns new Square

	mainJS + "<module> -> " + shapes + "util.twice",
	mainJS + "<module> -> " + shapes + "util.half",
	mainJS + "<module> -> " + mainJS + "main",
	mainJS + "main -> " + shapes + "Square.constructor",
	mainJS + "main -> " + shapes + "Square.area",
}

func analyzeApp(t *testing.T) (*callgraph.Analysis, map[string][]byte) {
	t.Helper()
	files := loadTree(t, filepath.Join("testdata", "app"))
	a, err := New(Options{}).Analyze(context.Background(), files)
	require.NoError(t, err)
	require.Empty(t, a.Errors)
	src := map[string][]byte{}
	for _, f := range files {
		src[f.Path] = f.Src
	}
	return a, src
}

func TestAppEdges(t *testing.T) {
	a, _ := analyzeApp(t)
	want := append([]string(nil), appEdges...)
	sort.Strings(want)
	assert.Equal(t, want, edgeSet(a))
	// 29 call and new expressions (main.mjs 15, counter.js 7, shapes.js 6, legacy.cjs 1);
	// unresolved: [].map, fs.readFileSync, two require calls, console.log and new
	// Logger() (Logger declares no constructor). The IIFE is resolved (folded) without an
	// edge.
	assert.Equal(t, 29, a.CallSites)
	assert.Equal(t, 6, a.Unresolved)
	assert.Equal(t, 23, a.Resolved)

	// Precision and recall against the hand-made ground truth, computed rather than
	// assumed: here every expected edge is present and nothing else.
	got := map[string]bool{}
	for _, e := range edgeSet(a) {
		got[e] = true
	}
	tp := 0
	for _, e := range appEdges {
		if got[e] {
			tp++
		}
	}
	precision, recall := float64(tp)/float64(len(got)), float64(tp)/float64(len(appEdges))
	assert.GreaterOrEqual(t, precision, 0.95)
	assert.GreaterOrEqual(t, recall, 0.90)
}

func TestAppDefinitions(t *testing.T) {
	a, src := analyzeApp(t)
	var ids []string
	byID := map[string]callgraph.Definition{}
	for _, d := range a.Definitions {
		ids = append(ids, d.ID)
		byID[d.ID] = d
		require.NoError(t, d.Validate(len(src[d.File])), d.ID)
	}
	assert.Equal(t, []string{
		counter + "<module>", counter + "Logger.write", counter + "Counter.constructor", counter + "Counter.inc",
		legacy + "helper", legacy + "module.exports.run",
		shapes + "Shape.constructor", shapes + "Shape.area", shapes + "Shape.describe", shapes + "Shape.name",
		shapes + "Square.constructor", shapes + "Square.area", shapes + "sq", shapes + "make",
		shapes + "util.twice", shapes + "util.half",
		mainJS + "<module>", mainJS + "main",
	}, ids)
	s := src["lib/shapes.js"]
	mk := byID[shapes+"make"]
	assert.Equal(t, task.KindFunction, mk.Kind)
	assert.Equal(t, "function make(side)", string(mk.Signature.Text(s)))
	assert.Equal(t, "{\n  return new Square(side);\n}", string(mk.Body.Text(s)))
	assert.Equal(t, "// make builds a square.", string(mk.Doc.Text(s)))
	assert.Equal(t, 38, mk.Line)

	ctor := byID[shapes+"Shape.constructor"]
	assert.Equal(t, task.KindMethod, ctor.Kind)
	assert.Equal(t, "constructor(name)", string(ctor.Signature.Text(s)))

	half := byID[shapes+"util.half"]
	assert.Equal(t, "half: (x) => x / 2", string(half.Def.Text(s)))
	assert.Equal(t, "x / 2", string(half.Body.Text(s)))

	nested := byID[mainJS+"main"]
	assert.Equal(t, "", nested.Parent)
	assert.True(t, strings.HasPrefix(string(nested.Def.Text(src["main.mjs"])), "function main() {"))
}

func TestAppMetrics(t *testing.T) {
	a, _ := analyzeApp(t)
	m := map[string]callgraph.Metrics{}
	for _, d := range a.Definitions {
		m[d.ID] = d.Metrics
	}
	// main: for-of, if, &&, ?? → 5; nesting for > if = 2; 10 lines, all with code.
	assert.Equal(t, 5, m[mainJS+"main"].Cyclomatic)
	assert.Equal(t, 2, m[mainJS+"main"].Nesting)
	assert.Equal(t, 10, m[mainJS+"main"].CodeLines)
	assert.Equal(t, 10, m[mainJS+"main"].Lines)
	// Counter.inc: the conditional operator.
	assert.Equal(t, 2, m[counter+"Counter.inc"].Cyclomatic)
	// sq: a plain function has no nesting.
	assert.Equal(t, callgraph.Metrics{CodeLines: 3, Cyclomatic: 1, Lines: 3,
		HalsteadVolume: m[shapes+"sq"].HalsteadVolume, HalsteadDifficulty: m[shapes+"sq"].HalsteadDifficulty},
		m[shapes+"sq"])
}

// TestHalsteadCounts checks the Halstead measures of a small function against counts
// made by hand: operators function ( { return * ; (6 distinct, 6 total), operands sq x
// (2 distinct, 4 total: sq, x, x, x).
func TestHalsteadCounts(t *testing.T) {
	src := "function sq(x) { return x * x; }\n"
	a, err := New(Options{}).Analyze(context.Background(), []callgraph.SourceFile{{Path: "a.js", Src: []byte(src)}})
	require.NoError(t, err)
	require.Len(t, a.Definitions, 1)
	var h callgraph.Halstead
	for _, op := range []string{"function", "(", "{", "return", "*", ";"} {
		h.Operator(op)
	}
	for _, od := range []string{"sq", "x", "x", "x"} {
		h.Operand(od)
	}
	v, d := h.Measures()
	assert.InDelta(t, v, a.Definitions[0].Metrics.HalsteadVolume, 1e-9)
	assert.InDelta(t, d, a.Definitions[0].Metrics.HalsteadDifficulty, 1e-9)
}

func TestNamingRules(t *testing.T) {
	src := `function outer() {
  function inner() { return 1; }
  const arrow = () => inner();
  return arrow();
}
const o = { a() { return outer(); } };
o.a();
obj.method = function () { return 2; };
obj.method();
class K { get v() { return 1; } set v(x) {} }
export default () => outer();
`
	a, err := New(Options{}).Analyze(context.Background(), []callgraph.SourceFile{{Path: "n.js", Src: []byte(src)}})
	require.NoError(t, err)
	var ids []string
	parents := map[string]string{}
	for _, d := range a.Definitions {
		ids = append(ids, d.ID)
		parents[d.ID] = d.Parent
	}
	assert.Equal(t, []string{"n.js::<module>", "n.js::outer", "n.js::outer.inner", "n.js::outer.arrow",
		"n.js::o.a", "n.js::obj.method", "n.js::K.v@10:11", "n.js::K.v@10:33", "n.js::default"}, ids)
	assert.Equal(t, "n.js::outer", parents["n.js::outer.inner"])
	assert.Equal(t, []string{
		"n.js::<module> -> n.js::o.a",
		"n.js::<module> -> n.js::obj.method",
		"n.js::default -> n.js::outer",
		"n.js::o.a -> n.js::outer",
		"n.js::outer -> n.js::outer.arrow",
		"n.js::outer.arrow -> n.js::outer.inner",
	}, edgeSet(a))
}

func TestMatch(t *testing.T) {
	fe := New(Options{})
	for p, want := range map[string]bool{
		"a.js": true, "x/b.mjs": true, "c.cjs": true, "d.jsx": true, "a.ts": true, "b.tsx": true, "c.d.ts": false, "a.min.js": false,
		"node_modules/x/a.js": false, "a.test.js": true, "x/__tests__/a.js": true, "a.spec.js": true, "a.json": false,
	} {
		assert.Equal(t, want, fe.Match(p), p)
	}
	assert.False(t, New(Options{NoTypeScript: true}).Match("a.ts"))
	assert.Equal(t, "javascript", fe.Name())
}

func TestSyntaxErrorPartial(t *testing.T) {
	src := "function ok() { helper(); }\nfunction helper() {}\nfunction broken( {\n"
	a, err := New(Options{}).Analyze(context.Background(), []callgraph.SourceFile{{Path: "p.js", Src: []byte(src)}})
	require.NoError(t, err)
	require.Len(t, a.Errors, 1)
	var se *callgraph.SyntaxError
	require.True(t, errors.As(a.Errors[0], &se))
	assert.Equal(t, "p.js", se.Path)
	assert.Equal(t, 3, se.Line)
	assert.Contains(t, edgeSet(a), "p.js::ok -> p.js::helper")
}

func TestContextCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := New(Options{}).Analyze(ctx, loadTree(t, filepath.Join("testdata", "app")))
	require.ErrorIs(t, err, context.Canceled)
}

// TestConcurrentDeterministic runs analyses of the same files in parallel on one Frontend:
// every result must equal the sequential one (run with -race to check for data races).
func TestConcurrentDeterministic(t *testing.T) {
	files := append(loadTree(t, filepath.Join("testdata", "app")), loadTree(t, filepath.Join("testdata", "tsapp"))...)
	fetest.ConcurrentSame(t, New(Options{}), files, 8)
}
