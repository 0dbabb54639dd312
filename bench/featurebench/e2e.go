// Package featurebench holds the end-to-end acceptance runs of package extract (the
// FeatureBench pipeline) on repositories no one here wrote: Debian's python3-simplejson,
// python3-pyflakes and python3-bs4, and github.com/go-logr/logr v1.4.3 from the module
// cache. Each repository has its own test package (simplejson, pyflakes, bs4, logr), so
// each gets its own test binary and go test's time limit, go test ./... runs them in
// parallel, and `go test ./extract` stays quick. They are long, so they run only when
// FAULTLINE_ACCEPTANCE is set (CI sets it):
//
//	FAULTLINE_ACCEPTANCE=1 go test -timeout 60m -v ./bench/featurebench/...
//
// Run requires five accepted instances per repository, re-verifies every one in a fresh
// copy of the repository (masked: the F2P pass rate is at most 0.3 and the P2P files pass;
// gold: everything passes) and checks that the repository was not written. Determinism
// (simplejson/determinism, logr/determinism: separate packages, so that no test binary
// runs more than two pipelines) runs the pipeline twice with the same seed, on two copies
// at different paths with their own runners, and requires byte-identical instance
// directories (package artifact, Level 1).
//
// Every run here is long (bs4's took over ten minutes under load): they run only when
// FAULTLINE_ACCEPTANCE is set (CI sets it), and want a generous go test -timeout (30m):
//
//	FAULTLINE_ACCEPTANCE=1 go test -timeout 30m ./bench/featurebench/...
//
// A subject that is not installed (the Debian package, Debian's python3 with pytest, the
// module in the module cache) is skipped with a message saying what to install.
package featurebench

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/faultline-dev/faultline/bench/internal/twice"
	"github.com/faultline-dev/faultline/extract"
	"github.com/faultline-dev/faultline/extract/artifact"
	"github.com/faultline-dev/faultline/extract/mask"
	"github.com/faultline-dev/faultline/internal/fstree"
	"github.com/faultline-dev/faultline/sandbox"
	"github.com/faultline-dev/faultline/task"
)

// Python is the interpreter the Python subjects run with: Debian's, which has pytest.
const Python = "/usr/bin/python3"

// Subject is a repository no one here wrote, as Run uses it.
type Subject struct {
	// Name is the instances' repository, owner/name.
	Name string
	// Src is where the original lies (read only); Run works on private copies.
	Src string
	// Dir is the directory the copies put Src in (a Debian package must sit at
	// ROOT/<package> so that `python -m pytest` run in ROOT imports the copy); empty for a
	// Go module, whose copy is the root itself.
	Dir  string
	Kind task.TestKind
	// Env is the extra environment of the test runs.
	Env []string
}

// Debian returns the Debian package pkg (/usr/lib/python3/dist-packages/<pkg>, with its
// tests), or skips t when it or Debian's python3 with pytest is missing.
func Debian(t *testing.T, pkg string) Subject {
	t.Helper()
	src := filepath.Join("/usr/lib/python3/dist-packages", pkg)
	if _, err := os.Stat(src); err != nil {
		t.Skipf("featurebench: %s is not installed (apt-get install python3-%s)", src, pkg)
	}
	if err := exec.Command(Python, "-c", "import pytest").Run(); err != nil {
		t.Skipf("featurebench: %s cannot import pytest (apt-get install python3-pytest): %v", Python, err)
	}
	return Subject{Name: "debian/" + pkg, Src: src, Dir: pkg, Kind: task.Pytest}
}

// GoModule returns the module modVersion (path@version) from the module cache, or skips t
// when it is not there. Its tests run offline (GOFLAGS=-mod=mod, GOPROXY=off).
func GoModule(t *testing.T, name, modVersion string) Subject {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("featurebench: the go command is not installed")
	}
	cache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	require.NoError(t, err)
	src := filepath.Join(strings.TrimSpace(string(cache)), filepath.FromSlash(modVersion))
	if _, err := os.Stat(filepath.Join(src, "go.mod")); err != nil {
		t.Skipf("featurebench: %s is not in the module cache (go mod download %s)", modVersion, modVersion)
	}
	return Subject{Name: name, Src: src, Kind: task.GoTest, Env: []string{"GOFLAGS=-mod=mod", "GOPROXY=off"}}
}

// Copy makes a private, writable copy of the subject under a new temporary directory and
// returns the repository root. __pycache__ directories are left out.
func (s Subject) Copy(t testing.TB) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "repo")
	require.NoError(t, fstree.CopySubject(s.Src, filepath.Join(root, s.Dir)))
	return root
}

// Runner returns a fresh local runner for the subject (its own work directory).
func (s Subject) Runner(t testing.TB) *sandbox.Local {
	t.Helper()
	opts := sandbox.Options{WorkDir: t.TempDir(), Env: s.Env}
	if s.Kind == task.Pytest {
		opts.Python = Python
	}
	r := sandbox.NewLocal(opts)
	t.Cleanup(func() { r.Close() })
	return r
}

// Accepted is how many accepted instances Run requires of each repository.
const Accepted = 5

// Seed is the pipeline seed of every run.
const Seed = 1

// Run runs the pipeline on a copy of s (seed Seed, stopping at Accepted instances),
// requires Accepted instances, re-verifies each in a fresh copy, builds their instance
// directories and checks that the repository was not written.
func Run(t *testing.T, s Subject) {
	twice.Skip(t)
	root := s.Copy(t)
	hasher := sandbox.NewTreeHasher()
	before, err := hasher.Hash(root, nil)
	require.NoError(t, err)

	start := time.Now()
	res, err := extract.Pipeline(context.Background(), s.Runner(t), root, options(t, ""))
	require.NoError(t, err)
	require.Equal(t, s.Kind, res.Kind)
	t.Logf("%s: %d accepted of %d candidates tried in %s", s.Name, len(res.Accepted()), len(res.Items), time.Since(start).Round(time.Second))
	for _, it := range res.Items {
		if !it.Accepted {
			require.NotEmpty(t, it.Reason, it.TestFile)
			t.Logf("rejected %s: %s", it.TestFile, it.Reason)
		}
	}
	acc := res.Accepted()
	require.Len(t, acc, Accepted)
	for _, it := range acc {
		require.NotEmpty(t, it.Extraction.Extracted, it.TestFile)
		require.NotEmpty(t, it.Mask.Removed, it.TestFile)
		require.NotEmpty(t, it.P2PFiles, it.TestFile)
		require.NotEmpty(t, it.Verification.F2PTests, it.TestFile)
		require.LessOrEqual(t, it.Verification.F2PPassRate, extract.DefaultMaxF2PPassRate, it.TestFile)
		Reverify(t, s, it)
	}
	require.Len(t, Instances(t, s, root, res), Accepted+1) // the directories and instances.jsonl

	after, err := hasher.Hash(root, nil)
	require.NoError(t, err)
	require.Equal(t, before, after, "the pipeline wrote to the repository")
}

// Determinism runs the pipeline twice with seed Seed, each on its own copy of s (at
// different paths) with its own runner, at the same time (the pipeline runs one test
// command at a time while it builds items, so two runs use two cores), and requires the
// same items and byte-identical instance directories.
func Determinism(t *testing.T, s Subject) {
	twice.Skip(t)
	type out struct {
		root string
		res  *extract.Result
		err  error
	}
	outs := make([]out, 2)
	var wg sync.WaitGroup
	for i := range outs {
		outs[i].root = s.Copy(t)
		r := s.Runner(t)
		wg.Go(func() {
			outs[i].res, outs[i].err = extract.Pipeline(context.Background(), r, outs[i].root, options(t, fmt.Sprintf("run %d: ", i+1)))
		})
	}
	wg.Wait()
	for _, o := range outs {
		require.NoError(t, o.err)
	}
	require.Len(t, outs[0].res.Accepted(), Accepted)
	require.Equal(t, itemsJSON(t, outs[0].res), itemsJSON(t, outs[1].res), "same seed, different items")
	first := Instances(t, s, outs[0].root, outs[0].res)
	require.Len(t, first, Accepted+1)
	require.Equal(t, first, Instances(t, s, outs[1].root, outs[1].res), "same seed, different instances")
}

func options(t *testing.T, prefix string) extract.Options {
	return extract.Options{Seed: Seed, N: Accepted, Progress: func(msg string) { t.Log(prefix + msg) }}
}

func itemsJSON(t *testing.T, res *extract.Result) string {
	t.Helper()
	b, err := json.MarshalIndent(res.Items, "", " ")
	require.NoError(t, err)
	return string(b)
}

// Reverify checks an accepted item again in a fresh copy of the repository, through a
// fresh runner with the pipeline's per-test limit.
func Reverify(t *testing.T, s Subject, it *extract.Item) {
	t.Helper()
	fresh := s.Copy(t)
	r := extract.WithTestTimeout(s.Runner(t), extract.DefaultTestTimeout)
	v, err := extract.Verify(context.Background(), r, extract.VerifyRequest{
		Base: task.RunRequest{Root: fresh, Kind: s.Kind}, Mask: it.Mask.Overlay, F2P: it.F2P, P2P: it.P2P,
		F2PFile: it.TestFile, BuildFailureFails: s.Kind == task.GoTest})
	require.NoError(t, err)
	require.True(t, v.Accepted, "%s: %s", it.TestFile, v.Reason)
	require.LessOrEqual(t, v.F2PPassRate, extract.DefaultMaxF2PPassRate, it.TestFile)
	require.Equal(t, it.Verification.F2PTests, v.F2PTests, it.TestFile)
	require.Equal(t, it.Verification.P2PTests, v.P2PTests, it.TestFile)
}

// Instances builds the Level 1 instance directory of every accepted item of res (root is
// the repository the pipeline ran on; the base commit is the hash of its tree) and
// instances.jsonl, and returns every file written, by slash path.
func Instances(t *testing.T, s Subject, root string, res *extract.Result) map[string]string {
	t.Helper()
	commit, err := sandbox.NewTreeHasher().Hash(root, nil)
	require.NoError(t, err)
	out := t.TempDir()
	var insts []task.SWEInstance
	for _, it := range res.Accepted() {
		var objs []mask.Target
		for _, id := range it.Top {
			o, err := mask.ParseTarget(id)
			require.NoError(t, err)
			objs = append(objs, o)
		}
		a, err := artifact.Build(context.Background(), artifact.Spec{
			Root: root, Repo: s.Name, BaseCommit: commit, Level: 1, TestFile: it.TestFile,
			Masked: it.Mask.Overlay, Objects: objs, Functions: len(it.Mask.Removed),
			FailToPass: it.Verification.F2PTests, PassToPass: it.Verification.P2PTests,
		}, artifact.Options{})
		require.NoError(t, err, it.TestFile)
		_, err = a.WriteDir(out)
		require.NoError(t, err)
		insts = append(insts, a.Instance)
	}
	f, err := os.Create(filepath.Join(out, "instances.jsonl"))
	require.NoError(t, err)
	require.NoError(t, task.WriteJSONL(f, insts))
	require.NoError(t, f.Close())

	// One entry per instance directory (its files in path order, each after a header
	// line) and one for instances.jsonl, so that a difference names the instance.
	var paths []string
	require.NoError(t, filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			paths = append(paths, p)
		}
		return err
	}))
	slices.Sort(paths)
	entries := map[string]string{}
	for _, p := range paths {
		rel, err := filepath.Rel(out, p)
		require.NoError(t, err)
		rel = filepath.ToSlash(rel)
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		top, _, _ := strings.Cut(rel, "/")
		entries[top] += "=== " + rel + "\n" + string(b)
	}
	for top, text := range entries {
		if top == "instances.jsonl" {
			continue
		}
		for _, name := range []string{artifact.InstanceFile, artifact.PatchFile, artifact.TestPatchFile, artifact.ProblemStatementFile} {
			require.Contains(t, text, "=== "+top+"/"+name+"\n")
		}
	}
	return entries
}
