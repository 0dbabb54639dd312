package main

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

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
		require.Contains(t, stderr.String(), "1 instances written")
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
		outs = append(outs, tree)
	}
	require.Equal(t, outs[0], outs[1], "same seed, byte-identical instances")
}

func TestRunUsage(t *testing.T) {
	var stdout, stderr bytes.Buffer
	require.Equal(t, 2, run(context.Background(), []string{"-repo", "x"}, &stdout, &stderr))
	require.Contains(t, stderr.String(), "-repo and -out are required")
	require.Equal(t, 2, run(context.Background(), []string{"-bogus"}, &stdout, &stderr))
	dir := t.TempDir()
	stderr.Reset()
	require.Equal(t, 1, run(context.Background(), []string{"-repo", dir, "-out", filepath.Join(dir, "out")}, &stdout, &stderr))
	require.Contains(t, stderr.String(), "inside the repository")
}
