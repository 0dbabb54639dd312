package llm

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// server answers with the queued handlers in order and records every request body.
type server struct {
	mu       sync.Mutex
	answers  []func(w http.ResponseWriter)
	requests []map[string]any
	auth     []string
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
		http.Error(w, "wrong endpoint "+r.Method+" "+r.URL.Path, http.StatusNotFound)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		http.Error(w, "bad json", http.StatusBadRequest)
		return
	}
	s.requests = append(s.requests, m)
	s.auth = append(s.auth, r.Header.Get("Authorization"))
	if len(s.answers) == 0 {
		http.Error(w, "no more answers", http.StatusInternalServerError)
		return
	}
	a := s.answers[0]
	s.answers = s.answers[1:]
	a(w)
}

func jsonAnswer(status int, body string, header ...string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

const toolCallAnswer = `{"id":"chatcmpl-1","object":"chat.completion","model":"m","choices":[{"index":0,
 "message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function",
 "function":{"name":"submit_attempt","arguments":"{\"code\":\"def f():\\n    return 2\\n\"}"}}]},
 "finish_reason":"tool_calls"}],"usage":{"prompt_tokens":12,"completion_tokens":7,"total_tokens":19}}`

func newClient(t *testing.T, s *server) (*OpenAI, *[]time.Duration) {
	t.Helper()
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	var waits []time.Duration
	c := &OpenAI{BaseURL: ts.URL + "/v1/", APIKey: "sk-test", Model: "m",
		sleep: func(ctx context.Context, d time.Duration) error { waits = append(waits, d); return ctx.Err() }}
	return c, &waits
}

func TestChatToolCall(t *testing.T) {
	s := &server{answers: []func(http.ResponseWriter){jsonAnswer(200, toolCallAnswer)}}
	c, _ := newClient(t, s)
	schema := json.RawMessage(`{"type":"object","properties":{"code":{"type":"string"}},"required":["code"]}`)
	resp, err := c.Chat(context.Background(), Request{
		Messages: []Message{{Role: "system", Content: "be subtle"}, {Role: "user", Content: "corrupt f"},
			{Role: "assistant", ToolCalls: []ToolCall{{ID: "c0", Name: "read_file", Arguments: `{"path":"a.py"}`}}}, {Role: "tool", ToolCallID: "c0", Content: "2 failed"}},
		Tools:       []Tool{{Name: "submit_attempt", Description: "run the tests", Parameters: schema}},
		RequireTool: "submit_attempt",
	})
	if err != nil {
		t.Fatal(err)
	}
	calls := resp.Message.ToolCalls
	if len(calls) != 1 || calls[0].Name != "submit_attempt" || calls[0].ID != "call_1" || resp.Message.Role != "assistant" || resp.Message.Content != "" {
		t.Fatalf("tool calls = %+v", calls)
	}
	var args struct{ Code string }
	if err := json.Unmarshal([]byte(calls[0].Arguments), &args); err != nil || !strings.Contains(args.Code, "return 2") {
		t.Errorf("arguments %q: %v", calls[0].Arguments, err)
	}
	if resp.Usage != (Usage{PromptTokens: 12, CompletionTokens: 7, TotalTokens: 19}) || resp.FinishReason != "tool_calls" || resp.ID != "chatcmpl-1" || resp.Model != "m" {
		t.Errorf("response = %+v", resp)
	}
	// What went over the wire.
	req := s.requests[0]
	if req["model"] != "m" || s.auth[0] != "Bearer sk-test" {
		t.Errorf("model %v, auth %q", req["model"], s.auth[0])
	}
	msgs := req["messages"].([]any)
	if got := msgs[2].(map[string]any); got["content"] != nil {
		t.Errorf("tool-calling assistant message content = %v, want null", got["content"])
	} else if wire, _ := json.Marshal(got["tool_calls"]); string(wire) != `[{"function":{"arguments":"{\"path\":\"a.py\"}","name":"read_file"},"id":"c0","type":"function"}]` {
		t.Errorf("tool calls on the wire: %s", wire)
	}
	if got := msgs[1].(map[string]any); len(got) != 2 || got["role"] != "user" || got["content"] != "corrupt f" {
		t.Errorf("user message on the wire: %v", got)
	}
	if got := msgs[3].(map[string]any); got["tool_call_id"] != "c0" || got["content"] != "2 failed" {
		t.Errorf("tool message = %v", got)
	}
	tools := req["tools"].([]any)
	fn := tools[0].(map[string]any)["function"].(map[string]any)
	if fn["name"] != "submit_attempt" || fn["description"] != "run the tests" || fn["parameters"].(map[string]any)["type"] != "object" || tools[0].(map[string]any)["type"] != "function" {
		t.Errorf("tools = %v", tools)
	}
	if choice, _ := json.Marshal(req["tool_choice"]); string(choice) != `{"function":{"name":"submit_attempt"},"type":"function"}` {
		t.Errorf("tool_choice = %s", choice)
	}
	for _, absent := range []string{"temperature", "max_tokens", "seed"} {
		if _, ok := req[absent]; ok {
			t.Errorf("unset %s was sent: %v", absent, req[absent])
		}
	}
}

func TestChatRetriesRateLimit(t *testing.T) {
	s := &server{answers: []func(http.ResponseWriter){
		jsonAnswer(429, `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`, "Retry-After", "3"),
		jsonAnswer(503, `upstream overloaded`),
		jsonAnswer(200, toolCallAnswer),
	}}
	c, waits := newClient(t, s)
	if _, err := c.Chat(context.Background(), Request{Messages: []Message{{Role: "user", Content: "x"}}}); err != nil {
		t.Fatal(err)
	}
	if len(*waits) != 2 || (*waits)[0] != 3*time.Second {
		t.Errorf("waits = %v, want [3s, back-off]", *waits)
	}
	// The back-off doubles per attempt: the second attempt (index 1) waits 1 s ± 25 %.
	if (*waits)[1] < 750*time.Millisecond || (*waits)[1] > 1250*time.Millisecond {
		t.Errorf("back-off after the second attempt %v, want 1 s ± 25 %%", (*waits)[1])
	}
	if len(s.requests) != 3 {
		t.Errorf("%d requests, want 3", len(s.requests))
	}
}

func TestChatGivesUpAfterRetries(t *testing.T) {
	var answers []func(http.ResponseWriter)
	for i := 0; i < 4; i++ {
		answers = append(answers, jsonAnswer(429, `{"error":{"message":"slow down","type":"rate_limit"}}`, "Retry-After", "120"))
	}
	s := &server{answers: answers}
	c, waits := newClient(t, s)
	c.MaxRetries = 3
	c.MaxBackoff = 10 * time.Second
	_, err := c.Chat(context.Background(), Request{Messages: []Message{{Role: "user", Content: "x"}}})
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Status != 429 || apiErr.Message != "slow down" {
		t.Fatalf("err = %v, want the 429 APIError", err)
	}
	for _, w := range *waits {
		if w != 10*time.Second {
			t.Errorf("wait %v, want Retry-After capped at 10 s", w)
		}
	}
	if len(s.requests) != 4 {
		t.Errorf("%d requests, want 1 + 3 retries", len(s.requests))
	}
}

func TestChatErrors(t *testing.T) {
	cases := []struct {
		name   string
		answer func(http.ResponseWriter)
		check  func(error) bool
	}{
		{"bad request is final", jsonAnswer(400, `{"error":{"message":"Invalid schema for function","type":"invalid_request_error","code":null}}`),
			func(err error) bool {
				var e *APIError
				return errors.As(err, &e) && e.Status == 400 && e.Type == "invalid_request_error" && e.Code == "" && strings.Contains(e.Error(), "Invalid schema")
			}},
		{"malformed JSON", jsonAnswer(200, `{"choices":[{"message":`), func(err error) bool { return errors.Is(err, ErrMalformed) }},
		{"no choices", jsonAnswer(200, `{"id":"x","choices":[]}`), func(err error) bool { return errors.Is(err, ErrMalformed) }},
		{"HTML error page", jsonAnswer(401, `<html>Unauthorized</html>`), func(err error) bool {
			var e *APIError
			return errors.As(err, &e) && e.Status == 401 && strings.Contains(e.Message, "Unauthorized")
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := &server{answers: []func(http.ResponseWriter){c.answer}}
			cl, waits := newClient(t, s)
			_, err := cl.Chat(context.Background(), Request{Messages: []Message{{Role: "user", Content: "x"}}})
			if !c.check(err) {
				t.Errorf("err = %v", err)
			}
			if len(*waits) != 0 {
				t.Errorf("retried a final error: waits %v", *waits)
			}
		})
	}
}

func TestChatContextCancelled(t *testing.T) {
	s := &server{answers: []func(http.ResponseWriter){jsonAnswer(429, `{}`, "Retry-After", "1")}}
	c, _ := newClient(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	c.sleep = func(ctx context.Context, d time.Duration) error { cancel(); return context.Canceled }
	_, err := c.Chat(ctx, Request{Messages: []Message{{Role: "user", Content: "x"}}})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestRetryAfterDate(t *testing.T) {
	d := retryAfter(time.Now().Add(30 * time.Second).UTC().Format(http.TimeFormat))
	if d < 25*time.Second || d > 31*time.Second {
		t.Errorf("retryAfter(date) = %v", d)
	}
	if retryAfter("soon") != 0 || retryAfter("") != 0 || retryAfter("1.5") != 1500*time.Millisecond {
		t.Error("retryAfter parsing")
	}
}

func TestFromEnv(t *testing.T) {
	t.Setenv("FAULTLINE_LLM_MODEL", "")
	t.Setenv("OPENAI_MODEL", "")
	if _, err := FromEnv(); !errors.Is(err, ErrNotConfigured) {
		t.Errorf("err = %v, want ErrNotConfigured", err)
	}
	t.Setenv("FAULTLINE_LLM_MODEL", "local-model")
	t.Setenv("FAULTLINE_LLM_BASE_URL", "http://127.0.0.1:9/v1")
	t.Setenv("OPENAI_API_KEY", "k")
	c, err := FromEnv()
	if err != nil || c.Model != "local-model" || c.BaseURL != "http://127.0.0.1:9/v1" || c.APIKey != "k" {
		t.Errorf("FromEnv = %+v, %v", c, err)
	}
}
