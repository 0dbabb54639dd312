package corrupt

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/fstree"

	"github.com/faultline-dev/faultline/sandbox"
	"github.com/faultline-dev/faultline/task"
)

// sample is the example module's test fixture, shared by the package's tests: one local
// runner, one result cache over it (content-keyed, so a tree validated by one test is
// served to another from the cache, with the same report a fresh run gives) and one
// baseline, made by the first test that asks and closed by TestMain. The runner caps each
// run's address space at sampleMemory: some corruptions of the sample loop allocating
// (MonthlyTotals with a stubbed next), and under the 8 GiB default each such run, with its
// re-runs, took minutes to reach it; with the cap they fail the same way in seconds.
var sample struct {
	once   sync.Once
	local  *sandbox.Local
	cached task.Runner
	base   Baseline
	req    task.RunRequest
	err    error
}

// sampleMemory is the address-space limit of the sample's test runs (see sample).
const sampleMemory = 1 << 30

func TestMain(m *testing.M) {
	code := m.Run()
	if sample.local != nil {
		sample.local.Close()
	}
	os.Exit(code)
}

// sampleRun returns the shared runner, the sample's baseline and the run template.
func sampleRun(t *testing.T) (task.Runner, Baseline, task.RunRequest) {
	t.Helper()
	sample.once.Do(func() {
		if _, err := os.Stat("../examples/sample/go.mod"); err != nil {
			sample.err = err
			return
		}
		root, err := filepath.Abs("../examples/sample")
		if err != nil {
			sample.err = err
			return
		}
		sample.local = sandbox.NewLocal(sandbox.Options{Limits: task.Limits{MemoryBytes: sampleMemory}})
		sample.req = task.RunRequest{Root: root, Kind: task.GoTest}
		b, err := sandbox.Baseline(context.Background(), sample.local, sample.req, 2)
		if err != nil {
			sample.err = fmt.Errorf("baseline: %w", err)
			return
		}
		sample.base = Baseline{Passing: b.Passing, Failing: b.Failing, Flaky: b.Flaky}
		sample.cached = sandbox.NewCache(sample.local, sandbox.CacheOptions{})
	})
	if sample.err != nil {
		t.Fatal(sample.err)
	}
	base := Baseline{Passing: slices.Clone(sample.base.Passing), Failing: slices.Clone(sample.base.Failing), Flaky: slices.Clone(sample.base.Flaky)}
	return sample.cached, base, sample.req
}

// hashTree reads every file below root.
func hashTree(t *testing.T, root string) map[string]string {
	t.Helper()
	m, err := fstree.Read(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestGenerateRemoveAndDiscoveryOnSample(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the sample's tests many times")
	}
	ctx := context.Background()
	r, base, req := sampleRun(t)
	g, c := sampleGraph(t)
	before := hashTree(t, "../examples/sample")
	for _, mode := range []Mode{Remove, Discovery} {
		t.Run(string(mode), func(t *testing.T) {
			opts := Options{Mode: mode, N: 3, Seed: 11, Run: req}
			res, err := Generate(ctx, req.Root, g, c, r, base, opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(res) != 3 {
				t.Fatalf("%d tasks, want 3", len(res))
			}
			min := 5
			if mode == Discovery {
				min = 2
			}
			for _, x := range res {
				if len(x.Validation.FailToPass) < min || !x.Validation.Accepted {
					t.Errorf("%s: %d failing tests", x.Functions[0].ID, len(x.Validation.FailToPass))
				}
				if len(x.Validation.FailToPass)+len(x.Validation.PassToPass) != len(base.Passing) {
					t.Errorf("F2P ∪ P2P does not cover the baseline")
				}
				recheck(t, r, req, x)
			}
			// Same seed, same tasks, byte for byte.
			again, err := Generate(ctx, req.Root, g, c, r, base, opts)
			if err != nil {
				t.Fatal(err)
			}
			a, _ := json.Marshal(res)
			b, _ := json.Marshal(again)
			if string(a) != string(b) {
				t.Errorf("same seed gave different tasks:\n%s\n%s", a, b)
			}
		})
	}
	if !reflect.DeepEqual(before, hashTree(t, "../examples/sample")) {
		t.Error("the sample repository was modified")
	}
}

// recheck re-verifies a generated task from its record (see Recheck).
func recheck(t *testing.T, r task.Runner, req task.RunRequest, x Result) {
	t.Helper()
	if err := Recheck(context.Background(), r, nil, req, x.Problem("sample", "")); err != nil {
		t.Error(err)
	}
}

func TestGenerateGroupsOnSample(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the sample's tests")
	}
	ctx := context.Background()
	r, base, req := sampleRun(t)
	g, c := sampleGraph(t)
	for _, tc := range []struct {
		mode Mode
		k    int
	}{{Remove, 2}, {Remove, 3}, {Discovery, 2}} {
		k := tc.k
		res, err := Generate(ctx, req.Root, g, c, r, base, Options{
			Mode: tc.mode, N: 1, Seed: 5, Run: req, Group: GroupOptions{K: k, Distance: 3, Undirected: true},
			Select:    SelectOptions{MinCodeLines: 1},
			SkipAlone: true, // groups are tested here; the confirmation alone has tests of its own (50 runs more)
		})
		if err != nil {
			t.Fatalf("k=%d: %v", k, err)
		}
		fs := res[0].Functions
		for _, f := range fs {
			if (f.Rule == RemoveRule) != (tc.mode == Remove) {
				t.Errorf("%s k=%d: %s corrupted by %s", tc.mode, k, f.ID, f.Rule)
			}
		}
		if len(fs) != k {
			t.Fatalf("k=%d: %d functions corrupted", k, len(fs))
		}
		for i := range fs {
			for j := i + 1; j < len(fs); j++ {
				a, _ := g.Lookup(fs[i].ID)
				b, _ := g.Lookup(fs[j].ID)
				if d, ok := g.Distance(a, b, true); !ok || d > 3 {
					t.Errorf("k=%d: %s and %s at distance %d", k, fs[i].ID, fs[j].ID, d)
				}
			}
		}
		recheck(t, r, req, res[0])
	}
}

func TestGenerateBadInputs(t *testing.T) {
	ctx := context.Background()
	g, c := sampleGraph(t)
	req := task.RunRequest{Root: "../examples/sample", Kind: task.GoTest}
	never := task.RunnerFunc(func(context.Context, task.RunRequest) (*task.Report, error) {
		t.Fatal("the runner must not be called")
		return nil, nil
	})
	_, err := Generate(ctx, "../examples/sample", g, c, never, Baseline{Passing: []string{"a"}, Failing: []string{"x.TestBroken"}}, Options{Run: req})
	if !errors.Is(err, ErrBaselineNotGreen) {
		t.Errorf("failing baseline: err = %v", err)
	}
	_, err = Generate(ctx, "../examples/sample", g, c, never, Baseline{}, Options{Run: req})
	if !errors.Is(err, ErrNoTests) {
		t.Errorf("no tests: err = %v", err)
	}
	_, err = Generate(ctx, "../examples/sample", g, c, never, Baseline{Passing: []string{"a"}}, Options{Run: req, Select: SelectOptions{MinCodeLines: 10000}})
	if !errors.Is(err, ErrNoCandidates) {
		t.Errorf("nothing qualifies: err = %v", err)
	}
	if _, err := Generate(ctx, "../examples/sample", g, c, never, Baseline{Passing: []string{"a"}}, Options{}); err == nil {
		t.Error("missing test kind accepted")
	}
	// A runner whose runs never execute: every candidate is rejected with the reason.
	broken := task.RunnerFunc(func(context.Context, task.RunRequest) (*task.Report, error) {
		return &task.Report{State: task.RunTimeout, Detail: "too slow"}, nil
	})
	_, err = Generate(ctx, "../examples/sample", g, c, broken, Baseline{Passing: []string{"a"}}, Options{Run: req, N: 2})
	if !errors.Is(err, ErrNoCandidates) || !strings.Contains(err.Error(), "the tests time out") {
		t.Errorf("runs that time out: err = %v", err)
	}
	noBuild := task.RunnerFunc(func(context.Context, task.RunRequest) (*task.Report, error) {
		return &task.Report{State: task.RunBuildFailed, Detail: "undefined: x"}, nil
	})
	_, err = Generate(ctx, "../examples/sample", g, c, noBuild, Baseline{Passing: []string{"a"}}, Options{Run: req, N: 2})
	if !errors.Is(err, ErrNoCandidates) || !strings.Contains(err.Error(), "the tests could not run (build_failed: undefined: x)") {
		t.Errorf("tests that cannot run: the cause is lost: err = %v", err)
	}
	// A collection error keeps its text, with the private copy's path made relative, in the
	// progress lines and in the error; a state without detail says what it means.
	for _, tc := range []struct {
		rep  task.Report
		want string
	}{
		{task.Report{State: task.RunCollectionError, Detail: "ERROR collecting /tmp/faultline-run-123/tree/ledger/money.go: ValueError: boom"},
			"the tests could not run (collection_error: ERROR collecting ledger/money.go: ValueError: boom)"},
		{task.Report{State: task.RunNoTests}, "the tests could not run (no_tests: no test was collected or selected)"},
	} {
		rep := tc.rep
		run := task.RunnerFunc(func(context.Context, task.RunRequest) (*task.Report, error) { r := rep; return &r, nil })
		var progress []string
		_, err = Generate(ctx, "../examples/sample", g, c, run, Baseline{Passing: []string{"a"}}, Options{Run: req, N: 2,
			Progress: func(p Progress) { progress = append(progress, p.Reason) }})
		if !errors.Is(err, ErrNoCandidates) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to contain %q", rep.State, err, tc.want)
		}
		if len(progress) == 0 || progress[0] != tc.want {
			t.Errorf("%s: progress reasons %q, want %q", rep.State, progress, tc.want)
		}
	}
	// A long collection error keeps, within the reason's 300 bytes, the exception pytest
	// names (its "E" line), not the first frames of the traceback.
	longCollect := task.RunnerFunc(func(context.Context, task.RunRequest) (*task.Report, error) {
		return &task.Report{State: task.RunCollectionError, Detail: "tests/test_a.py: ImportError while importing test module '/tmp/faultline-run-123/tree/tests/test_a.py'.\n" +
			"Hint: make sure your test modules/packages have valid Python names.\nTraceback:\n" +
			"/usr/lib/python3.11/importlib/__init__.py:126: in import_module\n    return _bootstrap._gcd_import(name[level:], package, level)\n" +
			"tests/test_a.py:4: in <module>\n    from pkg import missing_name\n" +
			"E   ImportError: cannot import name 'missing_name' from 'pkg' (/tmp/faultline-run-123/tree/pkg/__init__.py)"}, nil
	})
	_, err = Generate(ctx, "../examples/sample", g, c, longCollect, Baseline{Passing: []string{"a"}}, Options{Run: req, N: 2})
	if !errors.Is(err, ErrNoCandidates) || !strings.Contains(err.Error(), "E   ImportError: cannot import name 'missing_name' from 'pkg'") {
		t.Errorf("a long collection error lost its exception: err = %v", err)
	}
	// A run that reports, but one of the broken tests ran out of memory.
	oom := task.RunnerFunc(func(context.Context, task.RunRequest) (*task.Report, error) {
		return &task.Report{State: task.RunOK, Tests: []task.TestResult{
			{ID: "a", Outcome: task.Fail}, {ID: "b", Outcome: task.Fail, Message: "runtime: out of memory: cannot allocate 1929379840-byte block\nfatal error: out of memory"}, {ID: "c", Outcome: task.Fail},
		}}, nil
	})
	_, err = Generate(ctx, "../examples/sample", g, c, oom, Baseline{Passing: []string{"a", "b", "c"}}, Options{Mode: Discovery, Run: req, N: 2})
	if !errors.Is(err, ErrNoCandidates) || !strings.Contains(err.Error(), "the tests time out") {
		t.Errorf("a test out of memory: err = %v", err)
	}
	// A run that reports, but one of the broken tests hung until the time limit.
	hung := task.RunnerFunc(func(context.Context, task.RunRequest) (*task.Report, error) {
		return &task.Report{State: task.RunOK, Tests: []task.TestResult{
			{ID: "a", Outcome: task.Fail}, {ID: "b", Outcome: task.Timeout}, {ID: "c", Outcome: task.Fail},
		}}, nil
	})
	_, err = Generate(ctx, "../examples/sample", g, c, hung, Baseline{Passing: []string{"a", "b", "c"}}, Options{Mode: Discovery, Run: req, N: 2})
	if !errors.Is(err, ErrNoCandidates) || !strings.Contains(err.Error(), "the tests time out") {
		t.Errorf("a hanging test: err = %v", err)
	}
}

// TestGenerateRetryTimeout: a corruption whose run hits the short limit is validated once
// more with RetryTimeout, so a run slowed by the machine's load is kept while one that hangs
// at both limits is rejected as before.
func TestGenerateRetryTimeout(t *testing.T) {
	ctx := context.Background()
	g, c := sampleGraph(t)
	req := task.RunRequest{Root: "../examples/sample", Kind: task.GoTest, Limits: task.Limits{Timeout: 10 * time.Second}}
	var limits []time.Duration
	slow := task.RunnerFunc(func(_ context.Context, r task.RunRequest) (*task.Report, error) {
		limits = append(limits, r.Limits.Timeout)
		if r.Limits.Timeout < time.Minute {
			return &task.Report{State: task.RunTimeout, Detail: "run exceeded its time limit"}, nil
		}
		return &task.Report{State: task.RunOK, Tests: []task.TestResult{{ID: "a", Outcome: task.Fail}, {ID: "b", Outcome: task.Pass}}}, nil
	})
	res, err := Generate(ctx, "../examples/sample", g, c, slow, Baseline{Passing: []string{"a", "b"}}, Options{Run: req, N: 1, MinFailures: 1, RetryTimeout: time.Minute, Jobs: 1})
	if err != nil || len(res) != 1 {
		t.Fatalf("slow under load: %d results, err %v", len(res), err)
	}
	// The third run confirms the failing test alone and the next repeat the suite, all at
	// the limit the run needed.
	want := []time.Duration{10 * time.Second, time.Minute, time.Minute}
	for range confirmRuns {
		want = append(want, time.Minute)
	}
	if !slices.Equal(limits, want) {
		t.Errorf("run limits %v, want %v: the short one, then RetryTimeout, then RetryTimeout for the test alone and for the repeats", limits, want)
	}
	_, err = Generate(ctx, "../examples/sample", g, c, slow, Baseline{Passing: []string{"a", "b"}}, Options{Run: req, N: 1, MinFailures: 1, Jobs: 1})
	if !errors.Is(err, ErrNoCandidates) || !strings.Contains(err.Error(), "the tests time out") {
		t.Errorf("without RetryTimeout: err = %v", err)
	}
}
