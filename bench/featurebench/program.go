package featurebench

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/faultline-dev/faultline/bench/internal/twice"
	"github.com/faultline-dev/faultline/task"
)

// ProgramAccepted is how many instances ProgramDeterminism asks the program for.
const ProgramAccepted = 1

// ProgramDeterminism runs the featurebench program (Level 1 and 2) twice with seed Seed on
// the subject prepare returns, with twice.Twice — another TMPDIR, another copy at another
// path, another working directory, another -jobs — and requires byte-identical output
// directories (instance directories and instances.jsonl). It runs when
// FAULTLINE_ACCEPTANCE is set.
func ProgramDeterminism(t *testing.T, prepare func(*testing.T) Subject) {
	twice.Skip(t)
	s := prepare(t)
	bin := twice.Build(t, "github.com/faultline-dev/faultline/examples/featurebench")
	var extra []string
	for _, e := range s.Env {
		extra = append(extra, "-env", e)
	}
	if s.Dir != "" {
		extra = append(extra, "-python", Python)
	}
	out, stderr := twice.Twice(t, bin, s.Src, s.Dir, nil, func(r twice.Run) []string {
		return append([]string{"-repo", r.Repo, "-out", r.Out, "-n", strconv.Itoa(ProgramAccepted), "-seed", strconv.Itoa(Seed), "-jobs", r.Jobs,
			"-name", s.Name, "-level", "1,2"}, extra...)
	})
	if n := strings.Count(string(out["instances.jsonl"]), "\n"); n == 0 {
		t.Errorf("no instance written:\n%s", stderr)
	}
}

// PackageDirDeterminism runs the featurebench program twice on a Debian package pointed at
// as a package directory (-repo ROOT/<pkg>, the way it sits in dist-packages: the program
// finds the project root, stages the package and tests the copy), with twice.Twice —
// another TMPDIR, another copy at another path, another -jobs — asking for asked Level 1
// instances. It requires byte-identical output directories (instances.jsonl, the instance
// directories and mirror.git), at least one instance, every instance's patch and test
// patch to apply at its base_commit in a clone of the mirror, and a summary that says how
// many of those asked were made. It runs when FAULTLINE_ACCEPTANCE is set.
func PackageDirDeterminism(t *testing.T, pkg string, asked int) {
	twice.Skip(t)
	s := Debian(t, pkg)
	bin := twice.Build(t, "github.com/faultline-dev/faultline/examples/featurebench")
	out, stderr := twice.Twice(t, bin, s.Src, s.Dir, nil, func(r twice.Run) []string {
		return []string{"-repo", filepath.Join(r.Repo, s.Dir), "-out", r.Out, "-n", strconv.Itoa(asked), "-seed", strconv.Itoa(Seed),
			"-jobs", r.Jobs, "-python", Python}
	})
	insts, err := task.ReadAllJSONL[task.SWEInstance](bytes.NewReader(out["instances.jsonl"]))
	require.NoError(t, err)
	require.NotEmpty(t, insts, "no instance written:\n%s", stderr)
	require.Contains(t, stderr, fmt.Sprintf("featurebench: %d of %d items asked", len(insts), asked))
	require.Contains(t, stderr, "(target "+pkg+")", "the project root is said")

	// Write the first run's mirror back out and check every instance at its base_commit.
	dir := t.TempDir()
	for p, data := range out {
		if rest, ok := strings.CutPrefix(p, "mirror.git/"); ok {
			f := filepath.Join(dir, "mirror.git", filepath.FromSlash(rest))
			require.NoError(t, os.MkdirAll(filepath.Dir(f), 0o755))
			require.NoError(t, os.WriteFile(f, data, 0o644))
		}
	}
	clone := filepath.Join(dir, "clone")
	git := func(d string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = d
		b, err := cmd.CombinedOutput()
		require.NoError(t, err, "git %v: %s", args, b)
	}
	git(dir, "clone", "-q", filepath.Join(dir, "mirror.git"), clone)
	for _, inst := range insts {
		require.True(t, strings.HasPrefix(inst.FailToPass[0], pkg+"/"), "paths are relative to the project root: %s", inst.FailToPass[0])
		git(clone, "checkout", "-q", "--detach", inst.BaseCommit)
		for _, name := range []string{"patch.diff", "test_patch.diff"} {
			f := filepath.Join(dir, inst.InstanceID+"-"+name)
			require.NoError(t, os.WriteFile(f, out[inst.InstanceID+"/"+name], 0o644))
			git(clone, "apply", "--check", f)
		}
	}
	t.Logf("%d of %d instances, byte-identical; patches apply at base_commit", len(insts), asked)
}
