package llm_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/faultline-dev/faultline/task/llm"
)

// An OpenAI-compatible endpoint (here a local fake) asked with a tool: the model answers
// with a call, which the caller runs and answers with a "tool" message.
func ExampleOpenAI() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"model":"local-7b","choices":[{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,
			"tool_calls":[{"id":"c1","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"calc.py\"}"}}]}}]}`)
	}))
	defer srv.Close()

	var model llm.Model = &llm.OpenAI{BaseURL: srv.URL + "/v1", Model: "local-7b"}
	resp, err := model.Chat(context.Background(), llm.Request{
		Messages: []llm.Message{{Role: "user", Content: "What does calc.py do?"}},
		Tools: []llm.Tool{{Name: "read_file", Description: "Read a file of the repository.",
			Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}},
		ToolChoice: "auto",
	})
	if err != nil {
		panic(err)
	}
	for _, call := range resp.Message.ToolCalls {
		fmt.Println(resp.Model, "calls", call.Name, call.Arguments)
	}
	// Output: local-7b calls read_file {"path":"calc.py"}
}

// A Model need not speak HTTP: a function (a scripted double, another provider's client)
// is one through ModelFunc.
func ExampleModelFunc() {
	echo := llm.ModelFunc(func(_ context.Context, req llm.Request) (llm.Response, error) {
		last := req.Messages[len(req.Messages)-1]
		return llm.Response{Message: llm.Message{Role: "assistant", Content: "you said: " + last.Content}}, nil
	})
	resp, _ := echo.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: "user", Content: "hello"}}})
	fmt.Println(resp.Message.Content)
	// Output: you said: hello
}
