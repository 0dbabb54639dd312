package corrupt

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/faultline-dev/faultline/task"
	"github.com/faultline-dev/faultline/task/llm"
)

// scriptedModel is an OpenAI-compatible endpoint that answers with a fixed script of
// assistant turns and records what it was sent.
type scriptedModel struct {
	mu       sync.Mutex
	turns    []string // raw HTTP bodies (or "429" for a rate limit)
	received []map[string]any
}

func (s *scriptedModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	body, _ := io.ReadAll(r.Body)
	var m map[string]any
	json.Unmarshal(body, &m)
	s.received = append(s.received, m)
	if len(s.turns) == 0 {
		http.Error(w, `{"error":{"message":"script exhausted"}}`, 500)
		return
	}
	turn := s.turns[0]
	s.turns = s.turns[1:]
	if turn == "429" {
		w.Header().Set("Retry-After", "0")
		w.WriteHeader(429)
		io.WriteString(w, `{"error":{"message":"Rate limit reached","type":"requests"}}`)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, turn)
}

// callTurn is an assistant message calling submit_attempt with code (arguments encoded
// the way the API does: a JSON string holding JSON).
func callTurn(id, args string) string {
	enc, _ := json.Marshal(args)
	return fmt.Sprintf(`{"id":"r-%s","model":"m","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"%s","type":"function","function":{"name":"submit_attempt","arguments":%s}}]}}],"usage":{"total_tokens":10}}`, id, id, enc)
}

func codeArgs(code string) string {
	b, _ := json.Marshal(map[string]string{"code": code})
	return string(b)
}

const stopTurn = `{"id":"r-end","model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"Done."}}]}`

func TestLLMCorruptorLoop(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the sample's tests")
	}
	r, base, req := sampleRun(t)
	src := readFile(t, req.Root+"/ledger/balance.go")
	var fn task.Function
	for _, f := range goFuncs(t, "ledger/balance.go", src) {
		if f.Name == "Filter" {
			fn = f
		}
	}
	orig := string(src[fn.Def.Start:fn.Def.End])
	subtle := strings.Replace(orig, "!e.Date.Before(to)", "e.Date.After(to)", 1)            // `to` becomes inclusive
	loud := strings.Replace(orig, "prefix != \"\" && ", "", 1)                              // every entry filtered unless exact
	sigChanged := strings.Replace(orig, "prefix string", "prefix, suffix string", 1)        // signature change
	commented := strings.Replace(orig, "var out []Entry", "var out []Entry // BUG here", 1) // a hinting comment
	if subtle == orig || loud == orig || sigChanged == orig || commented == orig {
		t.Fatal("fixture edits did not apply")
	}
	model := &scriptedModel{turns: []string{
		"429", // rate limited once, then answered
		callTurn("c1", `{"code": not json`),
		callTurn("c2", codeArgs(sigChanged)),
		callTurn("c3", codeArgs(commented)),
		callTurn("c4", codeArgs(loud)),
		callTurn("c5", codeArgs("```go\n"+subtle+"\n```")),
		stopTurn,
	}}
	srv := httptest.NewServer(model)
	defer srv.Close()
	c := &LLMCorruptor{Model: &llm.OpenAI{BaseURL: srv.URL + "/v1", APIKey: "k", Model: "test-model"}, MaxSubmissions: 4, MaxToolCalls: 8}
	tg := mustTarget(t, "ledger/balance.go", src, fn)
	checker, err := NewGoChecker(req.Root)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Corrupt(context.Background(), LLMRequest{Target: tg, Lang: "go", Runner: r, Run: req, Baseline: base, MinFailures: 1, Checker: checker,
		Tests: []TestSource{{ID: "TestFilter", Source: "func TestFilter(t *testing.T) {}"}}})
	if err != nil {
		t.Fatal(err)
	}
	// c1 (malformed) is not a submission; c2–c5 are; the budget of 4 stops the loop.
	if len(res.Submissions) != 4 || res.ToolCalls != 5 || res.Stop != "submission budget used" {
		t.Fatalf("submissions %d, tool calls %d, stop %q", len(res.Submissions), res.ToolCalls, res.Stop)
	}
	reasons := []string{res.Submissions[0].Reason, res.Submissions[1].Reason}
	if !strings.Contains(reasons[0], "signature") || !strings.Contains(reasons[1], "comment") {
		t.Errorf("rejections = %q", reasons)
	}
	if !res.Submissions[2].Accepted || !res.Submissions[3].Accepted {
		t.Fatalf("valid corruptions not accepted: %+v", res.Submissions[2:])
	}
	loudFails, subtleFails := len(res.Submissions[2].Validation.FailToPass), len(res.Submissions[3].Validation.FailToPass)
	if subtleFails >= loudFails {
		t.Fatalf("fixture: subtle version fails %d tests, loud %d", subtleFails, loudFails)
	}
	if res.Mutant == nil || !strings.Contains(res.Mutant.Edits[0].Text, "e.Date.After(to)") || strings.Contains(res.Mutant.Edits[0].Text, "```") {
		t.Errorf("kept mutant = %+v, want the subtler (fewest failing tests), fence stripped", res.Mutant)
	}
	if len(res.Validation.FailToPass) != subtleFails {
		t.Errorf("validation of the kept attempt: %d failing", len(res.Validation.FailToPass))
	}
	// The wire: the system prompt states the rules, the function source is shown, the
	// malformed call got an error reply, and the transcript records every message.
	first := model.received[1] // [0] was the rate-limited request
	msgs := first["messages"].([]any)
	if !strings.Contains(msgs[0].(map[string]any)["content"].(string), "signature") ||
		!strings.Contains(msgs[1].(map[string]any)["content"].(string), "func Filter(") {
		t.Errorf("prompt = %v", msgs)
	}
	if tools := first["tools"].([]any); tools[0].(map[string]any)["function"].(map[string]any)["name"] != "submit_attempt" {
		t.Errorf("tools = %v", tools)
	}
	second := model.received[2]["messages"].([]any)
	if reply := second[len(second)-1].(map[string]any); reply["role"] != "tool" || !strings.Contains(reply["content"].(string), "JSON object") {
		t.Errorf("reply to malformed arguments = %v", reply)
	}
	if len(res.Transcript) < 11 || res.Model != "test-model" {
		t.Errorf("transcript has %d entries", len(res.Transcript))
	}
}

func TestLLMCorruptorEndpointErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(401)
		io.WriteString(w, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}`)
	}))
	defer srv.Close()
	src := []byte("package p\n\nfunc F(x int) int {\n\treturn x + 1\n}\n")
	fn := goFuncs(t, "p.go", src)[0]
	c := &LLMCorruptor{Model: &llm.OpenAI{BaseURL: srv.URL, Model: "m"}}
	never := task.RunnerFunc(func(context.Context, task.RunRequest) (*task.Report, error) {
		t.Fatal("no test may run")
		return nil, nil
	})
	_, err := c.Corrupt(context.Background(), LLMRequest{Target: mustTarget(t, "p.go", src, fn), Lang: "go", Runner: never})
	if err == nil || !strings.Contains(err.Error(), "Incorrect API key") {
		t.Errorf("err = %v, want the API error", err)
	}
}

// flippingModel corrupts whatever function it is shown: it flips the first comparison
// operator of the code block in the user message, like a (very simple) model would.
type flippingModel struct {
	mu    sync.Mutex
	calls int
}

func (f *flippingModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	var req struct {
		Messages []struct{ Role, Content string } `json:"messages"`
	}
	json.NewDecoder(r.Body).Decode(&req)
	w.Header().Set("Content-Type", "application/json")
	last := req.Messages[len(req.Messages)-1]
	if last.Role == "tool" {
		io.WriteString(w, stopTurn) // one submission, then stop
		return
	}
	user := req.Messages[1].Content
	start := strings.Index(user, "```go\n") + len("```go\n")
	code := user[start : start+strings.Index(user[start:], "\n```")]
	for _, op := range []string{" < ", " > ", " == ", " != "} {
		if i := strings.Index(code, op); i >= 0 {
			flip := map[string]string{" < ": " <= ", " > ": " >= ", " == ": " != ", " != ": " == "}[op]
			io.WriteString(w, callTurn(fmt.Sprintf("c%d", f.calls), codeArgs(code[:i]+flip+code[i+len(op):])))
			return
		}
	}
	io.WriteString(w, stopTurn)
}

func TestGenerateWithLLM(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the sample's tests")
	}
	r, base, req := sampleRun(t)
	g, c := sampleGraph(t)
	model := &flippingModel{}
	srv := httptest.NewServer(model)
	defer srv.Close()
	res, err := Generate(context.Background(), req.Root, g, c, r, base, Options{Mode: Discovery, N: 2, Seed: 3, Run: req, SkipAlone: true,
		LLM: &LLMCorruptor{Model: &llm.OpenAI{BaseURL: srv.URL, Model: "flipper"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 {
		t.Fatalf("%d tasks", len(res))
	}
	for _, x := range res {
		p := x.Problem("sample", "")
		if p.Model != "flipper" || p.Rule != "llm" || len(p.FailToPass) < 2 {
			t.Errorf("record = model %q rule %q, %d failing", p.Model, p.Rule, len(p.FailToPass))
		}
		recheck(t, r, req, x)
	}
}

func TestTestSources(t *testing.T) {
	root, _ := filepath.Abs("../examples/sample")
	read := func(p string) ([]byte, error) { return os.ReadFile(filepath.Join(root, p)) }
	got := testSources(root, []string{"example.com/ledger/ledger.TestFilter/january", "example.com/ledger/ledger.TestFilter/all", "example.com/ledger/ledger.TestRollup", "example.com/ledger/ledger.TestMissing"}, "go", read, 5)
	if len(got) != 2 || !strings.HasPrefix(got[0].Source, "func TestFilter(") || !strings.HasPrefix(got[1].Source, "func TestRollup(") {
		t.Errorf("go test sources = %+v", got)
	}
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "tests"), 0o755)
	os.WriteFile(filepath.Join(dir, "tests", "test_x.py"), []byte("import pytest\n\nclass TestA:\n    @pytest.mark.parametrize('n', [1, 2])\n    def test_b(self, n):\n        assert n\n\ndef test_c():\n    pass\n"), 0o644)
	readPy := func(p string) ([]byte, error) { return os.ReadFile(filepath.Join(dir, p)) }
	got = testSources(dir, []string{"tests/test_x.py::TestA::test_b[1]", "tests/test_x.py::TestA::test_b[2]", "tests/test_x.py::test_c"}, "python", readPy, 5)
	if len(got) != 2 || !strings.Contains(got[0].Source, "def test_b(self, n):") || !strings.HasPrefix(got[0].Source, "@pytest") || !strings.HasPrefix(got[1].Source, "def test_c") {
		t.Errorf("python test sources = %+v", got)
	}
}
