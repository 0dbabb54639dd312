package artifact

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/faultline-dev/faultline/internal/fstree"

	"github.com/stretchr/testify/require"

	"github.com/faultline-dev/faultline/extract/mask"
	"github.com/faultline-dev/faultline/task"
	"github.com/faultline-dev/faultline/task/llm"
)

var update = flag.Bool("update", false, "rewrite the golden instance directories")

const fixture = "testdata/repo"

// fixtureSpec masks add, scale and Accumulator.push in the fixture and describes the
// instance whose F2P file is tests/test_ops.py.
func fixtureSpec(t *testing.T, level int) Spec {
	t.Helper()
	targets := []mask.Target{
		{File: "calc/ops.py", Name: "add"},
		{File: "calc/ops.py", Name: "scale"},
		{File: "calc/ops.py", Name: "Accumulator.push"},
		{File: "calc/ops.py", Name: "Accumulator.zero"},
	}
	res, err := mask.Mask(context.Background(), fixture, targets, mask.Options{})
	require.NoError(t, err)
	require.Len(t, res.Removed, 4)
	pkg := ""
	if level == 2 {
		pkg = "agent_code"
	}
	return Spec{
		Package:    pkg,
		Root:       fixture,
		Repo:       "faultline-dev/calc",
		BaseCommit: "0123456789abcdef0123456789abcdef01234567",
		Level:      level,
		TestFile:   "tests/test_ops.py",
		Masked:     res.Overlay,
		Objects: []mask.Target{
			{File: "calc/ops.py", Name: "add"},
			{File: "calc/ops.py", Name: "Accumulator"},
			{File: "calc/ops.py", Name: "Accumulator.zero"},
		},
		Functions:     len(res.Removed),
		FailToPass:    []string{"tests/test_ops.py::test_push", "tests/test_ops.py::test_add"},
		PassToPass:    []string{"tests/test_other.py::test_nothing"},
		ImageName:     "faultline/calc:latest",
		RepoSettings:  json.RawMessage(`{"python": "3.11",  "install": "pip install -e ."}`),
		ForbiddenURLs: []string{"https://pypi.org/project/calc", "https://github.com/faultline-dev/calc"},
	}
}

func readDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		out[e.Name()] = string(b)
	}
	return out
}

func TestGoldenInstanceDirs(t *testing.T) {
	for _, level := range []int{1, 2} {
		a, err := Build(context.Background(), fixtureSpec(t, level), Options{})
		require.NoError(t, err)
		tmp := t.TempDir()
		dir, err := a.WriteDir(tmp)
		require.NoError(t, err)
		got := readDir(t, dir)
		require.Len(t, got, 3+level, "Level 2 adds env_patch.diff")
		golden := filepath.Join("testdata", "golden", a.Instance.InstanceID)
		if *update {
			require.NoError(t, os.RemoveAll(golden))
			_, err := a.WriteDir(filepath.Join("testdata", "golden"))
			require.NoError(t, err)
		}
		require.Equal(t, readDir(t, golden), got, "run with -update to refresh %s", golden)

		// Deterministic: a second build gives the same bytes.
		b, err := Build(context.Background(), fixtureSpec(t, level), Options{})
		require.NoError(t, err)
		dir2, err := b.WriteDir(t.TempDir())
		require.NoError(t, err)
		require.Equal(t, got, readDir(t, dir2))
	}
}

func TestInstanceID(t *testing.T) {
	re := regexp.MustCompile(`^faultline-dev__calc\.01234567\.test_ops\.[0-9a-f]{8}\.lv[12]$`)
	for _, level := range []int{1, 2} {
		a, err := Build(context.Background(), fixtureSpec(t, level), Options{})
		require.NoError(t, err)
		require.Regexp(t, re, a.Instance.InstanceID)
		want, err := task.FeatureBenchID("faultline-dev/calc", "0123456789abcdef0123456789abcdef01234567", "tests/test_ops.py", level)
		require.NoError(t, err)
		require.Equal(t, want, a.Instance.InstanceID)
	}
}

func TestLevels(t *testing.T) {
	a1, err := Build(context.Background(), fixtureSpec(t, 1), Options{})
	require.NoError(t, err)
	a2, err := Build(context.Background(), fixtureSpec(t, 2), Options{})
	require.NoError(t, err)
	require.True(t, strings.HasSuffix(a1.Instance.InstanceID, ".lv1"))
	require.True(t, strings.HasSuffix(a2.Instance.InstanceID, ".lv2"))
	require.Contains(t, a1.ProblemStatement, "- Path: `calc/ops.py`")
	require.NotContains(t, a2.ProblemStatement, "- Path:")
	require.Contains(t, a1.ProblemStatement, "inside the repository `faultline-dev/calc`")
	require.Contains(t, a2.ProblemStatement, "from scratch as the package `agent_code`")
	require.Contains(t, a1.ProblemStatement, "- Import: `from calc.ops import Accumulator`")
	require.Contains(t, a2.ProblemStatement, "- Import: `from agent_code.ops import Accumulator`")
	for _, a := range []*Artifacts{a1, a2} {
		require.Contains(t, a.ProblemStatement, "  - https://github.com/faultline-dev/calc\n  - https://pypi.org/project/calc\n")
	}

	// Level 1 starts from the masked repository; Level 2 from an empty tree, its test patch
	// creates the renamed test file and its gold patch the whole package.
	require.NotNil(t, a1.Overlay)
	require.Nil(t, a1.Env)
	require.Nil(t, a2.Overlay)
	require.Equal(t, []string{"tests/test_ops.py"}, a2.Env.Tests.Paths())
	require.Contains(t, string(a2.Env.Tests["tests/test_ops.py"].Data), "from agent_code import add, Accumulator\n")
	require.Equal(t, []string{"agent_code/__init__.py", "agent_code/ops.py"}, a2.Env.Solution.Paths())
	require.Equal(t, task.TestList{"tests/test_ops.py::test_add", "tests/test_ops.py::test_push"}, a2.Instance.FailToPass)
	require.Empty(t, a2.Instance.PassToPass)
	require.NotEqual(t, a1.Patch, a2.Patch)
	require.Contains(t, string(a2.Patch), "+++ b/agent_code/ops.py\n")
}

func TestCountsAndJSONL(t *testing.T) {
	a, err := Build(context.Background(), fixtureSpec(t, 1), Options{})
	require.NoError(t, err)
	in := a.Instance
	gold, err := task.ParsePatch(a.Patch)
	require.NoError(t, err)
	added, removed := gold.Stat()
	require.Equal(t, added, *in.Lines)
	require.Equal(t, 1, removed, "the gold patch removes only the rewritten import line")
	require.Equal(t, 2, *in.Files)
	require.Equal(t, 4, *in.Functions)
	require.Equal(t, 2, *in.F2PTestPoints)
	require.Equal(t, 1, *in.P2PTestPoints)
	require.Equal(t, task.TestList{"tests/test_ops.py::test_add", "tests/test_ops.py::test_push"}, in.FailToPass)
	require.Equal(t, `{"python":"3.11","install":"pip install -e ."}`, in.RepoSettings)

	var buf bytes.Buffer
	require.NoError(t, task.WriteJSONL(&buf, []task.SWEInstance{in}))
	back, err := task.ReadAllJSONL[task.SWEInstance](&buf)
	require.NoError(t, err)
	require.Len(t, back, 1)
	require.Equal(t, in, back[0])

	raw, err := a.InstanceJSON()
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(raw, &m))
	for _, k := range []string{"instance_id", "patch", "test_patch", "FAIL_TO_PASS", "PASS_TO_PASS", "image_name", "repo",
		"base_commit", "problem_statement", "repo_settings"} {
		require.Contains(t, m, k)
	}
	require.IsType(t, "", m["repo_settings"])
}

// git runs git in dir.
func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %v: %s", args, out)
}

func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	require.NoError(t, fstree.Copy(src, dst, fstree.Options{Writable: true}))
	return dst
}

func TestPatchesApplyWithGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("artifact: git is not installed")
	}
	for _, reverse := range []bool{false, true} {
		a, err := Build(context.Background(), fixtureSpec(t, 1), Options{ReversePatch: reverse})
		require.NoError(t, err)
		dir := copyTree(t, fixture)
		if reverse {
			// The reference's direction applies to the original tree and gives the masked one.
			require.NoError(t, os.WriteFile(filepath.Join(dir, "p.diff"), a.Patch, 0o644))
			git(t, dir, "apply", "p.diff")
			require.NoError(t, os.Remove(filepath.Join(dir, "p.diff")))
			for _, p := range a.Overlay.Paths() {
				if a.Overlay[p].Delete {
					continue
				}
				b, err := os.ReadFile(filepath.Join(dir, p))
				require.NoError(t, err)
				require.Equal(t, string(a.Overlay[p].Data), string(b))
			}
			continue
		}
		require.NoError(t, a.Overlay.WriteTo(dir))
		_, err = os.Stat(filepath.Join(dir, "tests/test_ops.py"))
		require.ErrorIs(t, err, os.ErrNotExist, "the starting tree has no F2P file")
		for _, name := range []string{PatchFile, TestPatchFile} {
			data := a.Patch
			if name == TestPatchFile {
				data = a.TestPatch
			}
			p := filepath.Join(t.TempDir(), name)
			require.NoError(t, os.WriteFile(p, data, 0o644))
			git(t, dir, "apply", "--check", p)
			git(t, dir, "apply", p)
		}
		want := readTree(t, fixture)
		require.Equal(t, want, readTree(t, dir), "gold + test patch restore the original")
	}
}

func readTree(t *testing.T, root string) map[string]string {
	t.Helper()
	m, err := fstree.Read(root, nil)
	require.NoError(t, err)
	return m
}

func TestDocstrings(t *testing.T) {
	var calls []string
	gen := DocstringFunc(func(_ context.Context, obj Interface) (string, error) {
		calls = append(calls, obj.Name)
		require.Contains(t, obj.Source, "def zero():")
		return "  Make an empty accumulator.\n", nil
	})
	a, err := Build(context.Background(), fixtureSpec(t, 1), Options{Docstrings: gen})
	require.NoError(t, err)
	require.Equal(t, []string{"Accumulator.zero"}, calls, "only objects without a docstring")
	require.Equal(t, "Return the sum of a and b.\n\nBoth arguments must be numbers.", a.Interfaces[0].Docstring)
	require.False(t, a.Interfaces[0].Generated)
	require.Equal(t, "Make an empty accumulator.", a.Interfaces[2].Docstring)
	require.True(t, a.Interfaces[2].Generated)
	require.Equal(t, "@staticmethod\ndef zero():", a.Interfaces[2].Signature)
	require.Contains(t, a.ProblemStatement, "> Make an empty accumulator.\n")

	boom := errors.New("boom")
	_, err = Build(context.Background(), fixtureSpec(t, 1), Options{Docstrings: DocstringFunc(func(context.Context, Interface) (string, error) {
		return "", boom
	})})
	require.ErrorIs(t, err, boom)
}

func TestLLMDocstrings(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		require.Equal(t, "/chat/completions", r.URL.Path)
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Model    string `json:"model"`
			Messages []struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"messages"`
			Temperature *float64 `json:"temperature"`
		}
		require.NoError(t, json.Unmarshal(body, &req))
		require.Equal(t, "test-model", req.Model)
		require.Len(t, req.Messages, 2)
		require.Contains(t, req.Messages[1].Content, "`Accumulator.zero`")
		require.Contains(t, req.Messages[1].Content, "def zero():")
		require.NotNil(t, req.Temperature)
		require.Zero(t, *req.Temperature)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"x","model":"test-model","choices":[{"index":0,"finish_reason":"stop",`+
			`"message":{"role":"assistant","content":"`+"```"+`text\n\"\"\"Return a new accumulator\n    whose total is zero.\"\"\"\n`+"```"+`"}}]}`)
	}))
	defer srv.Close()
	gen := &LLMDocstrings{Model: &llm.OpenAI{BaseURL: srv.URL, Model: "test-model"}}
	a, err := Build(context.Background(), fixtureSpec(t, 2), Options{Docstrings: gen})
	require.NoError(t, err)
	require.Equal(t, int32(1), hits.Load())
	require.Equal(t, "Return a new accumulator\nwhose total is zero.", a.Interfaces[2].Docstring)

	empty := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `{"choices":[{"index":0,"message":{"role":"assistant","content":"  "}}]}`)
	}))
	defer empty.Close()
	_, err = Build(context.Background(), fixtureSpec(t, 1), Options{Docstrings: &LLMDocstrings{Model: &llm.OpenAI{BaseURL: empty.URL, Model: "m"}}})
	require.ErrorIs(t, err, ErrEmptyDocstring)
	_, err = (&LLMDocstrings{}).Docstring(context.Background(), Interface{})
	require.ErrorIs(t, err, llm.ErrNotConfigured)
}

func TestBadSpecs(t *testing.T) {
	cases := map[string]func(*Spec){
		"level":          func(s *Spec) { s.Level = 3 },
		"no f2p":         func(s *Spec) { s.FailToPass = nil },
		"empty mask":     func(s *Spec) { s.Masked = task.Overlay{} },
		"missing test":   func(s *Spec) { s.TestFile = "tests/test_missing.py" },
		"masked test":    func(s *Spec) { s.Masked = s.Masked.Merge(task.Overlay{"tests/test_ops.py": {Data: []byte("x")}}) },
		"repo":           func(s *Spec) { s.Repo = "calc" },
		"settings":       func(s *Spec) { s.RepoSettings = json.RawMessage(`{`) },
		"unknown object": func(s *Spec) { s.Objects = append(s.Objects, mask.Target{File: "calc/ops.py", Name: "nope"}) },
		"unsafe test":    func(s *Spec) { s.TestFile = "../x.py" },
	}
	for name, mut := range cases {
		t.Run(name, func(t *testing.T) {
			s := fixtureSpec(t, 1)
			mut(&s)
			_, err := Build(context.Background(), s, Options{})
			require.ErrorIs(t, err, ErrBadSpec)
		})
	}
}
