package golang

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

// loadTree reads every file under root but test files (the expectations below are for
// the code under test, as a build with BuildOptions.SkipTests sees it) as SourceFiles
// with root-relative slash paths.
func loadTree(t testing.TB, root string) []callgraph.SourceFile {
	return loadFiles(t, root, false)
}

// loadFiles reads the files under root, test files too when tests is set.
func loadFiles(t testing.TB, root string, tests bool) []callgraph.SourceFile {
	t.Helper()
	var files []callgraph.SourceFile
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if !tests && callgraph.IsTestPath(filepath.ToSlash(p)) {
			return nil
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
	storeGo   = "store/store.go::"
	helpersGo = "store/helpers.go::"
	mainGo    = "cmd/shop/main.go::"
)

// shopEdges is the hand-checked call graph of testdata/shop with interface calls left
// unresolved (InterfacesNone).
var shopEdges = []string{
	storeGo + "<module> -> " + storeGo + "New",
	storeGo + "Store.Add -> " + helpersGo + "validate",
	storeGo + "Store.Total -> " + storeGo + "Item.Price",
	storeGo + "Store.Discount -> " + storeGo + "Item.Price",
	storeGo + "init@75 -> " + storeGo + "Store.Add",
	storeGo + "init@77 -> " + storeGo + "quietLogger.Log",
	helpersGo + "describe -> " + storeGo + "Item.Price",
	helpersGo + "describe -> " + helpersGo + "itoa",
	helpersGo + "describe -> " + helpersGo + "NewBox",
	helpersGo + "describe -> " + helpersGo + "Box.Get",
	helpersGo + "itoa -> " + helpersGo + "itoa",
	mainGo + "app.run -> " + storeGo + "Store.Add",
	mainGo + "app.run -> " + storeGo + "Store.Total",
	mainGo + "main -> " + storeGo + "New",
	mainGo + "main -> " + mainGo + "app.run",
	mainGo + "main -> " + helpersGo + "NewBox",
	mainGo + "main -> " + helpersGo + "Box.Get",
}

// shopTypeFlowEdges are the extra edges of interface calls under type flow (the default):
// only consoleLogger reaches Store.log (New(consoleLogger{…}) in defaultStore; main passes
// nil); describe's v.Log has no edge because nothing in the module calls describe.
var shopTypeFlowEdges = []string{
	storeGo + "Store.Add -> " + storeGo + "consoleLogger.Log",
}

// shopCHAEdges are the extra edges of interface calls (Logger.Log) under Options.CHA.
var shopCHAEdges = []string{
	storeGo + "Store.Add -> " + storeGo + "consoleLogger.Log",
	storeGo + "Store.Add -> " + storeGo + "quietLogger.Log",
	helpersGo + "describe -> " + storeGo + "consoleLogger.Log",
	helpersGo + "describe -> " + storeGo + "quietLogger.Log",
}

func analyzeShop(t *testing.T, opts Options) (*callgraph.Analysis, []callgraph.SourceFile) {
	return analyzeShopFiles(t, opts, false)
}

// analyzeShopFiles analyses the shop fixture, its test files too when tests is set.
func analyzeShopFiles(t *testing.T, opts Options, tests bool) (*callgraph.Analysis, []callgraph.SourceFile) {
	t.Helper()
	files := loadFiles(t, filepath.Join("testdata", "shop"), tests)
	a, err := New(opts).Analyze(context.Background(), files)
	require.NoError(t, err)
	require.Empty(t, a.Errors)
	return a, files
}

func TestShopEdges(t *testing.T) {
	t.Run("syntactic", func(t *testing.T) {
		a, _ := analyzeShop(t, Options{Interfaces: InterfacesNone})
		want := append([]string(nil), shopEdges...)
		sort.Strings(want)
		assert.Equal(t, want, edgeSet(a))
		assert.Equal(t, a.CallSites, a.Resolved+a.Unresolved)
	})
	t.Run("typeflow", func(t *testing.T) {
		a, _ := analyzeShop(t, Options{})
		want := append(append([]string(nil), shopEdges...), shopTypeFlowEdges...)
		sort.Strings(want)
		assert.Equal(t, want, edgeSet(a))
		assert.Equal(t, a.CallSites, a.Resolved+a.Unresolved)
	})
	t.Run("cha", func(t *testing.T) {
		a, _ := analyzeShop(t, Options{Interfaces: InterfacesCHA})
		want := append(append([]string(nil), shopEdges...), shopCHAEdges...)
		sort.Strings(want)
		assert.Equal(t, want, edgeSet(a))
	})
	t.Run("tests", func(t *testing.T) {
		a, _ := analyzeShopFiles(t, Options{Interfaces: InterfacesNone}, true)
		got := edgeSet(a)
		for _, e := range []string{
			"store/store_test.go::TestAdd -> " + storeGo + "New",
			"store/store_test.go::TestAdd -> " + storeGo + "Store.Add",
			"store/store_test.go::TestAdd -> store/store_test.go::helper",
		} {
			assert.Contains(t, got, e)
		}
		assert.Len(t, got, len(shopEdges)+3)
	})
}

func TestShopCallSiteCounts(t *testing.T) {
	a, _ := analyzeShop(t, Options{Interfaces: InterfacesNone})
	// Counted by hand from the fixture: every call expression, conversions and builtins
	// included (store.go 11, helpers.go 14 with the instantiation NewBox[int](3),
	// main.go 10).
	assert.Equal(t, 35, a.CallSites)
	// Unresolved (12): fmt.Println, s.log.Log and err.Error (interfaces, no CHA),
	// strings.ToLower, errors.New, os.Exit, v.Log, and the builtins/conversions len (2),
	// new, string, rune. The folded literal calls check() and func(){…}() are resolved.
	assert.Equal(t, 23, a.Resolved)
	assert.Equal(t, 12, a.Unresolved)
	lines := map[string][]int{}
	for _, c := range a.Calls {
		lines[c.Caller+" -> "+c.Callee] = append(lines[c.Caller+" -> "+c.Callee], c.Line)
	}
	assert.Equal(t, []int{22, 23}, lines[mainGo+"main -> "+mainGo+"app.run"], "the folded literal's call and the direct one")
	assert.Equal(t, []int{27, 33}, lines[helpersGo+"describe -> "+storeGo+"Item.Price"])
}

func TestShopDefinitions(t *testing.T) {
	a, files := analyzeShop(t, Options{})
	src := map[string][]byte{}
	for _, f := range files {
		src[f.Path] = f.Src
	}
	var ids []string
	byID := map[string]callgraph.Definition{}
	for _, d := range a.Definitions {
		ids = append(ids, d.ID)
		byID[d.ID] = d
		require.NoError(t, d.Validate(len(src[d.File])), d.ID)
		assert.Equal(t, "go", d.Language)
	}
	assert.Equal(t, []string{
		mainGo + "app.run", mainGo + "main",
		helpersGo + "<module>", helpersGo + "validate", helpersGo + "NewBox", helpersGo + "Box.Get",
		helpersGo + "describe", helpersGo + "itoa",
		storeGo + "<module>", storeGo + "consoleLogger.Log", storeGo + "quietLogger.Log",
		storeGo + "Item.Price", storeGo + "New", storeGo + "Store.Add", storeGo + "Store.Total",
		storeGo + "Store.Discount", storeGo + "init@75", storeGo + "init@77",
	}, ids)

	add := byID[storeGo+"Store.Add"]
	s := src["store/store.go"]
	assert.Equal(t, task.KindMethod, add.Kind)
	assert.Equal(t, "Store.Add", add.Name)
	assert.Equal(t, "func (s *Store) Add(name string, cents int) error", string(add.Signature.Text(s)))
	assert.Equal(t, "// Add puts an item.\n// It validates the name first.", string(add.Doc.Text(s)))
	assert.True(t, strings.HasPrefix(string(add.Def.Text(s)), "func (s *Store) Add("))
	assert.True(t, strings.HasPrefix(string(add.Body.Text(s)), "{\n\tif err := validate(name)"))
	assert.True(t, strings.HasSuffix(string(add.Body.Text(s)), "return nil\n}"))
	assert.Equal(t, add.Def.End, add.Body.End)
	assert.Equal(t, 53, add.Line)
	assert.Equal(t, 60, add.EndLine)

	get := byID[helpersGo+"Box.Get"]
	assert.Equal(t, "func (b *Box[T]) Get() T", string(get.Signature.Text(src["store/helpers.go"])))
	assert.Equal(t, "// Get unboxes.", string(get.Doc.Text(src["store/helpers.go"])))
	assert.True(t, byID[storeGo+"Store.Total"].Doc.Empty())

	mod := byID[storeGo+callgraph.ModuleName]
	assert.Equal(t, task.KindModule, mod.Kind)
	assert.Equal(t, task.Span{Start: 0, End: len(s)}, mod.Def)
}

func TestShopMetrics(t *testing.T) {
	a, _ := analyzeShop(t, Options{})
	byID := map[string]callgraph.Metrics{}
	for _, d := range a.Definitions {
		byID[d.ID] = d.Metrics
	}
	// Store.Add: 8 lines, all of them with code (the doc comment is outside the
	// definition); one if → cyclomatic 2; nesting 1.
	add := byID[storeGo+"Store.Add"]
	assert.Equal(t, 8, add.Lines)
	assert.Equal(t, 8, add.CodeLines)
	assert.Equal(t, 2, add.Cyclomatic)
	assert.Equal(t, 1, add.Nesting)
	// describe: type switch with two cases (+2), no if; nesting 1 (the switch).
	d := byID[helpersGo+"describe"]
	assert.Equal(t, 3, d.Cyclomatic)
	assert.Equal(t, 1, d.Nesting)
	// validate: the literal's code is folded in: if (+1); nesting: if at depth 1, the
	// function literal also opens a level but holds no nested statement.
	v := byID[helpersGo+"validate"]
	assert.Equal(t, 2, v.Cyclomatic)
	assert.Equal(t, 1, v.Nesting)
	assert.Equal(t, 7, v.CodeLines)
	// A one-line method.
	p := byID[storeGo+"Item.Price"]
	assert.Equal(t, callgraph.Metrics{CodeLines: 1, Cyclomatic: 1, Lines: 1,
		HalsteadVolume: p.HalsteadVolume, HalsteadDifficulty: p.HalsteadDifficulty}, p)
	assert.Greater(t, p.HalsteadVolume, 0.0)
}

func TestMatch(t *testing.T) {
	fe := New(Options{})
	for p, want := range map[string]bool{
		"a.go": true, "x/y/b.go": true, "go.mod": true, "x/go.mod": true,
		"a_test.go": true, "a.py": false, "testdata/a.go": false, "vendor/x/a.go": false,
		"x/.hidden.go": false, "x/_skip.go": false, "x/a.golden": false,
	} {
		assert.Equal(t, want, fe.Match(p), p)
	}
	assert.Equal(t, "go", fe.Name())
}

func TestSyntaxErrorPartial(t *testing.T) {
	src := "package p\n\nfunc ok() { helper() }\n\nfunc helper() {}\n\nfunc broken( {\n\tok()\n}\n"
	a, err := New(Options{}).Analyze(context.Background(), []callgraph.SourceFile{{Path: "p/p.go", Src: []byte(src)}})
	require.NoError(t, err)
	require.Len(t, a.Errors, 1)
	var se *callgraph.SyntaxError
	require.True(t, errors.As(a.Errors[0], &se))
	assert.Equal(t, "p/p.go", se.Path)
	assert.Equal(t, 7, se.Line)
	assert.Contains(t, edgeSet(a), "p/p.go::ok -> p/p.go::helper")
}

func TestContextCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	files := loadTree(t, filepath.Join("testdata", "shop"))
	_, err := New(Options{}).Analyze(ctx, files)
	require.Error(t, err)
	assert.True(t, errors.Is(err, context.Canceled))
}

func TestNoModuleFileFallback(t *testing.T) {
	// Without go.mod, imports are matched to directories by path suffix; with
	// Options.ModulePath, by the module path.
	var files []callgraph.SourceFile
	for _, f := range loadTree(t, filepath.Join("testdata", "shop")) {
		if f.Path != "go.mod" {
			files = append(files, f)
		}
	}
	for _, opts := range []Options{{Interfaces: InterfacesNone}, {Interfaces: InterfacesNone, ModulePath: "example.com/shop"}} {
		a, err := New(opts).Analyze(context.Background(), files)
		require.NoError(t, err)
		want := append([]string(nil), shopEdges...)
		sort.Strings(want)
		assert.Equal(t, want, edgeSet(a))
	}
}

// TestConcurrentDeterministic runs analyses of the same files in parallel on one Frontend:
// every result must equal the sequential one (run with -race to check for data races).
func TestConcurrentDeterministic(t *testing.T) {
	files := loadTree(t, filepath.Join("testdata", "shop"))
	for _, mode := range []InterfaceMode{InterfacesCHA, InterfacesTypeFlow} {
		t.Run(mode.String(), func(t *testing.T) {
			fetest.ConcurrentSame(t, New(Options{Interfaces: mode}), files, 8)
		})
	}
}

func TestSameLineDuplicates(t *testing.T) {
	src := "package p\n\nfunc init() {}; func init() { f() }\n\nfunc init() {}\n\nfunc f() {}\n"
	a, err := New(Options{}).Analyze(context.Background(), []callgraph.SourceFile{{Path: "p.go", Src: []byte(src)}})
	require.NoError(t, err)
	var ids []string
	for _, d := range a.Definitions {
		ids = append(ids, d.ID)
	}
	assert.Equal(t, []string{"p.go::init@3:1", "p.go::init@3:17", "p.go::init@5", "p.go::f"}, ids)
	assert.Equal(t, []string{"p.go::init@3:17 -> p.go::f"}, edgeSet(a))
}
