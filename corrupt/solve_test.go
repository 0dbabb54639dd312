package corrupt

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/faultline-dev/faultline/callgraph"
	"github.com/faultline-dev/faultline/callgraph/golang"
	"github.com/faultline-dev/faultline/callgraph/python"
	"github.com/faultline-dev/faultline/sandbox"
	"github.com/faultline-dev/faultline/task"
	"github.com/faultline-dev/faultline/task/llm"
)

// The chat-completions wire format, as the fake servers of these tests read and write it
// (independently of task/llm's encoding, so the tests check what goes over the wire).
type (
	chatReq struct {
		Model    string    `json:"model"`
		Messages []chatMsg `json:"messages"`
		Tools    []struct {
			Type     string `json:"type"`
			Function struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				Parameters  json.RawMessage `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
		ToolChoice  any      `json:"tool_choice"`
		Temperature *float64 `json:"temperature"`
		MaxTokens   int      `json:"max_tokens"`
		Seed        *int64   `json:"seed"`
	}
	chatMsg struct {
		Role       string         `json:"role"`
		Content    string         `json:"content"`
		ToolCalls  []chatToolCall `json:"tool_calls,omitempty"`
		ToolCallID string         `json:"tool_call_id,omitempty"`
	}
	chatToolCall struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	}
	chatResp struct {
		ID      string       `json:"id"`
		Model   string       `json:"model"`
		Choices []chatChoice `json:"choices"`
		Usage   chatUsage    `json:"usage"`
	}
	chatChoice struct {
		Message      chatMsg `json:"message"`
		FinishReason string  `json:"finish_reason"`
	}
	chatUsage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
		TotalTokens      int `json:"total_tokens"`
	}
)

// fakeChat is an httptest server speaking the chat-completions wire format. Each answered
// request is passed to script, which returns the assistant's message; the requests are
// recorded as decoded. before, if set, may answer a request itself (an HTTP error) by
// returning true.
type fakeChat struct {
	srv    *httptest.Server
	mu     sync.Mutex
	reqs   []chatReq
	calls  int // HTTP requests, answered or not
	script func(n int, req chatReq) chatMsg
	before func(call int, w http.ResponseWriter) bool
}

func newFakeChat(t testing.TB, script func(n int, req chatReq) chatMsg) *fakeChat {
	t.Helper()
	f := &fakeChat{script: script}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		var req chatReq
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		f.mu.Lock()
		f.calls++
		call := f.calls
		f.mu.Unlock()
		if f.before != nil && f.before(call, w) {
			return
		}
		f.mu.Lock()
		f.reqs = append(f.reqs, req)
		n := len(f.reqs)
		f.mu.Unlock()
		msg := f.script(n, req)
		msg.Role = "assistant"
		finish := "stop"
		if len(msg.ToolCalls) > 0 {
			finish = "tool_calls"
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(chatResp{ID: fmt.Sprintf("resp-%d", n), Model: req.Model,
			Choices: []chatChoice{{Message: msg, FinishReason: finish}},
			Usage:   chatUsage{PromptTokens: 100 * n, CompletionTokens: 10, TotalTokens: 100*n + 10}})
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeChat) model() *llm.OpenAI {
	return &llm.OpenAI{BaseURL: f.srv.URL + "/v1", APIKey: "test-key", Model: "scripted-model"}
}

func (f *fakeChat) requests() []chatReq {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]chatReq(nil), f.reqs...)
}

func toolCall(id, name, args string) chatToolCall {
	tc := chatToolCall{ID: id, Type: "function"}
	tc.Function.Name, tc.Function.Arguments = name, args
	return tc
}

func callMsg(calls ...chatToolCall) chatMsg { return chatMsg{ToolCalls: calls} }

func jsonArgs(t testing.TB, kv ...string) string {
	t.Helper()
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func toolNames(req chatReq) []string {
	var out []string
	for _, tl := range req.Tools {
		out = append(out, tl.Function.Name)
	}
	return out
}

// lastToolReply returns the content of the last tool message of a request.
func lastToolReply(req chatReq) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "tool" {
			return req.Messages[i].Content
		}
	}
	return ""
}

const wrongFilter = "func Filter(entries []Entry, prefix string, from, to time.Time) []Entry {\n\treturn entries\n}"

// fakeSampleEnv is an Env over the sample whose runner does not run the tests: they all pass
// when ledger/balance.go holds original, and the FAIL_TO_PASS tests fail otherwise.
func fakeSampleEnv(t testing.TB, p task.BreakpointProblem, original string, tools, attempts int, runErr error) (*Env, *int) {
	t.Helper()
	runs := 0
	r := task.RunnerFunc(func(ctx context.Context, req task.RunRequest) (*task.Report, error) {
		runs++
		if runErr != nil {
			return nil, runErr
		}
		src := string(req.Overlay["ledger/balance.go"].Data)
		fixed := strings.Contains(src, original)
		rep := &task.Report{State: task.RunOK}
		for _, id := range req.Select.IDs {
			out := task.Pass
			if !fixed && slices.Contains(p.FailToPass, id) {
				out = task.Fail
			}
			rep.Tests = append(rep.Tests, task.TestResult{ID: id, Outcome: out, Message: "want 2 entries"})
		}
		return rep, nil
	})
	root := "../examples/sample"
	e, err := NewEnv(root, p, r, EnvOptions{MaxToolUses: tools, MaxAttempts: attempts, Langs: []callgraph.Language{golang.New(golang.Options{})}, Run: task.RunRequest{Kind: task.GoTest}})
	if err != nil {
		t.Fatal(err)
	}
	return e, &runs
}

// removeSampleProblem deletes the body of ledger/balance.go::Filter of the sample (the
// REMOVE problem of sampleProblem, built here for benchmarks too).
func removeSampleProblem(t testing.TB) (task.BreakpointProblem, string) {
	t.Helper()
	root, err := filepath.Abs("../examples/sample")
	if err != nil {
		t.Fatal(err)
	}
	const path = "ledger/balance.go"
	src := readFile(t, filepath.Join(root, path))
	var fn task.Function
	for _, f := range goFuncs(t, path, src) {
		if f.Name == "Filter" {
			fn = f
		}
	}
	m, err := Stub("go", src, fn)
	if err != nil {
		t.Fatal(err)
	}
	o := task.Overlay{}
	o.Set(path, m.Apply(src))
	patch, err := task.DiffOverlay(root, o, task.DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return task.BreakpointProblem{ID: "sample.test", Mode: string(Remove), CorruptionPatch: string(patch.Format()), GoldPatch: string(patch.Reverse().Format()),
		Functions:  []task.CorruptedFunction{{Path: path, Name: "Filter", Span: fn.Def, Line: fn.Line, EndLine: fn.EndLine}},
		FailToPass: task.TestList{"example.com/ledger/ledger.TestFilter", "example.com/ledger/ledger.TestFilter/all", "example.com/ledger/ledger.TestFilter/expenses"},
		PassToPass: task.TestList{"example.com/ledger/ledger.TestBalances", "example.com/ledger/ledger.TestParseAmount"}}, string(src[fn.Def.Start:fn.Def.End])
}

// TestSolverScriptedRemove drives a scripted model through a REMOVE task on the sample with
// its real tests: it reads the file and the stub, submits a wrong body, then the original.
func TestSolverScriptedRemove(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the sample's tests")
	}
	p, original := removeSampleProblem(t)
	script := func(t *testing.T) func(n int, req chatReq) chatMsg {
		return func(n int, req chatReq) chatMsg {
			switch n {
			case 1:
				return chatMsg{Content: "Let me look at the file.", ToolCalls: []chatToolCall{toolCall("c1", ToolReadFile, jsonArgs(t, "path", "ledger/balance.go"))}}
			case 2:
				return callMsg(toolCall("c2", ToolReadFunction, jsonArgs(t, "path", "ledger/balance.go", "name", "Filter")))
			case 3:
				return callMsg(toolCall("c3", ToolSubmitAttempt, jsonArgs(t, "code", wrongFilter)))
			case 4:
				return callMsg(toolCall("c4", ToolSubmitAttempt, jsonArgs(t, "code", original)))
			}
			return chatMsg{Content: "The tests pass."}
		}
	}
	temp := 0.0
	solve := func() (*Trajectory, []chatReq) {
		fc := newFakeChat(t, script(t))
		env := newSampleEnv(t, p, 16, 4)
		s := Solver{Model: fc.model(), Temperature: &temp}
		tr, err := s.Solve(context.Background(), env, p)
		if err != nil {
			t.Fatal(err)
		}
		return tr, fc.requests()
	}
	tr, reqs := solve()

	sc := tr.Score
	if !sc.Success || sc.Partial != 1 || sc.Best != 1 || !sc.Diagnosed || sc.Hacked || sc.ToolUses != 4 || len(sc.Attempts) != 2 {
		t.Fatalf("score = %+v", sc)
	}
	if a := sc.Attempts[0]; a.Passed || a.Failures == 0 || a.Partial >= 1 {
		t.Errorf("wrong attempt scored %+v", a)
	}
	if tr.Stop != "the model ended the conversation" || tr.Turns != 5 || len(tr.Calls) != 4 {
		t.Errorf("stop %q after %d turns, %d calls", tr.Stop, tr.Turns, len(tr.Calls))
	}
	// Usage sums what the endpoint reported: prompt 100·n, completion 10 per response.
	if want := (Usage{Requests: 5, PromptTokens: 1500, CompletionTokens: 50, TotalTokens: 1550}); tr.Usage != want {
		t.Errorf("usage = %+v, want %+v", tr.Usage, want)
	}
	if len(reqs) != 5 {
		t.Fatalf("%d requests", len(reqs))
	}
	// Every request offers the Env's tools of the moment, with the schemas, and the settings.
	wantTools := []string{ToolListDirectory, ToolSearchCode, ToolReadFile, ToolListFileFunctions, ToolReadFunction, ToolSubmitAttempt}
	for i, req := range reqs {
		if got := toolNames(req); !reflect.DeepEqual(got, wantTools) {
			t.Errorf("request %d tools = %v", i+1, got)
		}
		if req.Model != "scripted-model" || req.Temperature == nil || *req.Temperature != 0 || req.ToolChoice != "auto" {
			t.Errorf("request %d: model %q temperature %v choice %v", i+1, req.Model, req.Temperature, req.ToolChoice)
		}
	}
	var sch map[string]any
	if err := json.Unmarshal(reqs[0].Tools[5].Function.Parameters, &sch); err != nil || sch["type"] != "object" {
		t.Errorf("submit_attempt schema = %s", reqs[0].Tools[5].Function.Parameters)
	}
	// The conversation: system and user prompts, then the replies to each call.
	first := reqs[0].Messages
	if len(first) != 2 || first[0].Role != "system" || !strings.Contains(first[0].Content, "submit_attempt(code)") ||
		first[1].Role != "user" || !strings.Contains(first[1].Content, "`Filter` in `ledger/balance.go`") ||
		!strings.Contains(first[1].Content, "example.com/ledger/ledger.TestFilter/all") || !strings.Contains(first[1].Content, "Budget: 16 tool calls, of which at most 4") {
		t.Errorf("opening messages = %+v", first)
	}
	if got := lastToolReply(reqs[1]); !strings.Contains(got, "package ledger") || !strings.Contains(got, "func Filter(") {
		t.Errorf("read_file reply = %q", got)
	}
	if got := lastToolReply(reqs[2]); !strings.Contains(got, "return *new([]Entry)") {
		t.Errorf("read_function reply = %q, want the stub", got)
	}
	if got := lastToolReply(reqs[3]); !strings.Contains(got, "FAILED") {
		t.Errorf("wrong submission reply = %q", got)
	}
	if got := lastToolReply(reqs[4]); got != "all 5 tests passed" {
		t.Errorf("right submission reply = %q", got)
	}
	last := reqs[4].Messages
	if n := len(last); n != 2+2*4 || last[n-2].Role != "assistant" || len(last[n-2].ToolCalls) != 1 || last[n-1].ToolCallID != "c4" {
		t.Errorf("last request's messages = %+v", last)
	}
	if len(tr.Transcript) != 2+5+4 || tr.Transcript[2].Content != "Let me look at the file." || tr.Transcript[2].ToolCalls[0].Name != ToolReadFile {
		t.Errorf("transcript = %+v", tr.Transcript)
	}

	// The same endpoint answers give the same trajectory.
	again, _ := solve()
	a, _ := json.Marshal(tr)
	b, _ := json.Marshal(again)
	if string(a) != string(b) {
		t.Errorf("trajectories differ:\n%s\n%s", a, b)
	}
}

// TestSolverForcedSubmission: a model that only ever reads is offered nothing but the
// submission tool, as the required choice, on its last tool use, and the run then ends.
func TestSolverForcedSubmission(t *testing.T) {
	p, original := removeSampleProblem(t)
	fc := newFakeChat(t, func(n int, req chatReq) chatMsg {
		if names := toolNames(req); len(names) == 1 && names[0] == ToolSubmitAttempt {
			return callMsg(toolCall(fmt.Sprint("s", n), ToolSubmitAttempt, `{"code":`+strconvQuote(wrongFilter)+`}`))
		}
		return callMsg(toolCall(fmt.Sprint("r", n), ToolReadFile, `{"path":"go.mod"}`))
	})
	env, runs := fakeSampleEnv(t, p, original, 3, 2, nil)
	tr, err := (&Solver{Model: fc.model()}).Solve(context.Background(), env, p)
	if err != nil {
		t.Fatal(err)
	}
	reqs := fc.requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	if got := toolNames(reqs[2]); !reflect.DeepEqual(got, []string{ToolSubmitAttempt}) {
		t.Errorf("last request's tools = %v", got)
	}
	choice, _ := json.Marshal(reqs[2].ToolChoice)
	if string(choice) != `{"function":{"name":"submit_attempt"},"type":"function"}` {
		t.Errorf("last request's tool choice = %s", choice)
	}
	if reqs[0].ToolChoice != "auto" {
		t.Errorf("first request's tool choice = %v", reqs[0].ToolChoice)
	}
	sc := tr.Score
	if sc.ToolUses != 3 || len(sc.Attempts) != 1 || sc.Success || sc.Partial != 0 || *runs != 1 {
		t.Errorf("score = %+v after %d runs", sc, *runs)
	}
	if tr.Stop != "no tools remain" || tr.Calls[2].Name != ToolSubmitAttempt || tr.Calls[2].Error {
		t.Errorf("stop %q, calls %+v", tr.Stop, tr.Calls)
	}
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestSolverRefusedCalls: malformed arguments, an unknown tool, a path outside the
// repository and a tool of the other mode are answered with errors, and the run goes on.
func TestSolverRefusedCalls(t *testing.T) {
	p, original := removeSampleProblem(t)
	fc := newFakeChat(t, func(n int, req chatReq) chatMsg {
		switch n {
		case 1:
			return callMsg(
				toolCall("a", ToolReadFile, `{"path": `),
				toolCall("b", ToolReadFile, `{"path": 5}`),
				toolCall("c", "delete_everything", `{}`),
			)
		case 2:
			return callMsg(toolCall("d", ToolReadFile, `{"path":"../../etc/passwd"}`), toolCall("e", ToolReplaceFunction, `{"path":"ledger/balance.go","name":"Filter","code":"x"}`))
		case 3:
			return callMsg(toolCall("f", ToolSubmitAttempt, jsonArgs(t, "code", original)))
		}
		return chatMsg{Content: "done"}
	})
	env, runs := fakeSampleEnv(t, p, original, 16, 4, nil)
	tr, err := (&Solver{Model: fc.model()}).Solve(context.Background(), env, p)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Calls) != 6 {
		t.Fatalf("calls = %+v", tr.Calls)
	}
	for i, want := range []string{"not a JSON object", "not a JSON object", `unknown tool "delete_everything"`, "passwd", "DISCOVERY tool"} {
		c := tr.Calls[i]
		if !c.Error || !strings.HasPrefix(c.Result, "error: ") || !strings.Contains(c.Result, want) {
			t.Errorf("call %s: result %q (error %v), want an error naming %q", c.ID, c.Result, c.Error, want)
		}
	}
	reqs := fc.requests()
	// All three replies of the first turn reach the model, in order, each with its call id.
	var ids []string
	for _, m := range reqs[1].Messages {
		if m.Role == "tool" {
			ids = append(ids, m.ToolCallID)
			if !strings.HasPrefix(m.Content, "error: ") {
				t.Errorf("reply to %s = %q", m.ToolCallID, m.Content)
			}
		}
	}
	if !reflect.DeepEqual(ids, []string{"a", "b", "c"}) {
		t.Errorf("tool replies = %v", ids)
	}
	sc := tr.Score
	// Only the calls the Env accepted to look at spend the budget: the escaping path (checked
	// after spending), the wrong-mode tool is refused before, the submission counts.
	if !sc.Success || len(sc.Attempts) != 1 || *runs != 1 || sc.ToolUses != 2 {
		t.Errorf("score = %+v", sc)
	}
}

// TestSolverRetriesRateLimit: a 429 with Retry-After is retried by the client, and the
// trajectory counts only the answered request.
func TestSolverRetriesRateLimit(t *testing.T) {
	p, original := removeSampleProblem(t)
	fc := newFakeChat(t, func(n int, req chatReq) chatMsg {
		if n == 1 {
			return callMsg(toolCall("s", ToolSubmitAttempt, jsonArgs(t, "code", original)))
		}
		return chatMsg{Content: "done"}
	})
	fc.before = func(call int, w http.ResponseWriter) bool {
		if call <= 2 {
			w.Header().Set("Retry-After", "0.01")
			w.WriteHeader(http.StatusTooManyRequests)
			fmt.Fprint(w, `{"error":{"message":"slow down","type":"rate_limit"}}`)
			return true
		}
		return false
	}
	env, _ := fakeSampleEnv(t, p, original, 16, 4, nil)
	tr, err := (&Solver{Model: fc.model()}).Solve(context.Background(), env, p)
	if err != nil {
		t.Fatal(err)
	}
	if fc.calls != 4 || tr.Usage.Requests != 2 || !tr.Score.Success {
		t.Errorf("%d HTTP calls, usage %+v, score %+v", fc.calls, tr.Usage, tr.Score)
	}
}

// TestSolverFatalErrors: errors that are not refusals end the run with an error, and the
// trajectory so far is returned, scored.
func TestSolverFatalErrors(t *testing.T) {
	p, original := removeSampleProblem(t)
	submit := func(n int, req chatReq) chatMsg {
		if n == 1 {
			return callMsg(toolCall("r", ToolListDirectory, `{"path":"."}`), toolCall("s", ToolSubmitAttempt, jsonArgs(t, "code", original)))
		}
		return chatMsg{Content: "done"}
	}
	t.Run("runner", func(t *testing.T) {
		fc := newFakeChat(t, submit)
		boom := errors.New("sandbox on fire")
		env, _ := fakeSampleEnv(t, p, original, 16, 4, boom)
		tr, err := (&Solver{Model: fc.model()}).Solve(context.Background(), env, p)
		if !errors.Is(err, boom) || !strings.HasPrefix(err.Error(), "corrupt: solve sample.test: submit_attempt: ") {
			t.Fatalf("err = %v", err)
		}
		// The run failed in the runner, not by the solver: the submission's tool use is
		// refunded, so only list_directory counts.
		if tr == nil || tr.Stop != "environment error" || len(tr.Calls) != 2 || tr.Score.ToolUses != 1 || len(tr.Score.Attempts) != 0 || len(fc.requests()) != 1 {
			t.Errorf("trajectory: stop %q, %d calls, score %+v", tr.Stop, len(tr.Calls), tr.Score)
		}
	})
	t.Run("endpoint", func(t *testing.T) {
		fc := newFakeChat(t, submit)
		fc.before = func(call int, w http.ResponseWriter) bool {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"error":{"message":"bad tools","type":"invalid_request_error"}}`)
			return true
		}
		env, _ := fakeSampleEnv(t, p, original, 16, 4, nil)
		tr, err := (&Solver{Model: fc.model()}).Solve(context.Background(), env, p)
		var apiErr *llm.APIError
		if !errors.As(err, &apiErr) || apiErr.Status != 400 || fc.calls != 1 {
			t.Fatalf("err = %v after %d calls", err, fc.calls)
		}
		if tr.Stop != "endpoint error" || tr.Score.ToolUses != 0 || tr.Turns != 0 {
			t.Errorf("trajectory: stop %q, %d turns, score %+v", tr.Stop, tr.Turns, tr.Score)
		}
	})
	t.Run("context", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		fc := newFakeChat(t, func(n int, req chatReq) chatMsg {
			cancel() // the context ends while the model answers
			return callMsg(toolCall("r", ToolListDirectory, `{"path":"."}`))
		})
		env, _ := fakeSampleEnv(t, p, original, 16, 4, nil)
		tr, err := (&Solver{Model: fc.model()}).Solve(ctx, env, p)
		if !errors.Is(err, context.Canceled) || tr == nil || tr.Stop != "context ended" {
			t.Fatalf("err = %v, trajectory %v", err, tr != nil)
		}
	})
	t.Run("wrong problem", func(t *testing.T) {
		env, _ := fakeSampleEnv(t, p, original, 16, 4, nil)
		other := p
		other.ID = "another"
		if _, err := (&Solver{}).Solve(context.Background(), env, other); err == nil || !strings.Contains(err.Error(), "not the Env's problem") {
			t.Errorf("err = %v", err)
		}
		if _, err := (GoldSolver{}).Solve(context.Background(), env, other); err == nil {
			t.Error("GoldSolver accepted another problem")
		}
	})
}

// TestSolverTurnLimit: refused calls do not spend the budget; MaxTurns stops a model that
// only makes them.
func TestSolverTurnLimit(t *testing.T) {
	p, original := removeSampleProblem(t)
	fc := newFakeChat(t, func(n int, req chatReq) chatMsg {
		return callMsg(toolCall("x", "no_such_tool", `{}`))
	})
	env, _ := fakeSampleEnv(t, p, original, 4, 1, nil)
	tr, err := (&Solver{Model: fc.model(), MaxTurns: 7}).Solve(context.Background(), env, p)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Turns != 7 || len(fc.requests()) != 7 || tr.Stop != "turn limit (7) reached" || tr.Score.ToolUses != 0 {
		t.Errorf("turns %d, stop %q, score %+v", tr.Turns, tr.Stop, tr.Score)
	}
	// The default is twice the tool uses left plus 4.
	fc2 := newFakeChat(t, func(n int, req chatReq) chatMsg { return callMsg(toolCall("x", "no_such_tool", `{}`)) })
	env2, _ := fakeSampleEnv(t, p, original, 4, 1, nil)
	tr, err = (&Solver{Model: fc2.model()}).Solve(context.Background(), env2, p)
	if err != nil || tr.Turns != 12 {
		t.Errorf("default turn limit: %d turns, %v", tr.Turns, err)
	}
}

// TestSolverStopsWithoutSubmissions: once every submission is used, the run ends even
// with tool uses left.
func TestSolverStopsWithoutSubmissions(t *testing.T) {
	p, original := removeSampleProblem(t)
	fc := newFakeChat(t, func(n int, req chatReq) chatMsg {
		return callMsg(toolCall(fmt.Sprint(n), ToolSubmitAttempt, jsonArgs(t, "code", wrongFilter)))
	})
	env, runs := fakeSampleEnv(t, p, original, 16, 2, nil)
	tr, err := (&Solver{Model: fc.model()}).Solve(context.Background(), env, p)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Stop != "no submissions remain" || *runs != 2 || tr.Score.ToolUses != 2 || tr.Score.Success {
		t.Errorf("stop %q after %d runs, score %+v", tr.Stop, *runs, tr.Score)
	}
}

func TestSystemPrompt(t *testing.T) {
	r, d := SystemPrompt(Remove), SystemPrompt(Discovery)
	if !strings.Contains(r, "submit_attempt(code)") || strings.Contains(r, "replace_function") {
		t.Errorf("REMOVE prompt:\n%s", r)
	}
	if !strings.Contains(d, "replace_function(path, name, code)") || !strings.Contains(d, "submit_attempt()") {
		t.Errorf("DISCOVERY prompt:\n%s", d)
	}
}

// TestGoldSolverOnGeneratedTasks: tasks generated from the sample (REMOVE and DISCOVERY,
// one and two functions) are solved by their gold patches through the tools, with the
// fewest tool uses, and the repository is never written.
func TestGoldSolverOnGeneratedTasks(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the sample's tests")
	}
	ctx := context.Background()
	r, base, req := sampleRun(t)
	g, c := sampleGraph(t)
	before := hashTree(t, "../examples/sample")
	cases := []struct {
		name string
		opts Options
	}{
		{"remove", Options{Mode: Remove, N: 2, Seed: 3}},
		{"discovery", Options{Mode: Discovery, N: 2, Seed: 5}},
		{"discovery-pair", Options{Mode: Discovery, N: 1, Seed: 7, Group: GroupOptions{K: 2, Distance: 4, Undirected: true}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Run = req
			// The REMOVE tasks are confirmed alone, as by default; the others skip it (one
			// run per failing test; it has tests of its own).
			tc.opts.SkipAlone = tc.name != "remove"
			res, err := Generate(ctx, req.Root, g, c, r, base, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(res) != tc.opts.N {
				t.Fatalf("%d tasks, want %d", len(res), tc.opts.N)
			}
			for _, x := range res {
				p := x.Problem("sample", "")
				if k := max(tc.opts.Group.K, 1); len(p.Functions) != k {
					t.Fatalf("%s corrupts %d functions, want %d", p.ID, len(p.Functions), k)
				}
				env, err := NewEnv(req.Root, p, r, EnvOptions{Langs: []callgraph.Language{golang.New(golang.Options{})}, Run: task.RunRequest{Kind: task.GoTest}})
				if err != nil {
					t.Fatal(err)
				}
				tr, err := GoldSolver{}.Solve(ctx, env, p)
				if err != nil {
					t.Fatal(err)
				}
				sc := tr.Score
				wantUses := 1
				if tc.opts.Mode == Discovery {
					wantUses = len(p.Functions) + 1
				}
				if !sc.Success || sc.Partial != 1 || sc.Best != 1 || !sc.Diagnosed || sc.Hacked || sc.ToolUses != wantUses || len(sc.Attempts) != 1 {
					t.Errorf("%s: gold score = %+v", p.ID, sc)
				}
				if tr.Solver != "gold" || len(tr.Calls) != wantUses || tr.Calls[len(tr.Calls)-1].Name != ToolSubmitAttempt {
					t.Errorf("%s: calls = %+v", p.ID, tr.Calls)
				}
				for _, call := range tr.Calls {
					if call.Error {
						t.Errorf("%s: refused call %+v", p.ID, call)
					}
				}
			}
		})
	}
	if !reflect.DeepEqual(before, hashTree(t, "../examples/sample")) {
		t.Error("the sample repository was modified")
	}
}

// TestGoldSolverBudgetTooSmall: with one tool use a DISCOVERY gold run can only submit the
// corrupted repository; the refused replacement is recorded and the score is a failure.
func TestGoldSolverBudgetTooSmall(t *testing.T) {
	p, original := sampleProblem(t, Discovery, func(src []byte, fn task.Function) Mutant {
		m, err := Stub("go", src, fn)
		if err != nil {
			t.Fatal(err)
		}
		return m
	})
	env, runs := fakeSampleEnv(t, p, original, 1, 1, nil)
	tr, err := GoldSolver{}.Solve(context.Background(), env, p)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Calls) != 2 || !tr.Calls[0].Error || !strings.Contains(tr.Calls[0].Result, "must be a submission") || tr.Calls[1].Error {
		t.Errorf("calls = %+v", tr.Calls)
	}
	if sc := tr.Score; sc.Success || sc.Diagnosed || len(sc.Attempts) != 1 || *runs != 1 {
		t.Errorf("score = %+v", sc)
	}
	// With room for both, the same task is solved (the fake runner checks the original).
	env, _ = fakeSampleEnv(t, p, original, 2, 1, nil)
	if tr, err := (GoldSolver{}).Solve(context.Background(), env, p); err != nil || !tr.Score.Success {
		t.Errorf("gold with 2 tool uses: %+v, %v", tr.Score, err)
	}
}

// TestSolverScriptedDiscovery: a scripted model on a DISCOVERY task searches, reads the
// corrupted function, fixes it with replace_function and submits.
func TestSolverScriptedDiscovery(t *testing.T) {
	p, original := sampleProblem(t, Discovery, func(src []byte, fn task.Function) Mutant {
		m, err := Stub("go", src, fn)
		if err != nil {
			t.Fatal(err)
		}
		return m
	})
	fc := newFakeChat(t, func(n int, req chatReq) chatMsg {
		switch n {
		case 1:
			return callMsg(toolCall("s", ToolSearchCode, `{"pattern":"func Filter\\("}`), toolCall("l", ToolListFileFunctions, `{"path":"ledger/balance.go"}`))
		case 2:
			return callMsg(toolCall("r", ToolReplaceFunction, jsonArgs(t, "path", "ledger/balance.go", "name", "Filter", "code", original)))
		case 3:
			return callMsg(toolCall("t", ToolSubmitAttempt, `{}`))
		}
		return chatMsg{Content: "fixed"}
	})
	env, runs := fakeSampleEnv(t, p, original, 8, 2, nil)
	tr, err := (&Solver{Model: fc.model()}).Solve(context.Background(), env, p)
	if err != nil {
		t.Fatal(err)
	}
	reqs := fc.requests()
	if got := toolNames(reqs[0]); !reflect.DeepEqual(got, []string{ToolListDirectory, ToolSearchCode, ToolReadFile, ToolListFileFunctions, ToolReadFunction, ToolReplaceFunction, ToolSubmitAttempt}) {
		t.Errorf("DISCOVERY tools = %v", got)
	}
	if sys := reqs[0].Messages[0].Content; !strings.Contains(sys, "replace_function(path, name, code)") {
		t.Errorf("system prompt = %q", sys)
	}
	if user := reqs[0].Messages[1].Content; strings.Contains(user, "`Filter`") || !strings.Contains(user, "ledger.TestFilter/expenses") {
		t.Errorf("the DISCOVERY prompt must name the failing tests, not the function:\n%s", user)
	}
	if !strings.HasPrefix(tr.Calls[0].Result, "ledger/balance.go:") || !strings.Contains(tr.Calls[1].Result, "Filter") || tr.Calls[2].Result != "replaced Filter in ledger/balance.go" {
		t.Errorf("calls = %+v", tr.Calls)
	}
	if sc := tr.Score; !sc.Success || !sc.Diagnosed || sc.Hacked || sc.ToolUses != 4 || *runs != 1 || tr.Stop != "the model ended the conversation" {
		t.Errorf("score = %+v, stop %q", sc, tr.Stop)
	}
}

// TestGoldSolverPythonMethod: the original of a method (a nested definition) is submitted
// in the form the Env re-indents, and lands in the file exactly as it was.
func TestGoldSolverPythonMethod(t *testing.T) {
	const clean = `class Box:
    """A box."""

    def __init__(self, w, h):
        self.w = w
        self.h = h

    def area(self):
        """Return the area, 0 for a negative width."""
        if self.w < 0:
            return 0
        return self.w * self.h


def total(boxes):
    return sum(b.area() for b in boxes)
`
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "pkg"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "pkg", "shapes.py"), []byte(clean), 0o644); err != nil {
		t.Fatal(err)
	}
	var fn task.Function
	for _, f := range pyFuncs(t, "pkg/shapes.py", []byte(clean)) {
		if f.Name == "Box.area" {
			fn = f
		}
	}
	if fn.Name == "" {
		t.Fatal("no Box.area")
	}
	for _, mode := range []Mode{Remove, Discovery} {
		t.Run(string(mode), func(t *testing.T) {
			m, err := Stub("python", []byte(clean), fn)
			if err != nil {
				t.Fatal(err)
			}
			o := task.Overlay{}
			o.Set("pkg/shapes.py", m.Apply([]byte(clean)))
			patch, err := task.DiffOverlay(root, o, task.DiffOptions{})
			if err != nil {
				t.Fatal(err)
			}
			p := task.BreakpointProblem{ID: "box." + string(mode), Mode: string(mode), CorruptionPatch: string(patch.Format()), GoldPatch: string(patch.Reverse().Format()),
				Functions:  []task.CorruptedFunction{{Path: "pkg/shapes.py", Name: "Box.area", Span: fn.Def, Line: fn.Line, EndLine: fn.EndLine}},
				FailToPass: task.TestList{"tests/test_shapes.py::test_area"}, PassToPass: task.TestList{"tests/test_shapes.py::test_init"}}
			var seen []string
			r := task.RunnerFunc(func(ctx context.Context, req task.RunRequest) (*task.Report, error) {
				got := string(req.Overlay["pkg/shapes.py"].Data)
				seen = append(seen, got)
				out := task.Fail
				if got == clean {
					out = task.Pass
				}
				return &task.Report{State: task.RunOK, Tests: []task.TestResult{{ID: "tests/test_shapes.py::test_area", Outcome: out}, {ID: "tests/test_shapes.py::test_init", Outcome: task.Pass}}}, nil
			})
			env, err := NewEnv(root, p, r, EnvOptions{Langs: []callgraph.Language{python.New(python.Options{})}, Run: task.RunRequest{Kind: task.Pytest}})
			if err != nil {
				t.Fatal(err)
			}
			tr, err := GoldSolver{}.Solve(context.Background(), env, p)
			if err != nil {
				t.Fatal(err)
			}
			if len(seen) != 1 || seen[0] != clean {
				t.Fatalf("the submitted file differs from the clean one:\n%s", strings.Join(seen, "\n----\n"))
			}
			if !tr.Score.Success || !tr.Score.Diagnosed {
				t.Errorf("score = %+v", tr.Score)
			}
		})
	}
}

func TestDedentContinuation(t *testing.T) {
	for _, tc := range []struct{ def, ind, want string }{
		{"def f():\n    return 1", "", "def f():\n    return 1"},
		{"def f(self):\n        return 1", "    ", "def f(self):\n    return 1"},
		{"def f(self):\n        s = '''\nx'''\n        return s", "    ", "def f(self):\n    s = '''\nx'''\n    return s"},
		{"def f(self):\n\t\treturn 1", "\t", "def f(self):\n\treturn 1"},
	} {
		if got := dedentContinuation(tc.def, tc.ind); got != tc.want {
			t.Errorf("dedentContinuation(%q, %q) = %q, want %q", tc.def, tc.ind, got, tc.want)
		}
	}
}

// A scripted model (an httptest server speaking the chat-completions wire format) restores
// a deleted function of the sample repository: it reads the stub, then submits the
// original definition, which the sample's own tests accept.
func ExampleSolver() {
	ctx := context.Background()
	root, _ := filepath.Abs("../examples/sample")
	const path = "ledger/balance.go"
	src, err := os.ReadFile(filepath.Join(root, path))
	if err != nil {
		panic(err)
	}
	front := golang.New(golang.Options{})
	a, err := front.Analyze(ctx, []callgraph.SourceFile{{Path: path, Src: src}})
	if err != nil {
		panic(err)
	}
	var fn task.Function
	for _, d := range a.Definitions {
		if d.Name == "Filter" {
			fn = d.Function
		}
	}
	original := string(src[fn.Def.Start:fn.Def.End])

	// The task: Filter's body deleted (REMOVE).
	stub, err := Stub("go", src, fn)
	if err != nil {
		panic(err)
	}
	o := task.Overlay{}
	o.Set(path, stub.Apply(src))
	patch, err := task.DiffOverlay(root, o, task.DiffOptions{})
	if err != nil {
		panic(err)
	}
	problem := task.BreakpointProblem{ID: "sample.remove.Filter", Mode: string(Remove),
		CorruptionPatch: string(patch.Format()), GoldPatch: string(patch.Reverse().Format()),
		Functions:  []task.CorruptedFunction{{Path: path, Name: "Filter", Span: fn.Def, Line: fn.Line, EndLine: fn.EndLine}},
		FailToPass: task.TestList{"example.com/ledger/ledger.TestFilter", "example.com/ledger/ledger.TestFilter/all", "example.com/ledger/ledger.TestFilter/expenses"},
		PassToPass: task.TestList{"example.com/ledger/ledger.TestBalances"}}

	// The model's script.
	turn := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		turn++
		msg := chatMsg{Role: "assistant", Content: "Done."}
		switch turn {
		case 1:
			msg.ToolCalls = []chatToolCall{toolCall("1", ToolReadFunction, `{"path": "ledger/balance.go", "name": "Filter"}`)}
		case 2:
			args, _ := json.Marshal(map[string]string{"code": original})
			msg.ToolCalls = []chatToolCall{toolCall("2", ToolSubmitAttempt, string(args))}
		}
		json.NewEncoder(w).Encode(chatResp{Choices: []chatChoice{{Message: msg}}})
	}))
	defer srv.Close()

	runner := sandbox.NewLocal(sandbox.Options{})
	defer runner.Close()
	env, err := NewEnv(root, problem, runner, EnvOptions{MaxToolUses: 8, MaxAttempts: 2,
		Langs: []callgraph.Language{front}, Run: task.RunRequest{Kind: task.GoTest}})
	if err != nil {
		panic(err)
	}
	s := Solver{Model: &llm.OpenAI{BaseURL: srv.URL, Model: "scripted"}}
	tr, err := s.Solve(ctx, env, problem)
	if err != nil {
		panic(err)
	}
	for _, c := range tr.Calls {
		first, _, _ := strings.Cut(c.Result, "\n")
		fmt.Printf("%s: %s\n", c.Name, first)
	}
	fmt.Printf("success %v, partial %.1f, %d tool uses, %d submission(s); %s\n",
		tr.Score.Success, tr.Score.Partial, tr.Score.ToolUses, len(tr.Score.Attempts), tr.Stop)
	// Output:
	// read_function: func Filter(entries []Entry, prefix string, from, to time.Time) []Entry {
	// submit_attempt: all 4 tests passed
	// success true, partial 1.0, 2 tool uses, 1 submission(s); the model ended the conversation
}

// benchCalls is the tool sequence of the benchmarks: seven looks at the code, then the
// right submission.
func benchCalls(original string) []chatToolCall {
	code, _ := json.Marshal(map[string]string{"code": original})
	return []chatToolCall{
		toolCall("1", ToolListDirectory, `{"path":"."}`),
		toolCall("2", ToolListDirectory, `{"path":"ledger"}`),
		toolCall("3", ToolSearchCode, `{"pattern":"Filter\\("}`),
		toolCall("4", ToolReadFile, `{"path":"ledger/balance.go"}`),
		toolCall("5", ToolListFileFunctions, `{"path":"ledger/balance.go"}`),
		toolCall("6", ToolReadFunction, `{"path":"ledger/balance.go","name":"Filter"}`),
		toolCall("7", ToolReadFile, `{"path":"ledger/balance_test.go"}`),
		toolCall("8", ToolSubmitAttempt, string(code)),
	}
}

// BenchmarkSolverTrajectory runs a scripted eight-call trajectory through the Solver (HTTP
// to an httptest endpoint, JSON both ways, the growing conversation re-sent each turn) with
// a runner that does not run tests. Compare with BenchmarkEnvCallsDirect, the same calls
// made on the Env directly: the ratio is the harness's overhead per trajectory.
//
//	go test ./corrupt -run '^$' -bench 'SolverTrajectory|EnvCallsDirect' -benchmem
func BenchmarkSolverTrajectory(b *testing.B) {
	p, original := removeSampleProblem(b)
	calls := benchCalls(original)
	fc := newFakeChat(b, func(n int, req chatReq) chatMsg {
		if n <= len(calls) {
			return callMsg(calls[n-1])
		}
		return chatMsg{Content: "done"}
	})
	for b.Loop() {
		fc.mu.Lock()
		fc.reqs = fc.reqs[:0]
		fc.mu.Unlock()
		env, _ := fakeSampleEnv(b, p, original, 16, 4, nil)
		tr, err := (&Solver{Model: fc.model()}).Solve(context.Background(), env, p)
		if err != nil || !tr.Score.Success {
			b.Fatalf("%v %+v", err, tr)
		}
	}
}

// BenchmarkEnvCallsDirect makes BenchmarkSolverTrajectory's calls on the Env directly.
func BenchmarkEnvCallsDirect(b *testing.B) {
	p, original := removeSampleProblem(b)
	calls := benchCalls(original)
	for b.Loop() {
		env, _ := fakeSampleEnv(b, p, original, 16, 4, nil)
		for _, c := range calls {
			if _, err := env.Call(context.Background(), c.Function.Name, json.RawMessage(c.Function.Arguments)); err != nil {
				b.Fatal(err)
			}
		}
		if !env.Score().Success {
			b.Fatal("not solved")
		}
	}
}
