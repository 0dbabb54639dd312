package compose

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/task/llm"
)

// TestLLMSourceModel: a Model answering in fenced blocks feeds the generator; the prompt
// marks the editable lines and names the category and the number of versions.
func TestLLMSourceModel(t *testing.T) {
	var reqs []llm.Request
	model := llm.ModelFunc(func(_ context.Context, req llm.Request) (llm.Response, error) {
		reqs = append(reqs, req)
		buggy := strings.Replace(small, "x + 1", "x + 3", 1)
		other := strings.Replace(small, "a * 2", "a * 3", 1)
		answer := "Here you are.\n```python\n" + strings.TrimRight(buggy, "\n") + "\n```\n\n```\n" + other + "```\n```python\ntruncated"
		return llm.Response{Message: llm.Message{Role: "assistant", Content: answer}}, nil
	})
	res, err := Generate(context.Background(), small, smallOracle, Options{Source: LLM{Model: model}, Seed: 9, KMax: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	req := reqs[0]
	if len(req.Messages) != 2 || req.Messages[0].Role != "system" || req.Seed == nil {
		t.Fatalf("request %+v", req)
	}
	user := req.Messages[1].Content
	for _, want := range []string{"1  def f(x):", "2*     a = x + 1", "4*     return b", "Write 20 buggy version(s)", "on at most one line."} {
		if !strings.Contains(user, want) {
			t.Errorf("prompt lacks %q:\n%s", want, user)
		}
	}
	cat := res.Pool[0].Rule
	if !strings.Contains(user, "one "+cat+" bug") {
		t.Errorf("prompt does not ask for the pool's category %q:\n%s", cat, user)
	}
	// Both fenced programs are candidates and bugs (the truncated third is dropped).
	var got []string
	for _, b := range res.Pool {
		if b.Source != "llm" {
			t.Errorf("bug source %q", b.Source)
		}
		got = append(got, b.Edits[0].Modified)
	}
	if strings.Join(got, "|") != "    a = x + 3|    b = a * 3" {
		t.Errorf("pool modifications %q", got)
	}
	if res.Stats.Candidates != 2 {
		t.Errorf("%d candidates, want the 2 fenced programs", res.Stats.Candidates)
	}
}

func TestLLMSourceModelErrors(t *testing.T) {
	prose := llm.ModelFunc(func(context.Context, llm.Request) (llm.Response, error) {
		return llm.Response{Message: llm.Message{Content: "I cannot do that."}}, nil
	})
	if _, err := Generate(context.Background(), small, smallOracle, Options{Source: LLM{Model: prose}}); !errors.Is(err, ErrNoPrograms) {
		t.Errorf("prose answer: err = %v, want ErrNoPrograms", err)
	}
	if _, err := Generate(context.Background(), small, smallOracle, Options{Source: LLM{}}); !errors.Is(err, llm.ErrNotConfigured) {
		t.Errorf("no model: err = %v, want llm.ErrNotConfigured", err)
	}
}
