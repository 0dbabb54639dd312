package repo

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/task"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWriteMirror writes the embedded sample module and two task states into a mirror, clones
// it fresh, checks that each task's gold patch applies at its commit with `git apply --check`
// and restores the base tree, that the user's tree is untouched, and that a second mirror of
// the same inputs has the same commit ids.
func TestWriteMirror(t *testing.T) {
	needGit(t)
	ctx := context.Background()
	root := filepath.Join("..", "..", "examples", "sample")
	abs, err := filepath.Abs(root)
	require.NoError(t, err)
	before := treeDigest(t, abs)

	orig, err := os.ReadFile(filepath.Join(abs, "ledger", "money.go"))
	require.NoError(t, err)
	corrupted := strings.Replace(string(orig), "return", "return // corrupted\n\treturn", 1)
	tasks := []MirrorTask{
		{Name: "example.com__ledger.money-1", Changes: task.Overlay{"ledger/money.go": {Data: []byte(corrupted)}}},
		{Name: "drop-readme", Changes: task.Overlay{"README.md": {Delete: true}, "ledger/new.go": {Data: []byte("package ledger\n")}}},
	}
	dir := filepath.Join(t.TempDir(), "mirror.git")
	m, err := WriteMirror(ctx, dir, abs, tasks, MirrorOptions{})
	require.NoError(t, err)
	require.Len(t, m.Tasks, 2)
	assert.Len(t, m.Base, 40)
	assert.Equal(t, before, treeDigest(t, abs), "the user's tree is only read")

	// A second mirror elsewhere: the same ids.
	m2, err := WriteMirror(ctx, filepath.Join(t.TempDir(), "again.git"), abs, tasks, MirrorOptions{})
	require.NoError(t, err)
	assert.Equal(t, m.Base, m2.Base)
	assert.Equal(t, m.Tasks, m2.Tasks)

	clone := filepath.Join(t.TempDir(), "clone")
	out, err := exec.Command("git", "clone", "-q", dir, clone).CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.NotContains(t, string(out), "nonexistent ref", "the mirror's HEAD names its base branch")
	assert.Equal(t, m.Base, gitRun(t, clone, "rev-parse", "HEAD"), "a clone checks out the base")
	for _, tk := range tasks {
		commit := m.Tasks[tk.Name]
		gitRun(t, clone, "checkout", "-q", "task/"+tk.Name)
		assert.Equal(t, commit, gitRun(t, clone, "rev-parse", "HEAD"))
		assert.Equal(t, commit, gitRun(t, clone, "rev-parse", "task/"+tk.Name+"^{commit}"), "the tag names the same commit")
		assert.Equal(t, m.Base, gitRun(t, clone, "rev-parse", "HEAD^"))
		// The gold patch is the diff from the task state back to the base.
		patch := gitRun(t, clone, "diff", "--binary", "HEAD", m.Base)
		require.NotEmpty(t, patch)
		p := filepath.Join(t.TempDir(), "gold.diff")
		require.NoError(t, os.WriteFile(p, []byte(patch+"\n"), 0o644))
		gitRun(t, clone, "apply", "--check", p)
		gitRun(t, clone, "apply", p)
		gitRun(t, clone, "add", "-A")
		assert.Empty(t, gitRun(t, clone, "diff", "--cached", m.Base), "gold patch restores the base")
		gitRun(t, clone, "reset", "-q", "--hard")
	}
	gitRun(t, clone, "checkout", "-q", "base")
	assert.Equal(t, m.Base, gitRun(t, clone, "rev-parse", "HEAD"))
	data, err := os.ReadFile(filepath.Join(clone, "ledger", "money.go"))
	require.NoError(t, err)
	assert.Equal(t, string(orig), string(data))

	// Rewriting the mirror (same base, fewer tasks) keeps working.
	m3, err := WriteMirror(ctx, dir, abs, tasks[:1], MirrorOptions{})
	require.NoError(t, err)
	assert.Equal(t, m.Tasks[tasks[0].Name], m3.Tasks[tasks[0].Name])
}

func TestWriteMirrorRefusals(t *testing.T) {
	needGit(t)
	ctx := context.Background()
	src := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(src, "a.txt"), []byte("a\n"), 0o644))
	dir := filepath.Join(t.TempDir(), "m.git")
	for _, tasks := range [][]MirrorTask{
		{{Name: "bad name"}},
		{{Name: "../escape"}},
		{{Name: "x"}, {Name: "x"}},
		{{Name: "ok", Changes: task.Overlay{"../out": {Data: []byte("x")}}}},
	} {
		_, err := WriteMirror(ctx, dir, src, tasks, MirrorOptions{})
		assert.Error(t, err)
		assert.NoDirExists(t, dir, "nothing is written for a refused request")
	}
	notRepo := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(notRepo, "file"), nil, 0o644))
	_, err := WriteMirror(ctx, notRepo, src, nil, MirrorOptions{})
	assert.ErrorContains(t, err, "not a bare git repository")
}

// treeDigest lists every file with its contents' length and mode.
func treeDigest(t *testing.T, root string) string {
	var b strings.Builder
	require.NoError(t, filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		data := []byte{}
		if info.Mode().IsRegular() {
			data, err = os.ReadFile(p)
			if err != nil {
				return err
			}
		}
		b.WriteString(p + " " + info.Mode().String() + " " + string(data) + "\n")
		return nil
	}))
	return b.String()
}
