package extract

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/faultline-dev/faultline/task"
	"github.com/faultline-dev/faultline/task/llm"
)

// fakeModel answers chat requests: it lists the candidate ids of the prompt and calls
// answer with them; it records every prompt.
type fakeModel struct {
	mu      sync.Mutex
	prompts []string
	answer  func(n int, ids []string) string
}

var promptID = regexp.MustCompile(`(?m)^- id: (\S+)`)

func (m *fakeModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	prompt := req.Messages[len(req.Messages)-1].Content
	m.mu.Lock()
	m.prompts = append(m.prompts, prompt)
	n := len(m.prompts)
	m.mu.Unlock()
	var ids []string
	for _, s := range promptID.FindAllStringSubmatch(prompt, -1) {
		ids = append(ids, s[1])
	}
	content, _ := json.Marshal(m.answer(n, ids))
	fmt.Fprintf(w, `{"id":"x","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}]}`, content)
}

func candidates(n int) []Candidate {
	var cs []Candidate
	for i := range n {
		cs = append(cs, Candidate{ID: fmt.Sprintf("lib/a.py::f%02d::%d", i, i+1), File: "lib/a.py", Name: fmt.Sprintf("f%02d", i), Depth: 1})
	}
	return cs
}

func TestLLMClassifier(t *testing.T) {
	m := &fakeModel{answer: func(n int, ids []string) string {
		// Take every even-numbered candidate, add an id that is not a candidate, wrap in prose.
		var pick []string
		for _, id := range ids {
			var k int
			fmt.Sscanf(id[strings.Index(id, "::f")+3:], "%d", &k)
			if k%2 == 0 {
				pick = append(pick, id)
			}
		}
		pick = append(pick, "other.py::nope::1")
		b, _ := json.Marshal(pick)
		return "Here you go:\n```json\n" + string(b) + "\n```"
	}}
	srv := httptest.NewServer(m)
	defer srv.Close()
	c := &LLMClassifier{Model: &llm.OpenAI{BaseURL: srv.URL, Model: "m", MaxRetries: -1}}
	req := ClassifyRequest{TestFile: "tests/test_a.py", TestSource: "def test(): f00()", Candidates: candidates(12), OtherFiles: 3}
	top, err := TopObjects(context.Background(), c, req)
	require.NoError(t, err)
	require.Equal(t, []string{
		"lib/a.py::f00::1", "lib/a.py::f02::3", "lib/a.py::f04::5", "lib/a.py::f06::7", "lib/a.py::f08::9", "lib/a.py::f10::11",
	}, top)
	// 12 candidates in batches of 5: three requests of 5, 5 and 2 candidates.
	require.Len(t, m.prompts, 3)
	for i, want := range []int{5, 5, 2} {
		require.Len(t, promptID.FindAllString(m.prompts[i], -1), want)
		require.Contains(t, m.prompts[i], "def test(): f00()")
	}
}

func TestLLMClassifierMalformed(t *testing.T) {
	// The first answer is not a list; the retry succeeds.
	m := &fakeModel{answer: func(n int, ids []string) string {
		if n == 1 {
			return "I think f00."
		}
		return `["` + ids[0] + `"]`
	}}
	srv := httptest.NewServer(m)
	defer srv.Close()
	c := &LLMClassifier{Model: &llm.OpenAI{BaseURL: srv.URL, Model: "m", MaxRetries: -1}}
	ids, err := c.Classify(context.Background(), ClassifyRequest{TestFile: "t.py", Candidates: candidates(2)})
	require.NoError(t, err)
	require.Equal(t, []string{"lib/a.py::f00::1"}, ids)
	require.Len(t, m.prompts, 2)

	// Always malformed: an error after the retries.
	bad := &fakeModel{answer: func(int, []string) string { return `["unterminated` }}
	srv2 := httptest.NewServer(bad)
	defer srv2.Close()
	c = &LLMClassifier{Model: &llm.OpenAI{BaseURL: srv2.URL, Model: "m", MaxRetries: -1}, Retries: 1}
	_, err = c.Classify(context.Background(), ClassifyRequest{TestFile: "t.py", Candidates: candidates(1)})
	require.ErrorIs(t, err, ErrBadAnswer)
	require.Len(t, bad.prompts, 2)
}

func FuzzParseIDList(f *testing.F) {
	f.Add(`["lib/a.py::f00::1", "x"]`)
	f.Add("no list")
	f.Add(`[1, 2]`)
	cs := candidates(3)
	f.Fuzz(func(t *testing.T, answer string) {
		ids, err := parseIDList(answer, cs)
		if err != nil {
			require.ErrorIs(t, err, ErrBadAnswer)
			return
		}
		for _, id := range ids {
			require.Regexp(t, `^lib/a\.py::f0[0-2]::[1-3]$`, id)
		}
	})
}

func TestAddSources(t *testing.T) {
	root := t.TempDir()
	src := "def f():\n    return 1\n\n\n@dec\ndef g():\n    pass\n"
	require.NoError(t, os.MkdirAll(filepath.Join(root, "lib"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "lib/a.py"), []byte(src), 0o644))
	defs := NewDefIndex([]task.Function{
		{File: "lib/a.py", Name: "f", Kind: task.KindFunction, Line: 1, EndLine: 2, DecoratorLine: 1, Def: task.Span{Start: 0, End: 21}},
		{File: "lib/a.py", Name: "g", Kind: task.KindFunction, Line: 6, EndLine: 7, DecoratorLine: 5, Def: task.Span{Start: 24, End: 46}},
	})
	cs := []Candidate{
		{ID: "lib/a.py::f::1", File: "lib/a.py", Name: "f"},
		{ID: "lib/a.py::g::5", File: "lib/a.py", Name: "g"},
		{ID: "lib/a.py::h::9", File: "lib/a.py", Name: "h"},
	}
	addSources(root, cs, defs)
	require.Equal(t, "def f():\n    return 1", cs[0].Source)
	require.Equal(t, "@dec\ndef g():\n    pass", cs[1].Source)
	require.Empty(t, cs[2].Source)
}
