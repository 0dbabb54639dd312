// Package breakpoint holds the end-to-end acceptance runs of package corrupt (Breakpoint)
// on repositories no one here wrote: a Go module from the module cache
// (github.com/sergi/go-diff v1.4.0) and a Debian Python package (python3-simplejson). Each
// repository and mode has its own test package (godiff/remove, godiff/discovery,
// simplejson/remove, simplejson/discovery), so each gets its own test binary and go
// test's time limit. They are long, so they run only when FAULTLINE_ACCEPTANCE is set (CI
// sets it; godiff/discovery and simplejson/remove only when it is "full", the extended set):
//
//	FAULTLINE_ACCEPTANCE=1 go test -timeout 60m -v ./bench/breakpoint/...
//
// prints, per repository, how many REMOVE and DISCOVERY tasks were validated out of how
// many candidates tried, the rules used, and the test runs and cache hits.
//
// Terms: a Repo is a prepared private copy of such a repository (never the original); Run
// generates 10 validated REMOVE or 10 DISCOVERY tasks and a 2- and a 3-function group on
// it and re-checks every task from its patches alone (see Run).
package breakpoint

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/callgraph"
	"github.com/faultline-dev/faultline/callgraph/golang"
	"github.com/faultline-dev/faultline/callgraph/python"
	"github.com/faultline-dev/faultline/corrupt"
	"github.com/faultline-dev/faultline/internal/fstree"
	"github.com/faultline-dev/faultline/sandbox"
	"github.com/faultline-dev/faultline/task"
)

// Repo is a repository no one here wrote, prepared in a temporary directory.
type Repo struct {
	Root string             // the private copy
	Lang callgraph.Language // its call-graph front end
	Kind task.TestKind      // how its tests run
	Env  []string           // extra environment of the test runs
	// Target, when set, is the directory (slash path relative to Root) the program is
	// pointed at: a package directory or a module subdirectory, as users give it.
	Target string
	// ProcEnv is extra environment of the program's own process (e.g. a private
	// GOMODCACHE that its preparation fills).
	ProcEnv []string
	// Flaky names tests whose verdict on a corrupted tree depends on the machine's speed
	// (they assert wall-clock bounds): Run adds them to the baseline's flaky tests, so they
	// never enter a task's FAIL_TO_PASS or PASS_TO_PASS — what a benchmark builder does
	// with such tests.
	Flaky []string
}

// GoDiff copies github.com/sergi/go-diff v1.4.0 from the module cache. Its go.mod
// requires testify v1.4.0 and friends, which an offline machine may lack; the copy requires
// the testify this module uses (in the cache, API-compatible for go-diff's tests) and runs
// with GOFLAGS=-mod=mod GOPROXY=off so go.sum is completed from the cache. The copy says
// go 1.17 (go-diff says 1.13): from 1.17 the module graph is pruned, so testify's own
// requirements (objx, which go-diff's tests never import) need not be in the cache either.
func GoDiff(t *testing.T) Repo {
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Skipf("go env GOMODCACHE: %v", err)
	}
	cache := strings.TrimSpace(string(out))
	src := filepath.Join(cache, "github.com/sergi/go-diff@v1.4.0")
	if _, err := os.Stat(filepath.Join(src, "diffmatchpatch")); err != nil {
		t.Skipf("github.com/sergi/go-diff@v1.4.0 is not in the module cache (%v)", err)
	}
	if _, err := os.Stat(filepath.Join(cache, "cache/download/github.com/stretchr/testify/@v/v1.12.1.zip")); err != nil {
		t.Skipf("github.com/stretchr/testify@v1.12.1 is not in the module cache (%v)", err)
	}
	root := filepath.Join(t.TempDir(), "go-diff")
	if err := fstree.CopySubject(src, root); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(root, "go.sum"))
	gomod := "module github.com/sergi/go-diff\n\nrequire github.com/stretchr/testify v1.12.1\n\ngo 1.17\n"
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte(gomod), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"GOFLAGS=-mod=mod", "GOPROXY=off", "GOSUMDB=off"}
	cmd := exec.Command("go", "list", "-deps", "-test", "./...")
	cmd.Dir, cmd.Env = root, append(os.Environ(), env...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("go-diff does not resolve its dependencies offline: %v\n%s", err, b)
	}
	// TestDiffMainWithTimeout requires DiffMain to take at least its 200 ms timeout. A
	// corruption that makes the diff finish sooner fails it on a fast machine and passes it
	// under load: CI once recorded it as PASS_TO_PASS while validating a REMOVE task, and
	// the re-check, run alone, saw it fail.
	flaky := []string{"github.com/sergi/go-diff/diffmatchpatch.TestDiffMainWithTimeout"}
	return Repo{Root: root, Lang: golang.New(golang.Options{}), Kind: task.GoTest, Env: env, Flaky: flaky}
}

// Simplejson copies Debian's python3-simplejson (with its tests) under ROOT/simplejson.
func Simplejson(t *testing.T) Repo { return SimplejsonTB(t) }

// SimplejsonTB is Simplejson for tests and benchmarks.
func SimplejsonTB(t testing.TB) Repo {
	src := "/usr/lib/python3/dist-packages/simplejson"
	if _, err := os.Stat(filepath.Join(src, "tests")); err != nil {
		t.Skipf("python3-simplejson with its tests is not installed (%v); apt-get install python3-simplejson", err)
	}
	if err := exec.Command("/usr/bin/python3", "-c", "import pytest").Run(); err != nil {
		t.Skipf("Debian's /usr/bin/python3 cannot import pytest (%v); apt-get install python3-pytest", err)
	}
	root := filepath.Join(t.TempDir(), "root")
	if err := fstree.CopySubject(src, filepath.Join(root, "simplejson")); err != nil {
		t.Fatal(err)
	}
	// Leave out the C accelerator: with it the Python scanner, decoder and encoder
	// functions it replaces are dead code under test, and no corruption of them can fail a
	// test. simplejson falls back to its pure-Python implementation (its own test suite
	// skips the speedup tests then).
	so, _ := filepath.Glob(filepath.Join(root, "simplejson", "_speedups*.so"))
	for _, f := range so {
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
	return Repo{Root: root, Lang: python.New(python.Options{}), Kind: task.Pytest}
}

// Run is the end-to-end acceptance test of Breakpoint generation on repo: it generates
// 10 validated REMOVE tasks and a 2- and a 3-function REMOVE group (mode Remove), or 10
// validated DISCOVERY tasks (mode Discovery), and re-checks every task from its patches alone: the corruption
// patch, applied to a clean copy, fails the recorded tests (run afresh for the first three
// tasks of each kind; for the others the result cache must recognise the validated tree);
// the gold patch restores the files byte for byte, whose tests pass. The first REMOVE and
// DISCOVERY task of each repository is also solved in the solver environment by
// submitting the original code.
func Run(t *testing.T, repo Repo, mode corrupt.Mode) {
	ctx := context.Background()
	start := time.Now()
	g, err := callgraph.Build(ctx, repo.Root, []callgraph.Language{repo.Lang}, callgraph.BuildOptions{SkipTests: true})
	if err != nil {
		t.Fatal(err)
	}
	cent, err := g.Centrality(ctx, callgraph.CentralityOptions{})
	if err != nil {
		t.Fatal(err)
	}
	local := sandbox.NewLocal(sandbox.Options{Env: repo.Env})
	t.Cleanup(func() { local.Close() })
	cached := sandbox.NewCache(local, sandbox.CacheOptions{})
	// A corruption that hangs costs the whole limit and is rejected (see Validate): keep
	// it a few times the suites' 2 s.
	req := task.RunRequest{Root: repo.Root, Kind: repo.Kind, Limits: task.Limits{Timeout: 20 * time.Second}}
	b, err := sandbox.Baseline(ctx, cached, req, 2)
	if err != nil {
		t.Fatalf("baseline: %v", err)
	}
	base := corrupt.Baseline{Passing: b.Passing, Failing: b.Failing, Flaky: append(append([]string(nil), b.Flaky...), repo.Flaky...)}
	if err := base.Check(false); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d candidates, baseline of %d passing tests (%d flaky)", len(corrupt.Select(g, cent, corrupt.SelectOptions{})), len(base.Passing), len(base.Flaky))

	const want = 10
	var counts []string
	type job struct {
		name string
		opts corrupt.Options
		n    int
	}
	jobs := []job{{"discovery", corrupt.Options{Mode: corrupt.Discovery, N: want}, want}}
	if mode == corrupt.Remove {
		jobs = []job{
			{"remove", corrupt.Options{Mode: corrupt.Remove, N: want}, want},
			{"remove k=2", corrupt.Options{Mode: corrupt.Remove, N: 1, Group: corrupt.GroupOptions{K: 2}}, 1},
			{"remove k=3", corrupt.Options{Mode: corrupt.Remove, N: 1, Group: corrupt.GroupOptions{K: 3}}, 1},
		}
	}
	for _, run := range jobs {
		o := run.opts
		o.Seed, o.Run = 7, req
		tried := 0
		o.Progress = func(p corrupt.Progress) { tried = p.Tried }
		res, err := corrupt.Generate(ctx, repo.Root, g, cent, cached, base, o)
		if err != nil {
			t.Fatalf("%s: %v", run.name, err)
		}
		counts = append(counts, fmt.Sprintf("%s: %d tasks of %d tried", run.name, len(res), tried))
		t.Logf("%s: %d tasks of %d tried after %v", run.name, len(res), tried, time.Since(start).Round(time.Second))
		if len(res) != run.n {
			t.Errorf("%s: %d validated tasks, want %d", run.name, len(res), run.n)
		}
		rules := map[string]int{}
		for _, x := range res {
			if len(x.Validation.FailToPass) < o.MinFailures || len(x.Validation.FailToPass) < 2 {
				t.Errorf("%s: %v: only %d failing tests", run.name, x.Functions, len(x.Validation.FailToPass))
			}
			if k := max(o.Group.K, 1); len(x.Functions) != k {
				t.Errorf("%s: %d functions corrupted, want %d", run.name, len(x.Functions), k)
			}
			for i := range x.Functions {
				rules[x.Functions[i].Rule]++
				for j := i + 1; j < len(x.Functions); j++ {
					a, _ := g.Lookup(x.Functions[i].ID)
					b, _ := g.Lookup(x.Functions[j].ID)
					d1, ok1 := g.Distance(a, b, false)
					d2, ok2 := g.Distance(b, a, false)
					if !(ok1 && d1 <= 4) && !(ok2 && d2 <= 4) {
						t.Errorf("%s: %s and %s are not within distance 4", run.name, x.Functions[i].ID, x.Functions[j].ID)
					}
				}
			}
			// Every task is re-checked from its patches; the first few run afresh (the
			// others through the cache, which serves a report only for a byte-identical
			// tree: the patch reproduces exactly the tree that was validated).
			var fresh task.Runner = cached
			if x.Index < 3 {
				fresh = local
			}
			hits := cached.Stats().CacheHits
			recheckWith(t, fresh, cached, req, x)
			if x.Index >= 3 && cached.Stats().CacheHits < hits+2 {
				t.Errorf("%s: the patches do not reproduce the validated and the clean trees", x.Functions[0].ID)
			}
		}
		if len(res) > 0 && run.opts.Group.K == 0 {
			solveWithOriginal(t, repo, cached, req, res[0])
		}
		t.Logf("%s: rules %v", run.name, rules)
	}
	t.Logf("%s in %v (%d runs, %d cache hits)", strings.Join(counts, "; "), time.Since(start).Round(time.Second), cached.Stats().Runs, cached.Stats().CacheHits)
}

// solveWithOriginal plays a trajectory in the solver environment that submits the
// original code of the corrupted function (REMOVE: submit_attempt(code); DISCOVERY:
// replace_function then submit_attempt()), which must succeed with a full score.
func solveWithOriginal(t *testing.T, repo Repo, r task.Runner, req task.RunRequest, x corrupt.Result) {
	t.Helper()
	ctx := context.Background()
	p := x.Problem("real", "")
	env, err := corrupt.NewEnv(repo.Root, p, r, corrupt.EnvOptions{Langs: []callgraph.Language{repo.Lang}, Run: task.RunRequest{Kind: req.Kind, Limits: req.Limits}})
	if err != nil {
		t.Fatal(err)
	}
	f := x.Functions[0]
	src, err := os.ReadFile(filepath.Join(repo.Root, filepath.FromSlash(f.Path)))
	if err != nil {
		t.Fatal(err)
	}
	original := string(src[f.Span.Start:f.Span.End])
	if got, err := env.ReadFunction(f.Path, f.Name); err != nil || got == "" {
		t.Fatalf("read_function(%s, %s): %q, %v", f.Path, f.Name, got, err)
	}
	var a corrupt.Attempt
	if x.Mode == corrupt.Remove {
		a, err = env.SubmitAttempt(ctx, original)
	} else {
		if _, err = env.ReplaceFunction(f.Path, f.Name, original); err != nil {
			t.Fatalf("replace_function: %v", err)
		}
		a, err = env.Submit(ctx)
	}
	if err != nil {
		t.Fatal(err)
	}
	sc := env.Score()
	if !a.Passed || !sc.Success || sc.Partial != 1 || !sc.Diagnosed {
		t.Errorf("%s %s: submitting the original code: attempt %+v, score %+v", x.Mode, f.ID, a, sc)
	}
}

// recheckWith re-verifies a task from its record with corrupt.Recheck: the corruption run
// uses r, the gold run goldRunner.
func recheckWith(t *testing.T, r, goldRunner task.Runner, req task.RunRequest, x corrupt.Result) {
	t.Helper()
	if err := corrupt.Recheck(context.Background(), r, goldRunner, req, x.Problem("recheck", "")); err != nil {
		t.Error(err)
	}
}
