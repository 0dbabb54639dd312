// Package llm is faultline's one way to talk to a language model. Every component that
// asks a model something — the LLM corruption loop and the solver of package corrupt, the
// classifier of package extract, the docstring writer of extract/artifact and the bug
// source of package compose — takes a Model, a one-method interface: a chat request
// (messages, tools the model may call, sampling options) in, the model's next message out.
//
// OpenAI implements Model for any OpenAI-compatible chat-completions endpoint
// (POST {BaseURL}/chat/completions with function calling), with retries, time-outs and a
// Redactor that keeps the process's secrets out of what is sent; FromEnv configures one
// from FAULTLINE_LLM_BASE_URL, FAULTLINE_LLM_API_KEY and FAULTLINE_LLM_MODEL. Another
// provider, a local model or a scripted test double is a Model through ModelFunc or a type
// of the caller's.
//
// The package uses the standard library only.
package llm

import (
	"context"
	"encoding/json"
	"errors"
)

// Model is a chat model. Chat returns the model's next message in the conversation
// req.Messages; when req.Tools is set the message may call some of them (ToolCalls), and
// the caller answers each call with a message of role "tool". Implementations must be safe
// for concurrent use: components call one Model from several goroutines.
type Model interface {
	Chat(ctx context.Context, req Request) (Response, error)
}

// ModelFunc adapts a function to the Model interface.
type ModelFunc func(ctx context.Context, req Request) (Response, error)

// Chat calls f.
func (f ModelFunc) Chat(ctx context.Context, req Request) (Response, error) { return f(ctx, req) }

// Message is one message of a conversation.
type Message struct {
	Role    string // "system", "user", "assistant" or "tool" (the answer to a tool call)
	Content string // may be empty for an assistant message that only calls tools
	// ToolCalls are the calls an assistant message makes.
	ToolCalls []ToolCall
	// ToolCallID is, in a message of role "tool", the ToolCall.ID it answers.
	ToolCallID string
}

// ToolCall is one call of a tool the model asked for. Arguments is a JSON text written by
// the model: it may be malformed, and callers must validate it.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string
}

// Tool declares a function the model may call. Parameters is the JSON Schema of its
// arguments object.
type Tool struct {
	Name        string
	Description string
	Parameters  json.RawMessage
}

// Request is one chat request.
type Request struct {
	// Model overrides the Model's own choice of model when set (OpenAI: its Model field).
	Model    string
	Messages []Message
	Tools    []Tool
	// ToolChoice is "auto", "none" or "required"; "" leaves it to the endpoint (which
	// chooses auto when tools are offered). RequireTool overrides it.
	ToolChoice string
	// RequireTool, when set, names the tool the model must call in its answer.
	RequireTool string
	// Temperature, MaxTokens (when positive) and Seed are sent when set.
	Temperature *float64
	MaxTokens   int
	Seed        *int64
}

// Response is the model's answer.
type Response struct {
	Message Message // the model's next message (role "assistant")
	// FinishReason is the endpoint's reason to stop ("stop", "tool_calls", "length"), when
	// it gives one.
	FinishReason string
	// Model is the model that answered, as the endpoint names it.
	Model string
	ID    string // the endpoint's id of the response, when it gives one
	Usage Usage
}

// Usage counts the tokens of one request, as the endpoint reported them.
type Usage struct {
	PromptTokens     int
	CompletionTokens int
	TotalTokens      int
}

// ErrNotConfigured is returned when no endpoint or model is configured (FromEnv without
// FAULTLINE_LLM_MODEL, an OpenAI without BaseURL or Model, a component without a Model).
var ErrNotConfigured = errors.New("llm: no endpoint configured")

// ErrMalformed is wrapped when an endpoint's answer is not what the protocol says.
var ErrMalformed = errors.New("llm: malformed response")

// Name returns the name of m's model for records (a task's model field, a trajectory's
// solver): m.Name() when m has that method (*OpenAI does: its Model field), otherwise "".
func Name(m Model) string {
	if n, ok := m.(interface{ Name() string }); ok {
		return n.Name()
	}
	return ""
}
