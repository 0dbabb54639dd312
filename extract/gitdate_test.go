package extract

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/faultline-dev/faultline/sandbox"
)

// gitRepo is a throwaway git repository whose commits carry set dates.
type gitRepo struct {
	t   *testing.T
	dir string
	// author, when set, is the author date of the next commits (else the committer date).
	author time.Time
}

func newGitRepo(t *testing.T, dir string) *gitRepo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("extract: git is not installed")
	}
	g := &gitRepo{t: t, dir: dir}
	g.git(time.Time{}, "init", "-q")
	return g
}

func (g *gitRepo) git(date time.Time, args ...string) {
	g.t.Helper()
	cmd := exec.Command("git", append([]string{"-C", g.dir, "-c", "user.name=faultline", "-c", "user.email=faultline@example.com",
		"-c", "commit.gpgsign=false"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	if !date.IsZero() {
		a := date
		if !g.author.IsZero() {
			a = g.author
		}
		cmd.Env = append(cmd.Env, "GIT_COMMITTER_DATE="+date.Format(time.RFC3339), "GIT_AUTHOR_DATE="+a.Format(time.RFC3339))
	}
	out, err := cmd.CombinedOutput()
	require.NoError(g.t, err, string(out))
}

// commit writes files (path → content; "" deletes) and commits them at date.
func (g *gitRepo) commit(date time.Time, files map[string]string) {
	g.t.Helper()
	for f, body := range files {
		p := filepath.Join(g.dir, filepath.FromSlash(f))
		if body == "" {
			require.NoError(g.t, os.Remove(p))
			continue
		}
		require.NoError(g.t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(g.t, os.WriteFile(p, []byte(body), 0o644))
	}
	g.git(date, "add", "-A")
	g.git(date, "commit", "-q", "--allow-empty", "-m", "c")
}

func day(s string) time.Time {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return d
}

func TestFirstCommitted(t *testing.T) {
	top := t.TempDir()
	g := newGitRepo(t, top)
	g.commit(day("2020-01-01"), map[string]string{"sub/tests/test_a.py": "a\n", "other/test_x.py": "x\n"})
	// The author date is not the committer date: only the committer's counts.
	g.author = day("2019-01-01")
	g.commit(day("2021-06-01"), map[string]string{"sub/tests/test_b c.py": "b\n"})
	g.author = time.Time{}
	// Deleted and added again: the first addition counts.
	g.commit(day("2022-01-01"), map[string]string{"sub/tests/test_a.py": ""})
	g.commit(day("2023-01-01"), map[string]string{"sub/tests/test_a.py": "a2\n", "sub/tests/test_ä.py": "u\n"})
	require.NoError(t, os.WriteFile(filepath.Join(top, "sub/tests/test_new.py"), []byte("n\n"), 0o644))

	// root is a subdirectory of the checkout: paths are relative to it.
	root := filepath.Join(top, "sub")
	hasher := sandbox.NewTreeHasher()
	before, err := hasher.Hash(top, nil)
	require.NoError(t, err)
	got, err := FirstCommitted(context.Background(), root,
		[]string{"tests/test_a.py", "tests/test_b c.py", "tests/test_ä.py", "tests/test_new.py", "other/test_x.py"})
	require.NoError(t, err)
	want := map[string]string{
		"tests/test_a.py":   "2020-01-01T00:00:00Z",
		"tests/test_b c.py": "2021-06-01T00:00:00Z",
		"tests/test_ä.py":   "2023-01-01T00:00:00Z",
	}
	gotS := map[string]string{}
	for f, d := range got {
		gotS[f] = d.UTC().Format(time.RFC3339)
	}
	require.Equal(t, want, gotS)
	after, err := hasher.Hash(top, nil)
	require.NoError(t, err)
	require.Equal(t, before, after, "git wrote to the repository")

	// Not a checkout: a clear error naming the root.
	plain := t.TempDir()
	_, err = FirstCommitted(context.Background(), plain, []string{"t.py"})
	require.ErrorIs(t, err, ErrNotGitCheckout)
	require.Contains(t, err.Error(), plain)
}

// TestPipelineCommittedAfter: the date filter keeps the test files first committed after
// the date as F2P candidates and says why the others are not; without a git checkout the
// filter is an error before any test runs.
func TestPipelineCommittedAfter(t *testing.T) {
	t.Parallel()
	py := pythonWithPytest(t)
	root := fixtureCopy(t, "timeout/py")
	slow, err := os.ReadFile(filepath.Join(root, "tests/test_slow.py"))
	require.NoError(t, err)
	require.NoError(t, os.Remove(filepath.Join(root, "tests/test_slow.py")))
	r := sandbox.NewLocal(sandbox.Options{WorkDir: t.TempDir(), Python: py})
	defer r.Close()

	_, err = Pipeline(context.Background(), r, root, Options{CommittedAfter: day("2021-01-01")})
	require.ErrorIs(t, err, ErrNotGitCheckout)

	g := newGitRepo(t, root)
	g.commit(day("2020-01-01"), nil) // everything but test_slow.py
	g.commit(day("2022-01-01"), map[string]string{"tests/test_slow.py": string(slow)})
	res, err := Pipeline(context.Background(), r, root, Options{CommittedAfter: day("2021-01-01"), TestTimeout: time.Second})
	require.NoError(t, err)
	require.Equal(t, []Exclusion{{File: "tests/test_calc.py", Reason: "first committed 2020-01-01T00:00:00Z, not after 2021-01-01T00:00:00Z",
		Cause: "first committed too early"}}, res.Excluded)
	require.Len(t, res.Items, 1)
	require.Equal(t, "tests/test_slow.py", res.Items[0].TestFile)
	require.Contains(t, res.Items[0].Reason, "over the per-test time limit")
}
