package llm

import (
	"context"
	"errors"
	"testing"
)

func TestModelFuncAndName(t *testing.T) {
	var got Request
	var m Model = ModelFunc(func(_ context.Context, req Request) (Response, error) {
		got = req
		return Response{Message: Message{Role: "assistant", Content: "echo " + req.Messages[0].Content}}, nil
	})
	resp, err := m.Chat(context.Background(), Request{Messages: []Message{{Role: "user", Content: "hi"}}, ToolChoice: "none"})
	if err != nil || resp.Message.Content != "echo hi" || got.ToolChoice != "none" {
		t.Fatalf("ModelFunc: %+v, %v (request %+v)", resp, err, got)
	}
	if n := Name(m); n != "" {
		t.Errorf("Name(ModelFunc) = %q, want empty", n)
	}
	if n := Name(&OpenAI{Model: "gpt-x"}); n != "gpt-x" {
		t.Errorf("Name(OpenAI) = %q", n)
	}
}

func TestOpenAINotConfigured(t *testing.T) {
	req := Request{Messages: []Message{{Role: "user", Content: "x"}}}
	for _, c := range []*OpenAI{{Model: "m"}, {BaseURL: "http://127.0.0.1:9/v1"}} {
		if _, err := c.Chat(context.Background(), req); !errors.Is(err, ErrNotConfigured) {
			t.Errorf("%+v: err = %v, want ErrNotConfigured", c, err)
		}
	}
}
