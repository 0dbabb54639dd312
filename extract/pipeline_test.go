package extract

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/faultline-dev/faultline/internal/acceptance"
	"github.com/faultline-dev/faultline/sandbox"
	"github.com/faultline-dev/faultline/task"
)

// itemJSON is the deterministic part of a result (what the instances are made of).
func itemJSON(t testing.TB, res *Result) string {
	t.Helper()
	b, err := json.MarshalIndent(res.Items, "", " ")
	require.NoError(t, err)
	return string(b)
}

// reverify checks an accepted item again in a fresh copy of the repository.
func reverify(t *testing.T, r task.Runner, src string, it *Item) {
	t.Helper()
	fresh := filepath.Join(t.TempDir(), "fresh")
	copyTree(t, src, fresh)
	kind := task.Pytest
	if strings.HasSuffix(it.TestFile, "_test.go") {
		kind = task.GoTest
	}
	v, err := Verify(context.Background(), r, VerifyRequest{Base: task.RunRequest{Root: fresh, Kind: kind},
		Mask: it.Mask.Overlay, F2P: it.F2P, P2P: it.P2P, F2PFile: it.TestFile, BuildFailureFails: kind == task.GoTest})
	require.NoError(t, err)
	require.True(t, v.Accepted, "%s: %s", it.TestFile, v.Reason)
	require.Equal(t, it.Verification.F2PTests, v.F2PTests)
}

func TestPipelineFixture(t *testing.T) {
	acceptance.Skip(t, "the whole pipeline on the fixture") // the whole pipeline twice; examples/featurebench runs it on this fixture by default
	t.Parallel()                                            // with the per-test limit's tests, which mostly sleep
	py := pythonWithPytest(t)
	src, err := filepath.Abs("testdata/pipeline/repo")
	require.NoError(t, err)
	root := filepath.Join(t.TempDir(), "repo")
	copyTree(t, src, root)
	hasher := sandbox.NewTreeHasher()
	before, err := hasher.Hash(root, nil)
	require.NoError(t, err)

	r := sandbox.NewLocal(sandbox.Options{WorkDir: t.TempDir(), Python: py})
	defer r.Close()
	// The first run goes through a result cache, which the N: 1 run below reuses (its
	// runs are a subset); the determinism run does not.
	cached := sandbox.NewCache(r, sandbox.CacheOptions{})
	ctx := context.Background()
	res, err := Pipeline(ctx, cached, root, Options{Seed: 3})
	require.NoError(t, err)
	require.Equal(t, task.Pytest, res.Kind)

	got := map[string]string{}
	for _, it := range res.Items {
		if it.Accepted {
			got[it.TestFile] = "accepted"
		} else {
			got[it.TestFile] = it.Reason
		}
	}
	require.Equal(t, map[string]string{
		"tests/test_geometry.py": "accepted",
		"tests/test_text.py":     "accepted",
		// Circular imports between cyc_a and cyc_b: both functions go, the modules still import.
		"tests/test_cycle.py": "accepted",
		// The test file imports feature at module level: it must stay for the file to collect.
		"tests/test_imported.py": "nothing to extract: the 1 top objects are protected, seen in P2P or have no definition",
		"tests/test_broken.py":   "the test file does not pass on the original code: 1 failing, first tests/test_broken.py::test_wrong",
		"tests/test_selfonly.py": "extract: no top objects: tests/test_selfonly.py reaches no repository object outside the tests",
	}, got)

	// The counts account for every test file by the kind of rejection.
	require.Equal(t, "6 test files (12 tests): 3 accepted, 1 fails on the original code, 1 no top object, 1 nothing to extract", res.Counts())

	// Items are tried by descending test count, then path.
	var order []string
	for _, it := range res.Items {
		order = append(order, it.TestFile)
	}
	require.Equal(t, []string{"tests/test_geometry.py", "tests/test_cycle.py", "tests/test_imported.py",
		"tests/test_text.py", "tests/test_broken.py", "tests/test_selfonly.py"}, order)

	geo := res.Items[0]
	require.Equal(t, []string{
		"pkg/geometry.py::Box.__init__::22", "pkg/geometry.py::Box.area::25", "pkg/geometry.py::Box.scale::28",
		"pkg/geometry.py::area::8", "pkg/geometry.py::circle_area::13", "pkg/geometry.py::perimeter::17",
	}, geo.Top)
	require.Equal(t, []string{
		"pkg/geometry.py::Box.__init__::22", "pkg/geometry.py::Box.area::25", "pkg/geometry.py::Box.scale::28",
		"pkg/geometry.py::_square::4", "pkg/geometry.py::area::8", "pkg/geometry.py::circle_area::13", "pkg/geometry.py::perimeter::17",
	}, geo.Extraction.Extracted)
	// The class body ran at import time and is no callee: the class stays, its methods go.
	masked := string(geo.Mask.Overlay["pkg/geometry.py"].Data)
	require.Contains(t, masked, "class Box:")
	require.NotContains(t, masked, "def area")
	require.GreaterOrEqual(t, geo.Extraction.Budget, DefaultMinBudget)
	require.LessOrEqual(t, geo.Extraction.Budget, DefaultMaxBudget)
	// P2P files reach repository code and avoid the top objects; broken and helper-only files
	// never qualify.
	require.Equal(t, []string{"tests/test_cycle.py", "tests/test_imported.py", "tests/test_text.py"}, geo.P2PFiles)
	require.Zero(t, geo.Verification.F2PPassRate)
	require.Len(t, geo.Verification.F2PTests, 4)

	for _, it := range res.Accepted() {
		reverify(t, r, src, it)
	}

	after, err := hasher.Hash(root, nil)
	require.NoError(t, err)
	require.Equal(t, before, after, "the repository was written")

	// Same seed, same items, from fresh runs (the whole pipeline again: long).
	t.Run("same seed", func(t *testing.T) {
		acceptance.Skip(t, "runs the pipeline a second time without the cache")
		again, err := Pipeline(ctx, r, root, Options{Seed: 3})
		require.NoError(t, err)
		require.Equal(t, itemJSON(t, res), itemJSON(t, again))
	})
	// N bounds the accepted items.
	runs := cached.Stats().Runs
	one, err := Pipeline(ctx, cached, root, Options{Seed: 3, N: 1})
	require.NoError(t, err)
	require.Equal(t, runs, cached.Stats().Runs, "the N: 1 run made runs the first did not")
	require.Len(t, one.Accepted(), 1)
	require.Len(t, one.Items, 1)

	// Split three ways by Owns (from the cache: no new run), the parts' items ordered by
	// candidate are the whole run's items, with N too.
	for _, n := range []int{0, 1, 2} {
		whole, err := Pipeline(ctx, cached, root, Options{Seed: 3, N: n})
		require.NoError(t, err)
		var parts []*Item
		for i := range 3 {
			part, err := Pipeline(ctx, cached, root, Options{Seed: 3, N: n, Owns: func(f string) bool { return ownsOf3(f) == i }})
			require.NoError(t, err)
			for _, it := range part.Items {
				require.Equal(t, i, ownsOf3(it.TestFile))
			}
			parts = append(parts, part.Items...)
		}
		slices.SortFunc(parts, func(a, b *Item) int { return a.Candidate - b.Candidate })
		var acc []*Item
		for _, it := range parts {
			if it.Accepted && (n == 0 || len(acc) < n) {
				acc = append(acc, it)
			}
		}
		require.Equal(t, itemJSON(t, &Result{Items: whole.Accepted()}), itemJSON(t, &Result{Items: acc}), "N %d", n)
	}
	require.Equal(t, runs, cached.Stats().Runs, "the parts made runs the whole run did not")
}

// ownsOf3 splits test files three ways by the length of their path (a partition for the
// tests that puts the fixture's accepted files in different parts).
func ownsOf3(file string) int { return len(file) % 3 }

// TestPipelineOwns: a candidate Owns declines is passed over without a run of its own and
// counted; the item built keeps its position in the whole order and is the whole run's.
func TestPipelineOwns(t *testing.T) {
	t.Parallel()
	py := pythonWithPytest(t)
	root := brokenAndSelfOnly(t)
	r := sandbox.NewLocal(sandbox.Options{WorkDir: t.TempDir(), Python: py})
	defer r.Close()
	ctx := context.Background()
	whole, err := Pipeline(ctx, r, root, Options{Seed: 1})
	require.NoError(t, err)
	require.Len(t, whole.Items, 2)
	for k, it := range whole.Items {
		require.Equal(t, k, it.Candidate)
	}
	skip := whole.Items[0].TestFile
	var steps []Step
	part, err := Pipeline(ctx, r, root, Options{Seed: 1, Owns: func(f string) bool { return f != skip },
		Steps: func(s Step) {
			if s.Phase == "build" {
				steps = append(steps, s)
			}
		}})
	require.NoError(t, err)
	require.Len(t, part.Items, 1)
	require.Equal(t, 1, part.PassedOver)
	require.Equal(t, itemJSON(t, &Result{Items: whole.Items[1:]}), itemJSON(t, part))
	require.Equal(t, []Step{{Phase: "build", Total: 1}, {Phase: "build", Done: 1, Total: 1, File: whole.Items[1].TestFile}}, steps)
	require.Contains(t, part.Counts(), "1 passed over (not owned)")
	require.Regexp(t, `^2 test files \(\d+ tests\): `, part.Counts())
}

// brokenAndSelfOnly copies the fixture's failing test file and the one that only tests its
// own helper, with the package, into a new directory.
func brokenAndSelfOnly(t *testing.T) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "repo")
	for _, f := range []string{"pkg/__init__.py", "pkg/text.py", "tests/test_broken.py", "tests/test_selfonly.py"} {
		b, err := os.ReadFile(filepath.Join("testdata/pipeline/repo", f))
		require.NoError(t, err)
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(root, f)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, f), b, 0o644))
	}
	return root
}

// TestPipelineNothingQualifies: a repository whose test files are a failing one and one that
// only tests its own helper yields no instance, a reason for each file, and no error.
func TestPipelineNothingQualifies(t *testing.T) {
	t.Parallel()
	py := pythonWithPytest(t)
	root := brokenAndSelfOnly(t)
	r := sandbox.NewLocal(sandbox.Options{WorkDir: t.TempDir(), Python: py})
	defer r.Close()
	res, err := Pipeline(context.Background(), r, root, Options{Seed: 1})
	require.NoError(t, err)
	require.Empty(t, res.Accepted())
	require.Len(t, res.Items, 2)
	for _, it := range res.Items {
		require.NotEmpty(t, it.Reason, it.TestFile)
	}

	// A tree without tests: nothing to do.
	none, err := Pipeline(context.Background(), r, t.TempDir(), Options{})
	require.NoError(t, err)
	require.Empty(t, none.Items)
	// A runner that cannot list tests is refused.
	_, err = Pipeline(context.Background(), task.RunnerFunc(func(context.Context, task.RunRequest) (*task.Report, error) {
		return nil, nil
	}), root, Options{})
	require.ErrorIs(t, err, ErrNoLister)
}

// TestResultCounts: every test file is accounted for once, by cause, most frequent first.
func TestResultCounts(t *testing.T) {
	res := &Result{Tests: 40, TestFiles: 12, Untried: 1, Items: []*Item{
		{TestFile: "a", Cause: "no top object"}, {TestFile: "b", Cause: "no top object"}, {TestFile: "c", Cause: "masked F2P pass rate too high"},
		{TestFile: "d", Accepted: true}, {TestFile: "e", Cause: "no top object"}, {TestFile: "f", Cause: "gold F2P fails"},
		{TestFile: "g", Cause: "masked F2P pass rate too high"},
	}, Excluded: []Exclusion{{File: "h", Cause: "too few tests"}, {File: "i", Cause: "too few tests"}, {File: "j", Cause: "too few tests"},
		{File: "k", Cause: "first committed too early"}}}
	require.Equal(t, "12 test files (40 tests): 3 excluded (too few tests), 3 no top object, 2 masked F2P pass rate too high, "+
		"1 accepted, 1 excluded (first committed too early), 1 gold F2P fails, 1 not tried (enough accepted)", res.Counts())
	require.Equal(t, "0 test files (0 tests)", (&Result{}).Counts())
}

// TestPipelineGoSharedTestHelper: a Go test file that declares a helper other test files of
// its package call cannot be removed for an instance (they would not build); it is refused
// with that reason after one build, not after the mask loop's runs. A file whose package
// builds without it is built as usual.
func TestPipelineGoSharedTestHelper(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("extract: the go command is not installed")
	}
	root := t.TempDir()
	write := func(rel, src string) { writeFile(t, root, rel, src) }
	write("go.mod", "module example.com/shapes\n\ngo 1.22\n")
	write("shapes/area.go", "package shapes\n\n// Square is the area of a square of side s.\nfunc Square(s int) int { return s * s }\n\n// Rect is the area of a w×h rectangle.\nfunc Rect(w, h int) int { return w * h }\n")
	write("shapes/perimeter.go", "package shapes\n\n// Perimeter is the perimeter of a w×h rectangle.\nfunc Perimeter(w, h int) int { return 2 * (w + h) }\n")
	// area_test.go declares expect, which perimeter_test.go calls.
	write("shapes/area_test.go", "package shapes\n\nimport \"testing\"\n\nfunc expect(t *testing.T, got, want int) {\n\tt.Helper()\n\tif got != want {\n\t\tt.Fatalf(\"got %d, want %d\", got, want)\n\t}\n}\n\n"+
		"func TestSquare(t *testing.T) { expect(t, Square(3), 9) }\n\nfunc TestRect(t *testing.T) { expect(t, Rect(2, 3), 6) }\n\nfunc TestSquareZero(t *testing.T) { expect(t, Square(0), 0) }\n")
	write("shapes/perimeter_test.go", "package shapes\n\nimport \"testing\"\n\nfunc TestPerimeter(t *testing.T) { expect(t, Perimeter(2, 3), 10) }\n\nfunc TestPerimeterSquare(t *testing.T) { expect(t, Perimeter(1, 1), 4) }\n\nfunc TestPerimeterZero(t *testing.T) { expect(t, Perimeter(0, 0), 0) }\n\nfunc TestPerimeterLine(t *testing.T) { expect(t, Perimeter(5, 0), 10) }\n")
	r := sandbox.NewLocal(sandbox.Options{WorkDir: t.TempDir(), Env: []string{"GOFLAGS=-mod=mod", "GOPROXY=off"}})
	defer r.Close()
	cached := sandbox.NewCache(r, sandbox.CacheOptions{})
	res, err := Pipeline(context.Background(), cached, root, Options{Seed: 1, MinTests: 3})
	require.NoError(t, err)
	require.Equal(t, task.GoTest, res.Kind)
	reasons := map[string]string{}
	for _, it := range res.Items {
		reasons[it.TestFile] = it.Cause + ": " + it.Reason
		if it.Accepted {
			reasons[it.TestFile] = "accepted"
		}
	}
	require.Equal(t, "other tests need the F2P file: the other tests do not build without shapes/area_test.go (a Go package's test files share their declarations): shapes/perimeter_test.go:5:36: undefined: expect",
		reasons["shapes/area_test.go"], "%v", reasons)
	require.Equal(t, "accepted", reasons["shapes/perimeter_test.go"], "%v", reasons)
}
