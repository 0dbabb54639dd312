package artifact

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/faultline-dev/faultline/internal/pylex"
	"github.com/faultline-dev/faultline/task/llm"
)

// ErrEmptyDocstring is wrapped when the model answers with no usable text.
var ErrEmptyDocstring = errors.New("artifact: the model wrote no docstring")

// LLMDocstrings is a DocstringGenerator that asks a chat model to describe an object from
// its source. It sends one request per object, with temperature 0 and the seed when set,
// and returns the answer without code fences or quotes around it. It is safe for concurrent
// use (a Model must be).
type LLMDocstrings struct {
	// Model writes the docstrings (required; llm.FromEnv configures an OpenAI-compatible
	// endpoint from the environment).
	Model llm.Model
	// Seed is sent with every request when non-nil (providers that honour it answer
	// reproducibly).
	Seed *int64
	// MaxTokens bounds the answer (default 400).
	MaxTokens int
}

const docstringSystem = "You write concise, accurate docstrings for code. Describe what the object does, its " +
	"parameters and its return value, as a developer would need to re-implement it. Answer with the " +
	"docstring text only: no code, no quotes, no markdown fences."

// Docstring implements DocstringGenerator.
func (g *LLMDocstrings) Docstring(ctx context.Context, obj Interface) (string, error) {
	if g.Model == nil {
		return "", fmt.Errorf("artifact: LLMDocstrings.Model: %w", llm.ErrNotConfigured)
	}
	maxTok := g.MaxTokens
	if maxTok <= 0 {
		maxTok = 400
	}
	zero := 0.0
	user := fmt.Sprintf("Write the docstring of the %s %s `%s` defined in `%s` (imported with `%s`).\n\nSource:\n```%s\n%s\n```",
		obj.Language, obj.Kind, obj.Name, obj.File, obj.Import, obj.Language, obj.Source)
	resp, err := g.Model.Chat(ctx, llm.Request{
		Messages: []llm.Message{
			{Role: "system", Content: docstringSystem},
			{Role: "user", Content: user},
		},
		Temperature: &zero,
		MaxTokens:   maxTok,
		Seed:        g.Seed,
	})
	if err != nil {
		return "", fmt.Errorf("artifact: docstring: %w", err)
	}
	text := cleanAnswer(resp.Message.Content)
	if text == "" {
		return "", ErrEmptyDocstring
	}
	return text, nil
}

// cleanAnswer strips a surrounding markdown fence and docstring quotes from a model's
// answer.
func cleanAnswer(s string) string {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "```") {
		if nl := strings.IndexByte(s, '\n'); nl >= 0 {
			s = s[nl+1:]
		} else {
			s = ""
		}
		s = strings.TrimSuffix(strings.TrimSpace(s), "```")
		s = strings.TrimSpace(s)
	}
	for _, q := range []string{`"""`, `'''`} {
		if len(s) >= 6 && strings.HasPrefix(s, q) && strings.HasSuffix(s, q) {
			s = strings.TrimSpace(s[3 : len(s)-3])
		}
	}
	return pylex.Cleandoc(s)
}
