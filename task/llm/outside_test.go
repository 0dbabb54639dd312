package llm_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
)

// TestOutsideModule builds and runs testdata/outside, a program in a module of its own
// that requires faultline through a replace directive, as a user's program would. It sets
// a task/llm OpenAI (from llm.FromEnv) on every component that takes a model and asks each
// one thing; the fake OpenAI-compatible server below answers each component by the model
// name the program gives it and records what it was asked. The test checks that every
// component made its request, over the wire format, with the key, and that each one read
// the answer.
func TestOutsideModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program outside the module (go build)")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}

	// The program, in a temporary module whose replace directive names this checkout.
	dir := t.TempDir()
	mod, err := os.ReadFile("testdata/outside/go.mod")
	if err != nil {
		t.Fatal(err)
	}
	replace := regexp.MustCompile(`(?m)^replace github\.com/faultline-dev/faultline => .*$`)
	if !replace.Match(mod) {
		t.Fatal("testdata/outside/go.mod has no replace directive for faultline")
	}
	mod = replace.ReplaceAll(mod, []byte("replace github.com/faultline-dev/faultline => "+filepath.ToSlash(root)))
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), mod, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"testdata/outside/main.go", filepath.Join(root, "go.sum")} {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(name)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Offline: every module the program needs is faultline's, already in the module cache.
	goEnv := append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=mod", "GOWORK=off")
	goRun := func(args ...string) {
		t.Helper()
		cmd := exec.Command(goCmd, args...)
		cmd.Dir, cmd.Env = dir, goEnv
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	goRun("mod", "tidy")
	bin := filepath.Join(dir, "outside")
	goRun("build", "-o", bin, ".")

	// The fake endpoint: one answer per component, chosen by the model name.
	answers := map[string]string{
		"corruptor":  "I would rather not change it.",
		"solver":     "I cannot repair this.",
		"classifier": `["calc.py::add::1"]`,
		"docstrings": "Return the sum of a and b.",
		"compose":    "```python\ndef add(a, b):\n    return a - b\n```",
	}
	type seen struct {
		system string
		tools  []string
		auth   string
	}
	var mu sync.Mutex
	got := map[string][]seen{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model    string `json:"model"`
			Messages []struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"messages"`
			Tools []struct {
				Function struct {
					Name string `json:"name"`
				} `json:"function"`
			} `json:"tools"`
		}
		if r.URL.Path != "/v1/chat/completions" || json.NewDecoder(r.Body).Decode(&req) != nil || len(req.Messages) == 0 {
			http.Error(w, `{"error":{"message":"not a chat request"}}`, http.StatusBadRequest)
			return
		}
		answer, ok := answers[req.Model]
		if !ok {
			http.Error(w, `{"error":{"message":"unknown model"}}`, http.StatusNotFound)
			return
		}
		s := seen{system: req.Messages[0].Content, auth: r.Header.Get("Authorization")}
		for _, tl := range req.Tools {
			s.tools = append(s.tools, tl.Function.Name)
		}
		mu.Lock()
		got[req.Model] = append(got[req.Model], s)
		mu.Unlock()
		content, _ := json.Marshal(answer)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"r","model":%q,"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":%s}}],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`, req.Model, content)
	}))
	defer srv.Close()

	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "FAULTLINE_LLM_BASE_URL="+srv.URL+"/v1", "FAULTLINE_LLM_API_KEY=outside-key-0123456789", "FAULTLINE_LLM_MODEL=unused")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("the program failed: %v\n%s%s", err, stdout.String(), stderr.String())
	}

	// Every component asked once, with its own prompt and (corruptor, solver) tools.
	var names []string
	for name := range got {
		names = append(names, name)
	}
	sort.Strings(names)
	if strings.Join(names, " ") != "classifier compose corruptor docstrings solver" {
		t.Fatalf("components that made a request: %v", names)
	}
	for name, reqs := range got {
		if len(reqs) != 1 || reqs[0].auth != "Bearer outside-key-0123456789" || reqs[0].system == "" {
			t.Errorf("%s: %d requests, first %+v", name, len(reqs), reqs[0])
		}
	}
	if tools := got["corruptor"][0].tools; strings.Join(tools, " ") != "submit_attempt" {
		t.Errorf("corruptor tools %v", tools)
	}
	if tools := strings.Join(got["solver"][0].tools, " "); !strings.Contains(tools, "read_file") || !strings.Contains(tools, "submit_attempt") {
		t.Errorf("solver tools %v", tools)
	}
	// Each component read its answer.
	want := []string{
		`corruptor: model=corruptor stop="the model ended the conversation"`,
		`solver: model=solver stop="the model ended the conversation" turns=1`,
		`classifier: ["calc.py::add::1"]`,
		`docstrings: "Return the sum of a and b."`,
		`compose: llm "def add(a, b):\n    return a - b\n"`,
	}
	if out := strings.TrimSpace(stdout.String()); out != strings.Join(want, "\n") {
		t.Errorf("the program printed:\n%s\nwant:\n%s", out, strings.Join(want, "\n"))
	}
}
