package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

// OpenAI speaks the OpenAI chat-completions protocol, which many providers and local
// servers offer: POST {BaseURL}/chat/completions with messages, function tools and tool
// calls. Every message passes through a Redactor before it is sent, so a secret that test
// output carries (the API key, a token of the environment) never reaches the endpoint.
// Rate limiting (HTTP 429), server errors (5xx) and transport errors are retried after the
// server's Retry-After (seconds or an HTTP date) or an exponential back-off; other non-2xx
// answers come back as *APIError; a body that is not the expected JSON, or has no choice,
// is an error wrapping ErrMalformed. It uses net/http only and is safe for concurrent use.
// Set BaseURL and Model; the other fields have defaults.
type OpenAI struct {
	// BaseURL is the API root, e.g. "https://api.openai.com/v1"; "/chat/completions" is
	// appended.
	BaseURL string
	APIKey  string // sent as a bearer token when set
	Model   string // the model asked, unless a Request names another
	// HTTPClient makes the calls (default: a client with a 5-minute time-out).
	HTTPClient *http.Client
	// MaxRetries bounds the retries of 429 and 5xx answers and transport errors (default 5;
	// negative means none).
	MaxRetries int
	// MaxBackoff caps a single wait, including a server's Retry-After (default 60 s).
	MaxBackoff time.Duration
	// Redactor removes secrets from every message before it is sent (contents and tool
	// call arguments). nil means a Redactor for APIKey and the secret-looking values of
	// the process's environment (EnvRedactor), built at each call; NewRedactor() with no
	// secrets turns redaction off.
	Redactor *Redactor

	// sleep waits between retries; nil means a context-aware timer (tests record waits).
	sleep func(ctx context.Context, d time.Duration) error
}

// Name returns c.Model (see the function Name).
func (c *OpenAI) Name() string { return c.Model }

// APIError is an endpoint's non-2xx answer that was not retried (or still failed after
// the retries).
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

// FromEnv returns an OpenAI configured from the environment: FAULTLINE_LLM_BASE_URL (else
// OPENAI_BASE_URL, else https://api.openai.com/v1), FAULTLINE_LLM_API_KEY (else
// OPENAI_API_KEY) and FAULTLINE_LLM_MODEL (else OPENAI_MODEL). Without a model it returns
// an error wrapping ErrNotConfigured that names the variables.
func FromEnv() (*OpenAI, error) {
	get := func(keys ...string) string {
		for _, k := range keys {
			if v := os.Getenv(k); v != "" {
				return v
			}
		}
		return ""
	}
	c := &OpenAI{
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

func (c *OpenAI) wait(ctx context.Context, d time.Duration) error {
	if c.sleep != nil {
		return c.sleep(ctx, d)
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

// Chat sends the request and returns the first choice of the answer, retrying rate limits
// and transient failures. Response.Model is the model the endpoint names, else the one
// asked.
func (c *OpenAI) Chat(ctx context.Context, req Request) (Response, error) {
	if c.BaseURL == "" {
		return Response{}, fmt.Errorf("%w: empty base URL", ErrNotConfigured)
	}
	if req.Model == "" {
		req.Model = c.Model
	}
	if req.Model == "" {
		return Response{}, fmt.Errorf("%w: no model", ErrNotConfigured)
	}
	body, err := json.Marshal(c.wireRequest(req))
	if err != nil {
		return Response{}, fmt.Errorf("llm: encode request: %w", err)
	}
	hc := c.HTTPClient
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
			if resp.Model == "" {
				resp.Model = req.Model
			}
			return resp, nil
		}
		if wait < 0 || attempt >= retries || ctx.Err() != nil {
			return Response{}, err
		}
		if wait == 0 {
			// Exponential back-off with jitter by attempt: 0.5 s, 1 s, 2 s, … (±25 %).
			base := time.Duration(500*(1<<attempt)) * time.Millisecond
			wait = base + time.Duration(rand.Int64N(int64(base)/2)) - base/4
		}
		wait = min(wait, maxWait)
		if serr := c.wait(ctx, wait); serr != nil {
			return Response{}, fmt.Errorf("llm: waiting to retry after %v: %w", err, serr)
		}
	}
}

// The chat-completions wire format.

type wireMessage struct {
	Role       string         `json:"role"`
	Content    *string        `json:"content"` // null for an assistant message that only calls tools
	ToolCalls  []wireToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
}

type wireToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"` // "function"
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type wireTool struct {
	Type     string `json:"type"` // "function"
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

type wireRequest struct {
	Model       string        `json:"model"`
	Messages    []wireMessage `json:"messages"`
	Tools       []wireTool    `json:"tools,omitempty"`
	ToolChoice  any           `json:"tool_choice,omitempty"` // a mode or {"type":"function","function":{"name":…}}
	Temperature *float64      `json:"temperature,omitempty"`
	MaxTokens   int           `json:"max_tokens,omitempty"`
	Seed        *int64        `json:"seed,omitempty"`
}

type wireResponse struct {
	ID      string `json:"id"`
	Model   string `json:"model"`
	Choices []struct {
		Message struct {
			Role      string         `json:"role"`
			Content   *string        `json:"content"`
			ToolCalls []wireToolCall `json:"tool_calls"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
		TotalTokens      int `json:"total_tokens"`
	} `json:"usage"`
}

// wireRequest translates req, every content and tool-call argument passed through the
// Redactor.
func (c *OpenAI) wireRequest(req Request) wireRequest {
	r := c.Redactor
	if r == nil {
		r = EnvRedactor(c.APIKey)
	}
	w := wireRequest{Model: req.Model, Messages: make([]wireMessage, len(req.Messages)),
		Temperature: req.Temperature, MaxTokens: req.MaxTokens, Seed: req.Seed}
	for i, m := range req.Messages {
		wm := wireMessage{Role: m.Role, ToolCallID: m.ToolCallID}
		if m.Content != "" || len(m.ToolCalls) == 0 {
			content := r.Redact(m.Content)
			wm.Content = &content
		}
		for _, tc := range m.ToolCalls {
			wt := wireToolCall{ID: tc.ID, Type: "function"}
			wt.Function.Name, wt.Function.Arguments = tc.Name, r.Redact(tc.Arguments)
			wm.ToolCalls = append(wm.ToolCalls, wt)
		}
		w.Messages[i] = wm
	}
	for _, t := range req.Tools {
		wt := wireTool{Type: "function"}
		wt.Function.Name, wt.Function.Description, wt.Function.Parameters = t.Name, t.Description, t.Parameters
		w.Tools = append(w.Tools, wt)
	}
	switch {
	case req.RequireTool != "":
		w.ToolChoice = map[string]any{"type": "function", "function": map[string]string{"name": req.RequireTool}}
	case req.ToolChoice != "":
		w.ToolChoice = req.ToolChoice
	}
	return w
}

// once makes one HTTP call. wait < 0 means the error is final; wait ≥ 0 means retry (after
// wait, or a back-off when 0).
func (c *OpenAI) once(ctx context.Context, hc *http.Client, url string, body []byte) (Response, time.Duration, error) {
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return Response{}, -1, fmt.Errorf("llm: %w", err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/json")
	if c.APIKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+c.APIKey)
	}
	hresp, err := hc.Do(hreq)
	if err != nil {
		if ctx.Err() != nil {
			return Response{}, -1, fmt.Errorf("llm: %w", ctx.Err())
		}
		return Response{}, 0, fmt.Errorf("llm: %w", err) // transport errors are retried
	}
	defer hresp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(hresp.Body, 64<<20))
	if err != nil {
		return Response{}, 0, fmt.Errorf("llm: reading response: %w", err)
	}
	if hresp.StatusCode/100 != 2 {
		apiErr := decodeAPIError(hresp.StatusCode, data)
		if hresp.StatusCode == http.StatusTooManyRequests || hresp.StatusCode >= 500 {
			return Response{}, retryAfter(hresp.Header.Get("Retry-After")), apiErr
		}
		return Response{}, -1, apiErr
	}
	var w wireResponse
	if err := json.Unmarshal(data, &w); err != nil {
		return Response{}, -1, fmt.Errorf("%w: %v (body starts %q)", ErrMalformed, err, prefix(data, 120))
	}
	if len(w.Choices) == 0 {
		return Response{}, -1, fmt.Errorf("%w: no choices (body starts %q)", ErrMalformed, prefix(data, 120))
	}
	ch := w.Choices[0]
	resp := Response{ID: w.ID, Model: w.Model, FinishReason: ch.FinishReason,
		Message: Message{Role: "assistant"},
		Usage:   Usage{PromptTokens: w.Usage.PromptTokens, CompletionTokens: w.Usage.CompletionTokens, TotalTokens: w.Usage.TotalTokens}}
	if ch.Message.Content != nil {
		resp.Message.Content = *ch.Message.Content
	}
	for _, tc := range ch.Message.ToolCalls {
		resp.Message.ToolCalls = append(resp.Message.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
	}
	return resp, 0, nil
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
