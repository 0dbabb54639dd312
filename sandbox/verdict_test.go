package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/acceptance"
	"github.com/faultline-dev/faultline/sandbox/internal/testrun"
	"github.com/faultline-dev/faultline/task"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// verdictFixture copies testdata/verdict/<kind> to a fresh directory.
func verdictFixture(t testing.TB, kind string) string {
	dir := filepath.Join(t.TempDir(), kind)
	require.NoError(t, copyTree(filepath.Join("testdata", "verdict", kind), dir))
	return dir
}

// aloneGo runs one Go test id by itself with the bare go command (`go test -run
// '^Name$/^sub$'`) in a copy of root with ov applied, and returns its verdict as the
// package doc's rule states it: the stream's own verdict, or Fail when the binary died
// while it was running.
func aloneGo(t testing.TB, root string, ov task.Overlay, id string) task.Outcome {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "m")
	require.NoError(t, copyTree(root, dir))
	require.NoError(t, ov.WriteTo(dir))
	pkg, name, ok := task.SplitGoTestID(id)
	require.True(t, ok, id)
	var levels []string
	for _, el := range strings.Split(name, "/") {
		levels = append(levels, "^"+regexpQuote(el)+"$")
	}
	cmd := exec.Command("go", "test", "-json", "-count=1", "-timeout=60s", "-run", strings.Join(levels, "/"), pkg)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	out, _ := cmd.Output()
	gr, err := testrun.ParseGoJSON(bytes.NewReader(out), 0)
	require.NoError(t, err)
	r, ok := (&task.Report{Tests: gr.Tests}).Result(id)
	require.True(t, ok, "%s alone: no result in\n%s", id, out)
	return r.Outcome
}

func regexpQuote(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`\.+*?()|[]{}^$`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// checkAlone asserts that every test the report decided has the verdict it gets when run by
// itself.
func checkAlone(t *testing.T, rep *task.Report, alone func(id string) task.Outcome) {
	t.Helper()
	for _, tr := range rep.Tests {
		require.True(t, tr.Outcome.Decided(), "%s: %s", tr.ID, tr.Message)
		assert.Equal(t, alone(tr.ID), tr.Outcome, "%s: the run's verdict differs from running it alone (%s)", tr.ID, tr.Message)
	}
}

func TestRerunGoFirstTestPanics(t *testing.T) {
	needGo(t)
	root := verdictFixture(t, "go")
	ov := task.Overlay{}
	ov.Set("first/parse.go", []byte("package first\n\n// MustParse is corrupted: it always panics.\nfunc MustParse(s string) int { panic(\"corrupted MustParse(\" + s + \")\") }\n"))
	l := local(t)
	ctx := context.Background()
	rep, err := l.Run(ctx, task.RunRequest{Root: root, Overlay: ov, Kind: task.GoTest, Select: task.Selection{Files: []string{"first"}}})
	require.NoError(t, err)
	assert.Equal(t, task.RunOK, rep.State, rep.Detail)
	want := map[string]task.Outcome{
		"example.com/verdict/first.TestParsesFirst":  task.Fail,
		"example.com/verdict/first.TestFailsPlainly": task.Fail,
		"example.com/verdict/first.TestNoParse":      task.Pass,
		"example.com/verdict/first.TestTable":        task.Fail,
		"example.com/verdict/first.TestTable/1":      task.Fail,
		"example.com/verdict/first.TestTable/x":      task.Pass,
		"example.com/verdict/first.TestTable/2":      task.Fail,
		"example.com/verdict/first.TestZLast":        task.Fail,
	}
	assert.Equal(t, want, outcomes(rep))
	checkAlone(t, rep, func(id string) task.Outcome { return aloneGo(t, root, ov, id) })
	r, _ := rep.Result("example.com/verdict/first.TestZLast")
	assert.Contains(t, r.Message, "corrupted MustParse(7)")
	assert.True(t, hasNote(rep, "re-runs: "), "%v", rep.Notes)
	// Each panic was the verdict of the test running at the time, after others in the same
	// binary: no verdict comes from a run alone (TestRerunGoExitAndParallel has those).
	assert.Empty(t, aloneIDs(rep))

	// The same tests selected by id: each still gets its own verdict.
	ids := []string{"example.com/verdict/first.TestParsesFirst", "example.com/verdict/first.TestNoParse", "example.com/verdict/first.TestTable/x", "example.com/verdict/first.TestZLast"}
	rep, err = l.Run(ctx, task.RunRequest{Root: root, Overlay: ov, Kind: task.GoTest, Select: task.Selection{IDs: ids}})
	require.NoError(t, err)
	assert.Equal(t, map[string]task.Outcome{
		"example.com/verdict/first.TestParsesFirst": task.Fail,
		"example.com/verdict/first.TestNoParse":     task.Pass,
		// -run cannot ask for subtest x alone: TestTable ran all three, and 1 failed.
		"example.com/verdict/first.TestTable":   task.Fail,
		"example.com/verdict/first.TestTable/x": task.Pass,
		"example.com/verdict/first.TestZLast":   task.Fail,
	}, outcomes(rep))

	// With the gold code, one run suffices.
	rep, err = l.Run(ctx, task.RunRequest{Root: root, Kind: task.GoTest, Select: task.Selection{Files: []string{"first"}}})
	require.NoError(t, err)
	assert.Equal(t, task.Fail, outcomes(rep)["example.com/verdict/first.TestFailsPlainly"])
	assert.Len(t, rep.Failing(), 1)
	assert.Len(t, rep.Passing(), 7)
	assert.False(t, hasNote(rep, "re-runs: "), "%v", rep.Notes)
}

func TestRerunGoExitAndParallel(t *testing.T) {
	needGo(t)
	root := verdictFixture(t, "go")
	l := local(t)
	ctx := context.Background()
	cases := []struct {
		pkg     string
		want    map[string]task.Outcome
		culprit string
		msg     string
	}{
		{"exit", map[string]task.Outcome{"TestA": task.Pass, "TestExits": task.Fail, "TestB": task.Pass, "TestC": task.Fail}, "TestExits", "exited while this test was running"},
		{"exitzero", map[string]task.Outcome{"TestA": task.Fail, "TestExitsZero": task.Fail, "TestB": task.Pass}, "TestExitsZero", "exited while this test was running"},
		// TestP2's goroutine panics while other parallel tests run: each is run alone.
		{"parallel", map[string]task.Outcome{"TestP1": task.Pass, "TestP2": task.Fail, "TestP3": task.Pass, "TestP4Fails": task.Fail, "TestSerial": task.Pass}, "TestP2", "from TestP2's goroutine"},
	}
	for _, c := range cases {
		t.Run(c.pkg, func(t *testing.T) {
			rep, err := l.Run(ctx, task.RunRequest{Root: root, Kind: task.GoTest, Select: task.Selection{Files: []string{c.pkg}}})
			require.NoError(t, err)
			assert.Equal(t, task.RunOK, rep.State, rep.Detail)
			got := map[string]task.Outcome{}
			for id, o := range outcomes(rep) {
				got[strings.TrimPrefix(id, "example.com/verdict/"+c.pkg+".")] = o
			}
			assert.Equal(t, c.want, got)
			r, _ := rep.Result("example.com/verdict/" + c.pkg + "." + c.culprit)
			assert.Contains(t, r.Message, c.msg)
			checkAlone(t, rep, func(id string) task.Outcome { return aloneGo(t, root, nil, id) })
			if c.pkg == "parallel" {
				// The verdicts of the tests re-run alone say so (corrupt's confirmation
				// alone does not run them again; checkAlone above compares each with a
				// run of it alone). The fixture fixes the schedule: every parallel test
				// is running when TestP2's goroutine panics, so each is re-run alone, and
				// TestSerial, which never runs beside another test, is not.
				p := "example.com/verdict/parallel."
				assert.Equal(t, []string{p + "TestP1", p + "TestP2", p + "TestP3", p + "TestP4Fails"}, aloneIDs(rep))
			}
		})
	}
}

// aloneIDs lists the tests of rep whose verdict comes from a run alone.
func aloneIDs(rep *task.Report) []string {
	var ids []string
	for _, r := range rep.Tests {
		if r.Alone {
			ids = append(ids, r.ID)
		}
	}
	return ids
}

func TestRerunGoPackageTimeout(t *testing.T) {
	needGo(t)
	root := verdictFixture(t, "go")
	// The limit bounds each re-run too, and a re-run first builds the package's test binary
	// (go list, go test -c). At 8 s the tests after the hang once came back not run in a CI
	// run on a loaded machine (and passed alone); 20 s leaves room for that build.
	const limit = 20 * time.Second
	rep, err := local(t).Run(context.Background(), task.RunRequest{Root: root, Kind: task.GoTest,
		Select: task.Selection{Files: []string{"timeout"}}, Limits: task.Limits{Timeout: limit}})
	require.NoError(t, err)
	// go's own -timeout (90% of the limit) fires first unless building took more than the
	// rest: then the run's limit kills it (RunTimeout). Either way every test gets a verdict.
	assert.Contains(t, []task.RunState{task.RunOK, task.RunTimeout}, rep.State, rep.Detail)
	assert.Equal(t, map[string]task.Outcome{
		"example.com/verdict/timeout.TestQuick":          task.Pass,
		"example.com/verdict/timeout.TestHangs":          task.Timeout,
		"example.com/verdict/timeout.TestAfterHang":      task.Pass,
		"example.com/verdict/timeout.TestAfterHangFails": task.Fail,
	}, outcomes(rep))
	r, _ := rep.Result("example.com/verdict/timeout.TestHangs")
	assert.Contains(t, r.Message, "still running when the time limit struck")

	// The run's own limit kills go (its -timeout is an hour): the state says so, and the
	// tests after the hang still get their verdicts from a re-run.
	rep, err = local(t).Run(context.Background(), task.RunRequest{Root: root, Kind: task.GoTest, Args: []string{"-timeout=1h"},
		Select: task.Selection{Files: []string{"timeout"}}, Limits: task.Limits{Timeout: limit}})
	require.NoError(t, err)
	assert.Equal(t, task.RunTimeout, rep.State)
	assert.Equal(t, map[string]task.Outcome{
		"example.com/verdict/timeout.TestQuick":          task.Pass,
		"example.com/verdict/timeout.TestHangs":          task.Timeout,
		"example.com/verdict/timeout.TestAfterHang":      task.Pass,
		"example.com/verdict/timeout.TestAfterHangFails": task.Fail,
	}, outcomes(rep))
}

// TestRerunBudget: with no re-runs allowed, the tests the panic cut off are not_run with
// the reason, never failures; `go test -list` names them when no ids were selected.
func TestRerunBudget(t *testing.T) {
	needGo(t)
	root := verdictFixture(t, "go")
	l := NewLocal(Options{Reruns: Reruns{Attempts: -1}})
	defer l.Close()
	rep, err := l.Run(context.Background(), task.RunRequest{Root: root, Kind: task.GoTest, Select: task.Selection{Files: []string{"exit"}}})
	require.NoError(t, err)
	assert.Equal(t, map[string]task.Outcome{
		"example.com/verdict/exit.TestA":     task.Pass,
		"example.com/verdict/exit.TestExits": task.Fail, // running alone when the binary died
		"example.com/verdict/exit.TestB":     task.NotRun,
		"example.com/verdict/exit.TestC":     task.NotRun,
	}, outcomes(rep))
	r, _ := rep.Result("example.com/verdict/exit.TestC")
	assert.Contains(t, r.Message, "not run: ")
	assert.Empty(t, rep.Failing()[1:], "only the culprit fails")

	// Two re-runs: the culprit is confirmed alone, the rest runs.
	l2 := NewLocal(Options{Reruns: Reruns{Attempts: 2}})
	defer l2.Close()
	rep, err = l2.Run(context.Background(), task.RunRequest{Root: root, Kind: task.GoTest, Select: task.Selection{Files: []string{"exit"}}})
	require.NoError(t, err)
	assert.Equal(t, map[string]task.Outcome{
		"example.com/verdict/exit.TestA":     task.Pass,
		"example.com/verdict/exit.TestExits": task.Fail,
		"example.com/verdict/exit.TestB":     task.Pass,
		"example.com/verdict/exit.TestC":     task.Fail,
	}, outcomes(rep))
}

// alonePytest runs one node id by itself with pytest and returns its verdict by the package
// doc's rule: JUnit's when pytest wrote one, Fail when the test ended the interpreter.
func alonePytest(t testing.TB, py, root, id string) task.Outcome {
	t.Helper()
	dir := t.TempDir()
	tree := filepath.Join(dir, "t")
	require.NoError(t, copyTree(root, tree))
	junit := filepath.Join(dir, "junit.xml")
	cmd := exec.Command(py, "-m", "pytest", "-p", "no:cacheprovider", "-o", "junit_family=xunit1", "--junitxml="+junit, id)
	cmd.Dir = tree
	out, _ := cmd.CombinedOutput()
	f, err := os.Open(junit)
	if err != nil {
		return task.Fail
	}
	defer f.Close()
	jr, err := testrun.ParseJUnit(f, 0)
	require.NoError(t, err, "%s", out)
	r, ok := (&task.Report{Tests: jr.Tests}).Result(id)
	require.True(t, ok, "%s alone:\n%s", id, out)
	return r.Outcome
}

func TestRerunPytestCrashes(t *testing.T) {
	py := needPytest(t)
	root := verdictFixture(t, "py")
	rep, err := local(t).Run(context.Background(), task.RunRequest{Root: root, Kind: task.Pytest, Select: task.Selection{Files: []string{"crash"}}})
	require.NoError(t, err)
	assert.Equal(t, task.RunOK, rep.State, rep.Detail)
	assert.Equal(t, map[string]task.Outcome{
		"crash/test_crash.py::test_a":                         task.Pass,
		"crash/test_crash.py::test_exits":                     task.Fail,
		"crash/test_crash.py::test_b":                         task.Pass,
		"crash/test_crash.py::test_segfault":                  task.Fail,
		"crash/test_crash.py::test_c_fails":                   task.Fail,
		"crash/test_crash.py::test_exits_zero_after_failures": task.Fail,
		"crash/test_crash.py::test_d":                         task.Pass,
	}, outcomes(rep))
	r, _ := rep.Result("crash/test_crash.py::test_segfault")
	assert.Contains(t, r.Message, "killed by a signal")
	r, _ = rep.Result("crash/test_crash.py::test_exits_zero_after_failures")
	assert.Contains(t, r.Message, "exited with status 0")
	checkAlone(t, rep, func(id string) task.Outcome { return alonePytest(t, py, root, id) })
}

func TestRerunPytestCollectionError(t *testing.T) {
	py := needPytest(t)
	root := verdictFixture(t, "py")
	rep, err := local(t).Run(context.Background(), task.RunRequest{Root: root, Kind: task.Pytest, Select: task.Selection{Files: []string{"coll"}}})
	require.NoError(t, err)
	assert.Equal(t, task.RunCollectionError, rep.State)
	assert.Contains(t, rep.Detail, "module_that_does_not_exist")
	assert.Equal(t, map[string]task.Outcome{
		"coll/test_good1.py::test_one":       task.Pass,
		"coll/test_good1.py::test_one_fails": task.Fail,
		"coll/test_good2.py::test_two":       task.Pass,
	}, outcomes(rep))
	checkAlone(t, rep, func(id string) task.Outcome { return alonePytest(t, py, root, id) })

	// A selected test in the file that does not collect is not_run, with the reason.
	rep, err = local(t).Run(context.Background(), task.RunRequest{Root: root, Kind: task.Pytest,
		Select: task.Selection{IDs: []string{"coll/test_good2.py::test_two", "coll/test_broken.py::test_never"}}})
	require.NoError(t, err)
	assert.Equal(t, map[string]task.Outcome{
		"coll/test_good2.py::test_two":    task.Pass,
		"coll/test_broken.py::test_never": task.NotRun,
	}, outcomes(rep))
	r, _ := rep.Result("coll/test_broken.py::test_never")
	assert.Contains(t, r.Message, "module_that_does_not_exist")
}

// TestRerunPytestDiesCollecting: the interpreter exits while importing one test file; the
// other files run in a re-run that leaves it out.
func TestRerunPytestDiesCollecting(t *testing.T) {
	py := needPytest(t)
	root := verdictFixture(t, "py")
	rep, err := local(t).Run(context.Background(), task.RunRequest{Root: root, Kind: task.Pytest,
		Select: task.Selection{Files: []string{"collcrash"}}})
	require.NoError(t, err)
	assert.Equal(t, task.RunCollectionError, rep.State)
	assert.Contains(t, rep.Detail, "collcrash/test_dies.py: the interpreter exited with status 4 while collecting this file")
	assert.Equal(t, map[string]task.Outcome{
		"collcrash/test_ok1.py::test_ok1": task.Pass,
		"collcrash/test_ok2.py::test_ok2": task.Fail,
	}, outcomes(rep))
	checkAlone(t, rep, func(id string) task.Outcome { return alonePytest(t, py, root, id) })
}

// TestRerunNoWallBudget: by default the re-runs have no wall-time budget of their own (each
// is bounded by the run's limit, their number by Attempts), so which tests keep no verdict
// does not depend on the machine's load. Four tests each end the binary after 2 s: eight
// attempts take more than the run's 12 s limit together, and every test still gets its
// verdict. A positive Reruns.Time bounds them together, and what it cut off is not_run.
func TestRerunNoWallBudget(t *testing.T) {
	acceptance.Skip(t, "eight runs of a fixture whose tests sleep 2 s each")
	needGo(t)
	root := t.TempDir()
	src := "package slow\n\nimport (\n\t\"os\"\n\t\"testing\"\n\t\"time\"\n)\n\nfunc end() { time.Sleep(2 * time.Second); os.Exit(3) }\n\n"
	for _, n := range []string{"A", "B", "C", "D"} {
		src += "func Test" + n + "(t *testing.T) { end() }\n"
	}
	writeGoModule(t, root, "slow", src)
	ids := []string{"example.com/slow.TestA", "example.com/slow.TestB", "example.com/slow.TestC", "example.com/slow.TestD"}
	req := task.RunRequest{Root: root, Kind: task.GoTest, Select: task.Selection{IDs: ids}, Limits: task.Limits{Timeout: 12 * time.Second}}

	l := NewLocal(Options{})
	defer l.Close()
	start := time.Now()
	rep, err := l.Run(context.Background(), req)
	require.NoError(t, err)
	want := map[string]task.Outcome{}
	for _, id := range ids {
		want[id] = task.Fail
	}
	assert.Equal(t, want, outcomes(rep), "notes: %v", rep.Notes)
	assert.Greater(t, time.Since(start), req.Limits.Timeout, "the attempts took less than the run's limit together: the test shows nothing")

	l2 := NewLocal(Options{Reruns: Reruns{Time: time.Nanosecond}})
	defer l2.Close()
	rep, err = l2.Run(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, []string{"example.com/slow.TestB", "example.com/slow.TestC", "example.com/slow.TestD"}, rep.NotRun(), "notes: %v", rep.Notes)
	r, _ := rep.Result("example.com/slow.TestD")
	assert.Contains(t, r.Message, "re-run budget (100 attempts, 1ns) was spent")
}

// TestRerunHangBudget: re-runs that end at a time limit share the run's limit by default (a
// test that hangs costs the whole limit each time), while those ending in a crash take none
// (TestRerunNoWallBudget). Three tests hang one after another: the first attempt and one
// re-run give the first two Timeout, the re-run spends the budget, and the third is not_run
// saying so.
func TestRerunHangBudget(t *testing.T) {
	needGo(t)
	root := t.TempDir()
	src := "package hang\n\nimport (\n\t\"testing\"\n\t\"time\"\n)\n\n"
	for _, n := range []string{"A", "B", "C"} {
		src += "func TestHang" + n + "(t *testing.T) { time.Sleep(time.Hour) }\n"
	}
	writeGoModule(t, root, "hang", src)
	ids := []string{"example.com/hang.TestHangA", "example.com/hang.TestHangB", "example.com/hang.TestHangC"}
	req := task.RunRequest{Root: root, Kind: task.GoTest, Select: task.Selection{IDs: ids}, Limits: task.Limits{Timeout: 6 * time.Second}}
	l := NewLocal(Options{})
	defer l.Close()
	rep, err := l.Run(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, map[string]task.Outcome{
		"example.com/hang.TestHangA": task.Timeout,
		"example.com/hang.TestHangB": task.Timeout,
		"example.com/hang.TestHangC": task.NotRun,
	}, outcomes(rep), "notes: %v", rep.Notes)
	r, _ := rep.Result("example.com/hang.TestHangC")
	assert.Contains(t, r.Message, "re-runs that end at a time limit")
}

// TestRerunCapScales: by default the re-run bound grows with the tests (twice those known,
// at least DefaultRerunAttempts). A package of 130 tests that each take the binary down (a
// nil-map write, as in a table every case of which reaches a corrupted function) needs a
// re-run per test: every one gets its own verdict, where a fixed bound of 100 leaves the
// last ones not_run with the reason.
func TestRerunCapScales(t *testing.T) {
	needGo(t)
	const n = 130
	root := t.TempDir()
	var src strings.Builder
	src.WriteString("package many\n\nimport \"testing\"\n")
	for i := range n {
		fmt.Fprintf(&src, "\nfunc TestPanics%03d(t *testing.T) {\n\tvar m map[string]int\n\tm[\"x\"] = %d\n}\n", i, i)
	}
	writeGoModule(t, root, "many", src.String())

	count := func(rep *task.Report) map[task.Outcome]int {
		c := map[task.Outcome]int{}
		for _, r := range rep.Tests {
			c[r.Outcome]++
		}
		return c
	}
	l := NewLocal(Options{})
	defer l.Close()
	rep, err := l.Run(context.Background(), task.RunRequest{Root: root, Kind: task.GoTest})
	require.NoError(t, err)
	assert.Equal(t, map[task.Outcome]int{task.Fail: n}, count(rep), "every test gets its own verdict by default")

	l2 := NewLocal(Options{Reruns: Reruns{Attempts: DefaultRerunAttempts}})
	defer l2.Close()
	rep, err = l2.Run(context.Background(), task.RunRequest{Root: root, Kind: task.GoTest})
	require.NoError(t, err)
	c := count(rep)
	assert.Positive(t, c[task.NotRun], "a fixed bound of %d leaves some without a verdict: %v", DefaultRerunAttempts, c)
	assert.Equal(t, n, c[task.Fail]+c[task.NotRun], "%v", c)
	for _, r := range rep.Tests {
		if r.Outcome == task.NotRun {
			assert.Contains(t, r.Message, fmt.Sprintf("re-run budget (%d attempts, ", DefaultRerunAttempts))
		}
	}
}
