package testimpact

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/fstree"

	"github.com/faultline-dev/faultline/callgraph"
	"github.com/faultline-dev/faultline/callgraph/golang"
	"github.com/faultline-dev/faultline/callgraph/python"
	"github.com/faultline-dev/faultline/corrupt"
	"github.com/faultline-dev/faultline/internal/acceptance"
	"github.com/faultline-dev/faultline/sandbox"
	"github.com/faultline-dev/faultline/task"
)

// realRepo is a copy of a real project with its runner.
type realRepo struct {
	root   string
	kind   task.TestKind
	lang   callgraph.Language
	python string
	env    []string
}

// humanize copies github.com/dustin/go-humanize v1.0.1 from the module cache.
func humanize(t *testing.T) realRepo {
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Skipf("go env GOMODCACHE: %v", err)
	}
	src := filepath.Join(strings.TrimSpace(string(out)), "github.com/dustin/go-humanize@v1.0.1")
	if _, err := os.Stat(src); err != nil {
		t.Skipf("go-humanize v1.0.1 is not in the module cache (go mod download github.com/dustin/go-humanize@v1.0.1): %v", err)
	}
	root := filepath.Join(t.TempDir(), "m")
	copyTree(t, src, root)
	return realRepo{root: root, kind: task.GoTest, lang: golang.New(golang.Options{}), env: []string{"GOFLAGS=-mod=mod", "GOPROXY=off"}}
}

// toolz copies Debian's python3-toolz (with its tests) under ROOT/toolz.
func toolz(t *testing.T) realRepo {
	src := "/usr/lib/python3/dist-packages/toolz"
	if _, err := os.Stat(filepath.Join(src, "tests")); err != nil {
		t.Skip("python3-toolz is not installed")
	}
	if err := exec.Command("/usr/bin/python3", "-c", "import pytest").Run(); err != nil {
		t.Skip("/usr/bin/python3 has no pytest (python3-pytest)")
	}
	root := t.TempDir()
	copyTree(t, src, filepath.Join(root, "toolz"))
	return realRepo{root: root, kind: task.Pytest, lang: python.New(python.Options{}), python: "/usr/bin/python3"}
}

// copyTree makes the writable copy of a read-only test subject at dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	if err := fstree.CopySubject(src, dst); err != nil {
		t.Fatal(err)
	}
}

// equalToFull generates tasks with and without the impact of the repository and requires
// the same tasks, F2P and P2P; it returns the two counts.
func equalToFull(t *testing.T, repo realRepo, mode corrupt.Mode, n int) (withImpact, full Counts) {
	ctx := context.Background()
	local := sandbox.NewLocal(sandbox.Options{WorkDir: t.TempDir(), Python: repo.python, Env: repo.env})
	defer local.Close()
	req := task.RunRequest{Root: repo.root, Kind: repo.kind, Limits: task.Limits{Timeout: 5 * time.Minute}}
	b, err := sandbox.Baseline(ctx, local, req, 2)
	if err != nil {
		t.Fatal(err)
	}
	base := corrupt.Baseline{Passing: b.Passing, Failing: b.Failing, Flaky: b.Flaky}
	g, err := callgraph.Build(ctx, repo.root, []callgraph.Language{repo.lang}, callgraph.BuildOptions{SkipTests: true})
	if err != nil {
		t.Fatal(err)
	}
	cent, err := g.Centrality(ctx, callgraph.CentralityOptions{})
	if err != nil {
		t.Fatal(err)
	}
	im, st, err := Record(ctx, local, req, b.Passing, Options{Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	if st.Failed > 0 || len(im.Always) > 0 {
		t.Errorf("%d of %d recording runs failed (%d tests always run)", st.Failed, st.Runs, len(im.Always))
	}
	global := 0
	for _, r := range im.Regions {
		if r.Global {
			global++
		}
	}
	t.Logf("impact: %d groups, %d regions (%d run outside any test), %d recording runs", len(im.Groups), len(im.Regions), global, st.Runs)
	gen := func(im *corrupt.Impact) ([]corrupt.Result, Counts) {
		c := &Counter{R: local}
		res, err := corrupt.Generate(ctx, repo.root, g, cent, c, base, corrupt.Options{Mode: mode, N: n, Seed: 3, Run: req, Jobs: 2, Impact: im})
		if err != nil {
			t.Fatal(err)
		}
		return res, c.Counts()
	}
	resImpact, withImpact := gen(im)
	resFull, full := gen(nil)
	if len(resFull) == 0 {
		t.Fatal("no task")
	}
	if !Same(resImpact, resFull) {
		a, b := fingerprint(resImpact), fingerprint(resFull)
		if len(a) != len(b) {
			t.Errorf("%d tasks with the impact, %d without", len(a), len(b))
		}
		for i := range min(len(a), len(b)) {
			if !reflect.DeepEqual(a[i], b[i]) {
				t.Errorf("task %d differs:\nimpact %q %q\nfull   %q %q", i, a[i].Functions, a[i].FailToPass, b[i].Functions, b[i].FailToPass)
			}
		}
	}
	if withImpact.SubsetRuns == 0 {
		t.Errorf("no subset run: the impact was never used")
	}
	t.Logf("%s: %d task(s); impact: %d runs (%d subsets), %d test executions, %v; full: %d runs, %d test executions, %v",
		mode, len(resFull), withImpact.Runs, withImpact.SubsetRuns, withImpact.Tests, withImpact.Wall.Round(time.Millisecond),
		full.Runs, full.Tests, full.Wall.Round(time.Millisecond))
	return withImpact, full
}

func TestImpactEqualsFullGo(t *testing.T) {
	acceptance.Skip(t, "runs go-humanize's tests once per test and per candidate, twice")
	repo := humanize(t)
	for _, mode := range []corrupt.Mode{corrupt.Remove, corrupt.Discovery} {
		t.Run(string(mode), func(t *testing.T) {
			im, full := equalToFull(t, repo, mode, 4)
			// REMOVE rejects most candidates, each on a subset; a mode that keeps nearly
			// every candidate pays a subset more per task and is only checked for equality.
			if mode == corrupt.Remove && im.Tests >= full.Tests {
				t.Errorf("impact validation executed %d tests, the whole suite %d", im.Tests, full.Tests)
			}
		})
	}
}

func TestImpactEqualsFullPython(t *testing.T) {
	acceptance.Skip(t, "traces each of toolz's test files and runs its tests per candidate, twice")
	repo := toolz(t)
	for _, mode := range []corrupt.Mode{corrupt.Remove, corrupt.Discovery} {
		t.Run(string(mode), func(t *testing.T) {
			im, full := equalToFull(t, repo, mode, 4)
			// REMOVE rejects most candidates, each on a subset; a mode that keeps nearly
			// every candidate pays a subset more per task and is only checked for equality.
			if mode == corrupt.Remove && im.Tests >= full.Tests {
				t.Errorf("impact validation executed %d tests, the whole suite %d", im.Tests, full.Tests)
			}
		})
	}
}
