// Package llm is a minimal client for OpenAI-compatible chat-completions endpoints
// (POST {base}/chat/completions) with function calling, used by the LLM corruption loop
// (package corrupt) and the LLM classifier and docstring generator (package extract).
//
// It speaks the wire format only: messages, tools, tool calls, usage. Every message passes
// through a Redactor before it is sent, so a secret that test output carries (the API key,
// a token of the environment) never reaches the endpoint. Rate limiting
// (HTTP 429) and transient server errors (5xx) are retried after the server's Retry-After
// (seconds or an HTTP date) or an exponential back-off; other non-2xx answers come back as
// *APIError; a body that is not the expected JSON is an error wrapping ErrMalformed. It
// uses net/http only and is safe for concurrent use.
package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

// Message is one chat message. Content is empty for an assistant message that only calls
// tools (it is sent as null then).
type Message struct {
	Role       string     `json:"role"` // system, user, assistant, tool
	Content    string     `json:"content"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"` // for role "tool"
	Name       string     `json:"name,omitempty"`
}

// MarshalJSON sends an empty Content of a tool-calling assistant message as null, as the
// API expects.
func (m Message) MarshalJSON() ([]byte, error) {
	type plain Message
	if m.Content == "" && len(m.ToolCalls) > 0 {
		return json.Marshal(struct {
			plain
			Content *string `json:"content"`
		}{plain: plain(m)})
	}
	return json.Marshal(plain(m))
}

// ToolCall is a function call the model asked for. Arguments is a JSON text produced by the
// model: it may be malformed, and callers must validate it.
type ToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"` // "function"
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// Tool declares a function the model may call. Parameters is a JSON Schema object.
type Tool struct {
	Type     string       `json:"type"` // "function"
	Function FunctionSpec `json:"function"`
}

// FunctionSpec describes a callable function.
type FunctionSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

// NewTool returns a function tool with the given JSON Schema for its parameters.
func NewTool(name, description string, schema json.RawMessage) Tool {
	return Tool{Type: "function", Function: FunctionSpec{Name: name, Description: description, Parameters: schema}}
}

// Request is a chat-completions request. Model defaults to the client's.
type Request struct {
	Model       string    `json:"model"`
	Messages    []Message `json:"messages"`
	Tools       []Tool    `json:"tools,omitempty"`
	ToolChoice  any       `json:"tool_choice,omitempty"` // "auto", "none", "required" or a function choice
	Temperature *float64  `json:"temperature,omitempty"`
	MaxTokens   int       `json:"max_tokens,omitempty"`
	Seed        *int64    `json:"seed,omitempty"`
}

// Response is a chat-completions response.
type Response struct {
	ID      string   `json:"id"`
	Model   string   `json:"model"`
	Choices []Choice `json:"choices"`
	Usage   Usage    `json:"usage"`
}

// Choice is one completion.
type Choice struct {
	Index        int     `json:"index"`
	Message      Message `json:"message"`
	FinishReason string  `json:"finish_reason"`
}

// Usage counts tokens.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// ErrMalformed is wrapped when the endpoint's answer is not the expected JSON.
var ErrMalformed = errors.New("llm: malformed response")

// ErrNotConfigured is returned by FromEnv when no endpoint or model is configured.
var ErrNotConfigured = errors.New("llm: no endpoint configured")

// APIError is a non-2xx answer that was not retried (or still failed after the retries).
type APIError struct {
	Status  int
	Type    string
	Code    string
	Message string
}

func (e *APIError) Error() string {
	msg := e.Message
	if msg == "" {
		msg = http.StatusText(e.Status)
	}
	if e.Type != "" {
		return fmt.Sprintf("llm: HTTP %d (%s): %s", e.Status, e.Type, msg)
	}
	return fmt.Sprintf("llm: HTTP %d: %s", e.Status, msg)
}

// Client calls one endpoint. The zero value is not usable: set BaseURL and Model.
type Client struct {
	// BaseURL is the API root, e.g. "https://host/v1"; "/chat/completions" is appended.
	BaseURL string
	APIKey  string
	Model   string
	// HTTP is the client used (default: a client with a 5-minute timeout).
	HTTP *http.Client
	// MaxRetries bounds the retries of 429 and 5xx answers and transport errors (default 5;
	// negative means none).
	MaxRetries int
	// MaxBackoff caps a single wait, including a server's Retry-After (default 60 s).
	MaxBackoff time.Duration
	// Sleep waits between retries; nil means a context-aware time.Sleep (tests inject a
	// recorder).
	Sleep func(ctx context.Context, d time.Duration) error
	// Redactor removes secrets from every message before it is sent (contents and tool
	// call arguments). nil means a Redactor for APIKey and the secret-looking values of
	// the process's environment (SecretsFromEnv), built at each call; NewRedactor() with
	// no secrets turns redaction off.
	Redactor *Redactor
}

// FromEnv returns a client configured from the environment: FAULTLINE_LLM_BASE_URL (else
// OPENAI_BASE_URL, else https://api.openai.com/v1), FAULTLINE_LLM_API_KEY (else
// OPENAI_API_KEY) and FAULTLINE_LLM_MODEL (else OPENAI_MODEL). Without a model it returns
// ErrNotConfigured.
func FromEnv() (*Client, error) {
	get := func(keys ...string) string {
		for _, k := range keys {
			if v := os.Getenv(k); v != "" {
				return v
			}
		}
		return ""
	}
	c := &Client{
		BaseURL: get("FAULTLINE_LLM_BASE_URL", "OPENAI_BASE_URL"),
		APIKey:  get("FAULTLINE_LLM_API_KEY", "OPENAI_API_KEY"),
		Model:   get("FAULTLINE_LLM_MODEL", "OPENAI_MODEL"),
	}
	if c.BaseURL == "" {
		c.BaseURL = "https://api.openai.com/v1"
	}
	if c.Model == "" {
		return nil, fmt.Errorf("%w: set FAULTLINE_LLM_MODEL (and FAULTLINE_LLM_BASE_URL, FAULTLINE_LLM_API_KEY)", ErrNotConfigured)
	}
	return c, nil
}

func (c *Client) sleep(ctx context.Context, d time.Duration) error {
	if c.Sleep != nil {
		return c.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Chat sends the request and returns the decoded response, retrying rate limits and
// transient failures. A response without choices is an error wrapping ErrMalformed.
func (c *Client) Chat(ctx context.Context, req Request) (*Response, error) {
	if c.BaseURL == "" {
		return nil, fmt.Errorf("%w: empty base URL", ErrNotConfigured)
	}
	if req.Model == "" {
		req.Model = c.Model
	}
	if req.Model == "" {
		return nil, fmt.Errorf("%w: no model", ErrNotConfigured)
	}
	req.Messages = c.redact(req.Messages)
	body, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("llm: encode request: %w", err)
	}
	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 5 * time.Minute}
	}
	retries := c.MaxRetries
	if retries == 0 {
		retries = 5
	}
	maxWait := c.MaxBackoff
	if maxWait <= 0 {
		maxWait = time.Minute
	}
	url := strings.TrimRight(c.BaseURL, "/") + "/chat/completions"
	for attempt := 0; ; attempt++ {
		resp, wait, err := c.once(ctx, hc, url, body)
		if err == nil {
			return resp, nil
		}
		if wait < 0 || attempt >= retries || ctx.Err() != nil {
			return nil, err
		}
		if wait == 0 {
			// Exponential back-off with jitter by attempt: 0.5 s, 1 s, 2 s, … (±25 %).
			base := time.Duration(500*(1<<attempt)) * time.Millisecond
			wait = base + time.Duration(rand.Int64N(int64(base)/2)) - base/4
		}
		wait = min(wait, maxWait)
		if serr := c.sleep(ctx, wait); serr != nil {
			return nil, fmt.Errorf("llm: waiting to retry after %v: %w", err, serr)
		}
	}
}

// redact returns a copy of msgs with every content and tool-call argument passed through
// the client's Redactor.
func (c *Client) redact(msgs []Message) []Message {
	r := c.Redactor
	if r == nil {
		r = EnvRedactor(c.APIKey)
	}
	if !r.Secrets() {
		return msgs
	}
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		m.Content = r.Redact(m.Content)
		if len(m.ToolCalls) > 0 {
			calls := append([]ToolCall(nil), m.ToolCalls...)
			for j := range calls {
				calls[j].Function.Arguments = r.Redact(calls[j].Function.Arguments)
			}
			m.ToolCalls = calls
		}
		out[i] = m
	}
	return out
}

// once makes one HTTP call. wait < 0 means the error is final; wait ≥ 0 means retry (after
// wait, or a back-off when 0).
func (c *Client) once(ctx context.Context, hc *http.Client, url string, body []byte) (*Response, time.Duration, error) {
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, -1, fmt.Errorf("llm: %w", err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/json")
	if c.APIKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+c.APIKey)
	}
	hresp, err := hc.Do(hreq)
	if err != nil {
		if ctx.Err() != nil {
			return nil, -1, fmt.Errorf("llm: %w", ctx.Err())
		}
		return nil, 0, fmt.Errorf("llm: %w", err) // transport errors are retried
	}
	defer hresp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(hresp.Body, 64<<20))
	if err != nil {
		return nil, 0, fmt.Errorf("llm: reading response: %w", err)
	}
	if hresp.StatusCode/100 != 2 {
		apiErr := decodeAPIError(hresp.StatusCode, data)
		if hresp.StatusCode == http.StatusTooManyRequests || hresp.StatusCode >= 500 {
			return nil, retryAfter(hresp.Header.Get("Retry-After")), apiErr
		}
		return nil, -1, apiErr
	}
	var resp Response
	if err := json.Unmarshal(data, &resp); err != nil {
		return nil, -1, fmt.Errorf("%w: %v (body starts %q)", ErrMalformed, err, prefix(data, 120))
	}
	if len(resp.Choices) == 0 {
		return nil, -1, fmt.Errorf("%w: no choices (body starts %q)", ErrMalformed, prefix(data, 120))
	}
	return &resp, 0, nil
}

func decodeAPIError(status int, data []byte) *APIError {
	e := &APIError{Status: status}
	var body struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(data, &body) == nil && len(body.Error) > 0 {
		var obj struct {
			Message string          `json:"message"`
			Type    string          `json:"type"`
			Code    json.RawMessage `json:"code"`
		}
		if json.Unmarshal(body.Error, &obj) == nil {
			e.Message, e.Type = obj.Message, obj.Type
			e.Code = strings.Trim(string(obj.Code), `"`)
			if e.Code == "null" {
				e.Code = ""
			}
		} else {
			var s string
			if json.Unmarshal(body.Error, &s) == nil {
				e.Message = s
			}
		}
	}
	if e.Message == "" {
		e.Message = prefix(data, 200)
	}
	return e
}

// retryAfter parses a Retry-After header: delay seconds or an HTTP date. 0 means absent.
func retryAfter(h string) time.Duration {
	h = strings.TrimSpace(h)
	if h == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(h, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(h); err == nil {
		if d := time.Until(t); d > 0 {
			return d
		}
	}
	return 0
}

func prefix(b []byte, n int) string {
	if len(b) > n {
		b = b[:n]
	}
	return string(b)
}
