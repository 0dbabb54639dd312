package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/faultline-dev/faultline/extract/artifact"
	"github.com/faultline-dev/faultline/internal/acceptance"
	"github.com/faultline-dev/faultline/internal/cli"
	"github.com/faultline-dev/faultline/internal/cli/clitest"
	"github.com/faultline-dev/faultline/task"
)

func needPytest(t *testing.T) {
	t.Helper()
	if err := exec.Command("/usr/bin/python3", "-c", "import pytest").Run(); err != nil {
		t.Skipf("featurebench: /usr/bin/python3 with pytest is not installed (apt-get install python3-pytest): %v", err)
	}
}

// readTree maps every file below dir to its contents.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	}))
	return out
}

func TestRunWritesInstances(t *testing.T) {
	needPytest(t)
	repo := filepath.Join(t.TempDir(), "shapes")
	require.NoError(t, os.CopyFS(repo, os.DirFS("../../extract/testdata/pipeline/repo")))
	ctx := context.Background()
	var outs []map[string]string
	for range 2 {
		out := t.TempDir()
		var stdout, stderr bytes.Buffer
		code := run(ctx, []string{"-repo", repo, "-out", out, "-n", "1", "-seed", "7", "-python", "/usr/bin/python3",
			"-name", "acme/shapes", "-commit", "0123456789abcdef0123456789abcdef01234567"}, &stdout, &stderr)
		require.Equal(t, 0, code, stderr.String())
		require.Contains(t, stderr.String(), "featurebench: traced tests/test_geometry.py")
		require.Contains(t, stderr.String(), "featurebench: 1 of 1 items asked; 1 instances (levels [1]) written to "+out+"; 6 test files (")
		require.Contains(t, stderr.String(), "6 test files (12 tests): 5 not tried (enough accepted), 1 accepted\n")
		require.Contains(t, stderr.String(), "tracing test files: ")
		ids := strings.Fields(stdout.String())
		require.Len(t, ids, 1)
		require.Regexp(t, `^acme__shapes\.01234567\.test_geometry\.[0-9a-f]{8}\.lv1$`, ids[0])
		tree := readTree(t, out)
		for _, f := range []string{"problem_statement.md", "patch.diff", "test_patch.diff", "instance.json"} {
			require.Contains(t, tree, ids[0]+"/"+f)
		}
		insts, err := task.ReadAllJSONL[task.SWEInstance](strings.NewReader(tree["instances.jsonl"]))
		require.NoError(t, err)
		require.Len(t, insts, 1)
		require.Equal(t, ids[0], insts[0].InstanceID)
		require.Len(t, insts[0].FailToPass, 4)
		require.NotEmpty(t, insts[0].PassToPass)
		require.Contains(t, insts[0].Patch, "def circle_area(r):")
		checkMirror(t, out)
		// -commit names the source commit (the directory is not a git checkout, so no
		// subdirectory is known); the seed is recorded.
		require.Equal(t, `"0123456789abcdef0123456789abcdef01234567"`, string(insts[0].Extra["source_commit"]))
		require.NotContains(t, insts[0].Extra, "source_subdir")
		require.Equal(t, "7", string(insts[0].Extra["seed"]))
		tool, _ := json.Marshal(cli.Version())
		require.Equal(t, string(tool), string(insts[0].Extra["tool"]), "the tool version is recorded")
		require.Contains(t, stderr.String(), "featurebench: project root "+repo+", python: ")
		outs = append(outs, tree)
	}
	require.Equal(t, outs[0], outs[1], "same seed, byte-identical instances")
}

// TestBadFlags: each bad flag is refused before any work (no test is listed or run), with
// a message naming it and exit status 2, and nothing is written.
func TestBadFlags(t *testing.T) {
	repo := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(repo, "m.py"), []byte("x = 1\n"), 0o644))
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	file := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(file, []byte("x"), 0o644))
	ok := []string{"-repo", repo, "-out", out}
	bad := filepath.Join(dir, "badcheck")
	require.NoError(t, os.MkdirAll(bad, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(bad, "instances.jsonl"), []byte("{\"instance_id\": \"a\"}\n{not json\n"), 0o644))
	empty := filepath.Join(dir, "emptycheck")
	require.NoError(t, os.MkdirAll(empty, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(empty, "instances.jsonl"), nil, 0o644))
	shardDir := t.TempDir() // a shard's output, as far as parsing looks
	require.NoError(t, os.WriteFile(filepath.Join(shardDir, ShardFile), []byte("{}\n"), 0o644))
	t.Setenv("FAULTLINE_LLM_MODEL", "")
	t.Setenv("OPENAI_MODEL", "")
	for _, c := range []struct {
		name string
		args []string
		msg  string
	}{
		{"no repo", []string{"-out", out}, "-repo DIR is required"},
		{"unknown flag", append(ok, "-bogus"), "-bogus"},
		{"positional", append(ok, "x"), `unexpected argument "x"`},
		{"missing repo", []string{"-repo", "/nonexistent/repo", "-out", out}, "-repo /nonexistent/repo"},
		{"no out", []string{"-repo", repo}, "-out: empty path"},
		{"out inside the repository", []string{"-repo", repo, "-out", filepath.Join(repo, "out")}, "inside the repository"},
		{"out under a file", []string{"-repo", repo, "-out", filepath.Join(file, "out")}, "not a directory"},
		{"out is a file", []string{"-repo", repo, "-out", file}, "is not a directory"},
		{"swe lists", append(ok, "-swe-lists", "csv"), `-swe-lists "csv"`},
		{"swe test ids", append(ok, "-swe-test-ids", "short"), `-swe-test-ids "short"`},
		{"out stdout", []string{"-repo", repo, "-out", "-"}, "-out -: the output is a directory"},
		{"level 3", append(ok, "-level", "3"), `-level "3"`},
		{"level 1,3", append(ok, "-level", "1,3"), `-level "1,3"`},
		{"level empty", append(ok, "-level", ""), `-level ""`},
		{"package dash", append(ok, "-package", "agent-code"), `-package: artifact: bad instance spec: package name "agent-code" is not a Python identifier`},
		{"package keyword", append(ok, "-package", "class"), `package name "class"`},
		{"after", append(ok, "-after", "yesterday"), `-after "yesterday"`},
		{"after month 13", append(ok, "-after", "2026-13-01"), "-after"},
		{"test timeout negative", append(ok, "-test-timeout", "-1s"), "-test-timeout -1s"},
		{"timeout zero", append(ok, "-timeout", "0s"), "-timeout 0s"},
		{"timeout negative", append(ok, "-timeout", "-1m"), "-timeout -1m0s"},
		{"n negative", append(ok, "-n", "-3"), "-n -3"},
		{"jobs negative", append(ok, "-jobs", "-1"), "-jobs -1"},
		{"name not owner/name", append(ok, "-name", "a/b/c"), `-name "a/b/c": want owner/name`},
		{"name without owner", append(ok, "-name", "smmap"), `-name "smmap": want owner/name`},
		{"name with a space", append(ok, "-name", "me/my repo"), `-name "me/my repo": want owner/name`},
		{"commit not a hash", append(ok, "-commit", "x/../y"), `-commit "x/../y": want a commit hash`},
		{"seed negative", append(ok, "-seed", "-1"), `invalid value "-1" for flag -seed`},
		{"bad env", append(ok, "-env", "NOEQUALS"), `want KEY=VALUE, got "NOEQUALS"`},
		{"python missing", append(ok, "-python", "/nonexistent/python3"), "-python /nonexistent/python3"},
		{"llm unconfigured", append(ok, "-llm"), "-llm: llm: no endpoint configured"},
		{"check with out", []string{"-check", bad, "-out", out}, "-check re-verifies existing instances: it writes nothing and takes no -out"},
		{"check with a missing repo", []string{"-check", bad, "-repo", filepath.Join(dir, "nothing")}, "-repo"},
		{"check missing", []string{"-check", filepath.Join(dir, "nothing")}, "-check: open"},
		{"check malformed line", []string{"-check", bad}, "instances.jsonl: task: jsonl line 2"},
		{"check empty", []string{"-check", empty}, "holds no instance"},
		{"shard malformed", append(ok, "-shard", "x"), `invalid value "x" for flag -shard: want i/n`},
		{"shard out of range", append(ok, "-shard", "3/3"), "shard index 3 out of range"},
		{"shard no parts", append(ok, "-shard", "0/0"), "want at least one shard"},
		{"shard with check", []string{"-check", bad, "-shard", "0/2"}, "-shard with -check"},
		{"merge without directories", []string{"-merge", "-out", out}, "-merge: name the shards' output directories"},
		{"merge with work flags", []string{"-merge", "-out", out, "-n", "3", "-seed", "2", shardDir}, "-merge takes only -out and the shards' directories, not -n, -seed"},
		{"merge with shard", []string{"-merge", "-shard", "0/2", "-out", out, shardDir}, "-merge takes only -out and the shards' directories, not -shard"},
		{"merge of a directory that is no shard's", []string{"-merge", "-out", out, repo}, repo + " is not a shard's output directory"},
		{"merge without out", []string{"-merge", shardDir}, "-out: empty path"},
		{"merge into a shard directory", []string{"-merge", "-out", filepath.Join(shardDir, "x"), shardDir}, "is an input of the merge"},
		{"directory without merge", append(ok, shardDir), "shard directories only with -merge"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), c.args, &stdout, &stderr)
			require.Equal(t, 2, code, stderr.String())
			require.Contains(t, stderr.String(), c.msg)
			require.NotContains(t, stderr.String(), "tracing")
			require.Zero(t, stdout.Len())
			ents, _ := os.ReadDir(dir)
			require.Len(t, ents, 3, "nothing is written next to the outputs")
		})
	}
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, run(context.Background(), []string{"-h"}, &stdout, &stderr))
	require.Contains(t, stderr.String(), "-repo")
	d, err := parseDate("2025-06-30")
	require.NoError(t, err)
	require.Equal(t, "2025-06-30T00:00:00Z", d.Format(time.RFC3339))
	d, err = parseDate("2025-06-30T12:00:00+02:00")
	require.NoError(t, err)
	require.Equal(t, "2025-06-30T10:00:00Z", d.UTC().Format(time.RFC3339))
	levels, err := parseLevels("2,1")
	require.NoError(t, err)
	require.Equal(t, []int{1, 2}, levels)
}

// gitRepo copies the pipeline fixture into a new git repository whose one commit is dated
// date.
func gitRepo(t *testing.T, date string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("featurebench: git is not installed")
	}
	repo := filepath.Join(t.TempDir(), "shapes")
	require.NoError(t, os.CopyFS(repo, os.DirFS("../../extract/testdata/pipeline/repo")))
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-q", "-m", "fixture"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
			"GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "git %v: %s", args, out)
	}
	return repo
}

// TestRunAfter: -after keeps only test files first committed after the date. The fixture's
// files were all committed on 2024-03-01: -after 2024-02-01 keeps them (an instance is
// written), -after 2024-04-01 excludes every one (none is written, each is reported, and
// the run exits 1: it produced nothing), and a directory that is not a git checkout is an
// error.
func TestRunAfter(t *testing.T) {
	acceptance.Skip(t, "a long end-to-end run (the whole pipeline several times)")
	needPytest(t)
	repo := gitRepo(t, "2024-03-01T12:00:00Z")
	ctx := context.Background()
	common := []string{"-repo", repo, "-n", "1", "-seed", "7", "-python", "/usr/bin/python3"}

	var stdout, stderr bytes.Buffer
	outDir := t.TempDir()
	code := run(ctx, append(common, "-out", outDir, "-after", "2024-02-01", "-test-timeout", "30s"), &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	require.Len(t, strings.Fields(stdout.String()), 1, stderr.String())
	// A git checkout: the instance records the commit and the root's place in the work tree.
	head := strings.TrimSpace(git(t, repo, "rev-parse", "HEAD"))
	insts := checkMirror(t, outDir)
	require.Equal(t, `"`+head+`"`, string(insts[0].Extra["source_commit"]))
	require.Equal(t, `"."`, string(insts[0].Extra["source_subdir"]))
	require.NotEqual(t, head, insts[0].BaseCommit, "base_commit is the masked state in the mirror")

	stdout.Reset()
	stderr.Reset()
	empty := filepath.Join(t.TempDir(), "out")
	code = run(ctx, append(common, "-out", empty, "-after", "2024-04-01"), &stdout, &stderr)
	require.Equal(t, 1, code, stderr.String())
	require.Empty(t, strings.TrimSpace(stdout.String()))
	require.Contains(t, stderr.String(), "not a fail-to-pass candidate: tests/test_geometry.py: first committed")
	require.Regexp(t, `featurebench: 0 instances: 6 test files \(\d+ tests\): 6 excluded \(first committed too early\)\n`, stderr.String())
	require.NoDirExists(t, empty, "a run that produced nothing wrote its output directory")

	plain := filepath.Join(t.TempDir(), "shapes")
	require.NoError(t, os.CopyFS(plain, os.DirFS("../../extract/testdata/pipeline/repo")))
	stderr.Reset()
	code = run(ctx, []string{"-repo", plain, "-out", t.TempDir(), "-after", "2024-02-01", "-python", "/usr/bin/python3"}, &stdout, &stderr)
	require.Equal(t, 1, code)
	require.Contains(t, stderr.String(), "not a git checkout")
	require.Contains(t, stderr.String(), "is not a git checkout: the instances record no source commit")
}

// applyPatch applies a patch file with git in dir (an empty patch changes nothing).
func applyPatch(t *testing.T, dir, patch string) {
	t.Helper()
	if patch == "" {
		return
	}
	f := filepath.Join(t.TempDir(), "p.diff")
	require.NoError(t, os.WriteFile(f, []byte(patch), 0o644))
	cmd := exec.Command("git", "apply", f)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git apply: %s", out)
}

// pytest runs the F2P tests of an instance in dir and returns whether they pass.
func pytest(t *testing.T, dir string, args ...string) (bool, string) {
	t.Helper()
	cmd := exec.Command("/usr/bin/python3", append([]string{"-m", "pytest", "-p", "no:cacheprovider", "-q"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return err == nil, string(out)
}

func TestRunLevels(t *testing.T) {
	acceptance.Skip(t, "a long end-to-end run (the whole pipeline several times)")
	needPytest(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("featurebench: git is not installed")
	}
	repo := filepath.Join(t.TempDir(), "shapes")
	require.NoError(t, os.CopyFS(repo, os.DirFS("../../extract/testdata/pipeline/repo")))
	ctx := context.Background()
	var lv2 []map[string]string
	for _, levels := range []string{"1,2", "2"} {
		out := t.TempDir()
		var stdout, stderr bytes.Buffer
		code := run(ctx, []string{"-repo", repo, "-out", out, "-n", "1", "-seed", "7", "-python", "/usr/bin/python3", "-level", levels,
			"-name", "acme/shapes", "-commit", "0123456789abcdef0123456789abcdef01234567"}, &stdout, &stderr)
		require.Equal(t, 0, code, stderr.String())
		ids := strings.Fields(stdout.String())
		tree := readTree(t, out)
		insts, err := task.ReadAllJSONL[task.SWEInstance](strings.NewReader(tree["instances.jsonl"]))
		require.NoError(t, err)
		if levels == "1,2" {
			require.Len(t, ids, 2, "both levels of the accepted item")
			require.Regexp(t, `^acme__shapes\.01234567\.test_geometry\.[0-9a-f]{8}\.lv1$`, ids[0])
			require.Equal(t, strings.TrimSuffix(ids[0], "1")+"2", ids[1])
			require.NotContains(t, tree, ids[0]+"/env_patch.diff")
			require.Len(t, insts, 2)
			require.Equal(t, insts[0].FailToPass, insts[1].FailToPass, "the test file stays at tests/: same ids")
			ids, insts = ids[1:], insts[1:]
		}
		require.Len(t, ids, 1)
		require.Len(t, insts, 1)
		l2 := insts[0]
		require.Equal(t, ids[0], l2.InstanceID)
		require.True(t, strings.HasSuffix(l2.InstanceID, ".lv2"))
		require.Len(t, l2.FailToPass, 4)
		require.Empty(t, l2.PassToPass)
		require.Contains(t, l2.Patch, "+++ b/agent_code/geometry.py\n")
		require.Contains(t, l2.TestPatch, "+from agent_code import geometry\n")
		require.Contains(t, l2.ProblemStatement, "from scratch as the package `agent_code`")

		// Rebuild the Level 2 instance from its files alone: an empty directory, the
		// environment and test patches (the tests fail), then the gold patch (they pass).
		dir := t.TempDir()
		applyPatch(t, dir, tree[ids[0]+"/env_patch.diff"])
		applyPatch(t, dir, tree[ids[0]+"/test_patch.diff"])
		ok, log := pytest(t, dir, "tests/test_geometry.py")
		require.False(t, ok, log)
		applyPatch(t, dir, tree[ids[0]+"/patch.diff"])
		ok, log = pytest(t, dir, "tests/test_geometry.py")
		require.True(t, ok, log)
		require.Contains(t, log, "4 passed")

		if levels == "1,2" {
			// -check re-verifies the Level 2 instance from instances.jsonl alone; a broken
			// gold patch is reported with the reason.
			var cout, cerr bytes.Buffer
			require.Equal(t, 0, run(ctx, []string{"-check", out, "-python", "/usr/bin/python3"}, &cout, &cerr), cerr.String())
			require.Equal(t, ids[0]+" ok\n", cout.String())
			require.Contains(t, cerr.String(), "skipped "+strings.TrimSuffix(ids[0], "2")+"1")
			broken := l2
			broken.Patch = strings.ReplaceAll(broken.Patch, "+    return ", "+    return None  # ")
			bad := t.TempDir()
			var buf bytes.Buffer
			require.NoError(t, task.WriteJSONL(&buf, []task.SWEInstance{broken}))
			require.NoError(t, os.WriteFile(filepath.Join(bad, "instances.jsonl"), buf.Bytes(), 0o644))
			cout.Reset()
			require.Equal(t, 1, run(ctx, []string{"-check", bad, "-python", "/usr/bin/python3"}, &cout, &cerr))
			require.Contains(t, cout.String(), ids[0]+" rejected: level 2: gold F2P tests/test_geometry.py does not pass")
		}

		one := map[string]string{}
		for p, data := range tree {
			if strings.HasPrefix(p, ids[0]+"/") {
				one[p] = data
			}
		}
		require.Len(t, one, 5)
		checkMirror(t, out)
		lv2 = append(lv2, one)
	}
	require.Equal(t, lv2[0], lv2[1], "same seed, byte-identical Level 2 instance")
}

// TestSignals: the built program, interrupted while tracing, stops its runs, removes its
// private copies and exits 130 (SIGINT) or 143 (SIGTERM) without writing its output; TMPDIR
// is empty and the repository unchanged. A normal end leaves TMPDIR empty too.
func TestSignals(t *testing.T) {
	acceptance.Skip(t, "a long end-to-end run (the whole pipeline several times)")
	if testing.Short() {
		t.Skip("builds the program and runs pytest")
	}
	needPytest(t)
	bin := clitest.Build(t, ".")
	repo := filepath.Join(t.TempDir(), "shapes")
	require.NoError(t, os.CopyFS(repo, os.DirFS("../../extract/testdata/pipeline/repo")))
	out := filepath.Join(t.TempDir(), "out")
	args := []string{"-repo", repo, "-out", out, "-n", "1", "-seed", "7", "-python", "/usr/bin/python3", "-jobs", "1"}
	clitest.Interrupt(t, bin, args, nil, "tracing test files: 1/", syscall.SIGINT, repo)
	clitest.Interrupt(t, bin, args, nil, "building instances", syscall.SIGTERM, repo)
	require.NoDirExists(t, out, "an interrupted run wrote its output")
	stdout, _ := clitest.Finish(t, bin, args, nil, 0)
	require.Len(t, strings.Fields(stdout), 1)
	require.FileExists(t, filepath.Join(out, "instances.jsonl"))
}

// git runs git in dir and returns its output.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %v: %s", args, out)
	return string(out)
}

// checkMirror clones out/mirror.git and checks, for every instance, that its base_commit is
// there and that its patches apply at it: at Level 1 patch.diff and test_patch.diff, at
// Level 2 env_patch.diff, then test_patch.diff and patch.diff on top. It returns the
// instances.
func checkMirror(t *testing.T, out string) []task.SWEInstance {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(out, "instances.jsonl"))
	require.NoError(t, err)
	insts, err := task.ReadAllJSONL[task.SWEInstance](bytes.NewReader(data))
	require.NoError(t, err)
	require.NotEmpty(t, insts)
	clone := filepath.Join(t.TempDir(), "clone")
	git(t, filepath.Dir(clone), "clone", "-q", filepath.Join(out, MirrorDir), clone)
	for _, inst := range insts {
		require.Regexp(t, `^[0-9a-f]{40}$`, inst.BaseCommit, inst.InstanceID)
		git(t, clone, "checkout", "-q", "--detach", inst.BaseCommit)
		git(t, clone, "clean", "-qfdx")
		dir := filepath.Join(out, inst.InstanceID)
		patches := []string{"patch.diff", "test_patch.diff"}
		if strings.HasSuffix(inst.InstanceID, ".lv2") {
			require.Empty(t, strings.TrimSpace(git(t, clone, "ls-files")), "a Level 2 instance starts from an empty tree")
			if env, err := os.ReadFile(filepath.Join(dir, "env_patch.diff")); err != nil || len(env) > 0 {
				git(t, clone, "apply", filepath.Join(dir, "env_patch.diff")) // empty when the starting tree is
			}
			patches = []string{"test_patch.diff", "patch.diff"}
		}
		for _, p := range patches {
			git(t, clone, "apply", "--check", filepath.Join(dir, p))
		}
		// The masked tree really lacks what the patch adds: the patch does not apply in reverse.
		cmd := exec.Command("git", "apply", "--check", "--reverse", filepath.Join(dir, "patch.diff"))
		cmd.Dir = clone
		require.Error(t, cmd.Run(), "%s: the gold patch is already applied at base_commit", inst.InstanceID)
	}
	return insts
}

// TestRunPackageDir points -repo at a Python package directory (the package holds its tests,
// as Debian's python3-* packages do): the project root is its parent, the package is staged
// in a private copy at its import path, and the instance is traced, masked and verified on
// that copy — verification only accepts an item whose F2P tests fail on the mask, so the
// tests imported the masked copy. Paths are relative to the project root and the patches
// apply at base_commit in the mirror.
func TestRunPackageDir(t *testing.T) {
	needPytest(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("featurebench: git is not installed")
	}
	parent := t.TempDir()
	pkg := filepath.Join(parent, "pkg")
	require.NoError(t, os.CopyFS(pkg, os.DirFS("../../extract/testdata/pipeline/repo/pkg")))
	require.NoError(t, os.CopyFS(filepath.Join(pkg, "tests"), os.DirFS("../../extract/testdata/pipeline/repo/tests")))
	before := readTree(t, parent)
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"-repo", pkg, "-out", out, "-n", "5", "-seed", "7", "-python", "/usr/bin/python3"}, &stdout, &stderr)
	// Fewer items than asked is not success: the instances made are written, the exit status is 1.
	require.Equal(t, 1, code, stderr.String())
	require.Contains(t, stderr.String(), "featurebench: project root "+parent+" (target pkg), python: ")
	insts := checkMirror(t, out)
	// Fewer than asked: the summary says so, and accounts for the six test files.
	require.Less(t, len(insts), 5)
	require.Contains(t, stderr.String(), fmt.Sprintf("featurebench: %d of 5 items asked: the fail-to-pass candidates ran out; ", len(insts)))
	require.True(t, strings.HasSuffix(stderr.String(), fmt.Sprintf("featurebench: %d of 5 items asked: the fail-to-pass candidates ran out\n", len(insts))), stderr.String())
	require.Regexp(t, `; 6 test files \(12 tests\): \d accepted, `, stderr.String())
	require.Regexp(t, `^local__pkg\.[0-9a-f]{8}\.test_geometry\.[0-9a-f]{8}\.lv1$`, insts[0].InstanceID)
	require.Contains(t, insts[0].Patch, "+++ b/pkg/geometry.py\n")
	require.Contains(t, insts[0].TestPatch, "+++ b/pkg/tests/test_geometry.py\n")
	for _, id := range insts[0].FailToPass {
		require.True(t, strings.HasPrefix(id, "pkg/tests/test_geometry.py::"), id)
	}
	require.Equal(t, before, readTree(t, parent), "the package directory is only read")
}

// TestRefusesUnready: a project sandbox.Check finds unusable is refused before any tracing,
// with the problem and its fix as examples/doctor words them, exit status 1 and nothing
// written.
func TestRefusesUnready(t *testing.T) {
	needPytest(t)
	repo := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(repo, "m.py"), []byte("x = 1\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(repo, "pytest.ini"), []byte("[pytest]\n"), 0o644))
	out := filepath.Join(t.TempDir(), "out")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"-repo", repo, "-out", out, "-python", "/usr/bin/python3"}, &stdout, &stderr)
	require.Equal(t, 1, code, stderr.String())
	require.Contains(t, stderr.String(), "is not ready:\n  - no tests were found — point at a project that has tests")
	require.NotContains(t, stderr.String(), "tracing")
	require.Zero(t, stdout.Len())
	require.NoDirExists(t, out)
}

// TestWriteOutLists: -swe-lists string writes instances.jsonl's test lists as the Hugging
// Face dataset's JSON-encoded strings (instance.json keeps arrays); both read back alike.
func TestWriteOutLists(t *testing.T) {
	art := &artifact.Artifacts{Instance: task.SWEInstance{Repo: "acme/shapes", InstanceID: "acme__shapes.1.lv1",
		FailToPass: task.TestList{"tests/test_a.py::test_x"}, PassToPass: task.TestList{"tests/test_b.py::test_y"}},
		ProblemStatement: "do it", Patch: []byte("p"), TestPatch: []byte("t")}
	for _, lists := range []string{"json", "string"} {
		out := filepath.Join(t.TempDir(), "out")
		require.NoError(t, writeOut(out, []*artifact.Artifacts{art}, lists, nil))
		data, err := os.ReadFile(filepath.Join(out, "instances.jsonl"))
		require.NoError(t, err)
		var raw map[string]any
		require.NoError(t, json.Unmarshal(data, &raw))
		if lists == "string" {
			require.Equal(t, `["tests/test_a.py::test_x"]`, raw["FAIL_TO_PASS"])
		} else {
			require.Equal(t, []any{"tests/test_a.py::test_x"}, raw["FAIL_TO_PASS"])
		}
		insts, err := task.ReadAllJSONL[task.SWEInstance](bytes.NewReader(data))
		require.NoError(t, err)
		require.Equal(t, art.Instance.FailToPass, insts[0].FailToPass)
		require.Equal(t, art.Instance.PassToPass, insts[0].PassToPass)
	}
}

// TestDefaultName: without -name the instances are named for the git remote origin, else for
// the directory given as -repo, made safe for ids and mirror refs. A module-cache style
// directory (name@version) once failed at the very end, when the mirror refused its refs.
func TestDefaultName(t *testing.T) {
	needPytest(t)
	repo := filepath.Join(t.TempDir(), "shapes@v1.2.0")
	require.NoError(t, os.CopyFS(repo, os.DirFS("../../extract/testdata/pipeline/repo")))
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"-repo", repo, "-out", out, "-n", "1", "-seed", "7", "-python", "/usr/bin/python3",
		"-commit", "0123456789abcdef0123456789abcdef01234567"}, &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	ids := strings.Fields(stdout.String())
	require.Len(t, ids, 1)
	require.Regexp(t, `^local__shapes_v1\.2\.0\.01234567\.test_geometry\.[0-9a-f]{8}\.lv1$`, ids[0])
	checkMirror(t, out)

	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("featurebench: git is not installed (the remote's name is not checked)")
	}
	ctx := context.Background()
	gitDir := filepath.Join(t.TempDir(), "checkout")
	require.NoError(t, os.MkdirAll(gitDir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(gitDir, "README"), []byte("shapes\n"), 0o644))
	for _, args := range [][]string{{"init", "-q"}, {"add", "README"}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "base"},
		{"remote", "add", "origin", "git@github.com:acme-lab/geo.shapes.git"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = gitDir
		b, err := cmd.CombinedOutput()
		require.NoError(t, err, string(b))
	}
	require.Equal(t, "acme-lab/geo.shapes", defaultName(ctx, gitDir, "", gitDir))
	require.Equal(t, "local/x.hidden_dir", defaultName(ctx, t.TempDir(), "", "/tmp/.hidden dir"))
}

// TestCheckLevel1: -check -repo re-verifies Level 1 instances in the repository they were
// made from (ok), without writing it; a repository whose P2P file gained a failing test, or
// a passing one, or whose F2P test file differs, rejects them with the reason; without
// -repo they are skipped and nothing is checked (exit 1).
func TestCheckLevel1(t *testing.T) {
	needPytest(t)
	repo := filepath.Join(t.TempDir(), "shapes")
	require.NoError(t, os.CopyFS(repo, os.DirFS("../../extract/testdata/pipeline/repo")))
	ctx := context.Background()
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, run(ctx, []string{"-repo", repo, "-out", out, "-n", "1", "-seed", "7", "-python", "/usr/bin/python3",
		"-name", "acme/shapes", "-cache", "off"}, &stdout, &stderr), stderr.String())
	id := strings.TrimSpace(stdout.String())
	insts, err := task.ReadAllJSONL[task.SWEInstance](strings.NewReader(readTree(t, out)["instances.jsonl"]))
	require.NoError(t, err)
	require.Len(t, insts, 1)
	var p2pFile string
	for _, tid := range insts[0].PassToPass {
		p2pFile, _, _ = strings.Cut(tid, "::")
		break
	}
	require.NotEmpty(t, p2pFile)
	before := readTree(t, repo)

	check := func(root string) (int, string, string) {
		var cout, cerr bytes.Buffer
		args := []string{"-check", out, "-python", "/usr/bin/python3"}
		if root != "" {
			args = append(args, "-repo", root)
		}
		code := run(ctx, args, &cout, &cerr)
		return code, cout.String(), cerr.String()
	}
	code, cout, cerr := check(repo)
	require.Equal(t, 0, code, cerr)
	require.Equal(t, id+" ok\n", cout)
	require.Contains(t, cerr, "-check: 1 Level 1 and 0 Level 2 instances checked, 0 skipped")
	require.Equal(t, before, readTree(t, repo), "-check wrote to the repository")

	code, cout, cerr = check("")
	require.Equal(t, 1, code)
	require.Empty(t, cout)
	require.Contains(t, cerr, "skipped "+id+": a Level 1 instance is checked in its repository: give it as -repo")

	tampered := func(edit func(dir string)) string {
		dir := filepath.Join(t.TempDir(), "shapes")
		require.NoError(t, os.CopyFS(dir, os.DirFS(repo)))
		edit(dir)
		return dir
	}
	appendTo := func(dir, file, text string) {
		f, err := os.OpenFile(filepath.Join(dir, file), os.O_APPEND|os.O_WRONLY, 0)
		require.NoError(t, err)
		_, err = f.WriteString(text)
		require.NoError(t, err)
		require.NoError(t, f.Close())
	}
	for _, c := range []struct {
		name, text, want string
	}{
		{"a failing P2P test", "\n\ndef test_tampered():\n    assert 1 == 2\n", "rejected: masked P2P " + p2pFile + " does not pass: 1 failing"},
		{"a new passing P2P test", "\n\ndef test_tampered():\n    assert 1 == 1\n", "rejected: PASS_TO_PASS differs from the passing P2P tests: "},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, cout, _ := check(tampered(func(dir string) { appendTo(dir, p2pFile, c.text) }))
			require.Equal(t, 1, code)
			require.Contains(t, cout, id+" "+c.want)
		})
	}
	t.Run("another F2P test file", func(t *testing.T) {
		code, cout, _ := check(tampered(func(dir string) { appendTo(dir, "tests/test_geometry.py", "\n# changed\n") }))
		require.Equal(t, 1, code)
		require.Contains(t, cout, id+" rejected: the repository is not the one the instance was made from: its tests/test_geometry.py is not the test patch's")
	})
	t.Run("another repository", func(t *testing.T) {
		code, cout, _ := check(tampered(func(dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "pkg", "geometry.py"), []byte("\"\"\"Gone.\"\"\"\n"), 0o644))
		}))
		require.Equal(t, 1, code)
		require.Contains(t, cout, id+" rejected: the repository is not the one the instance was made from: its patch does not reverse there")
	})
}
