package compose

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/faultline-dev/faultline/task/llm"
)

// ErrNoPrograms is wrapped when a model's answer holds no fenced program.
var ErrNoPrograms = errors.New("compose: the model's answer holds no program")

const bugSystemPrompt = `You write realistic bugs for a debugging benchmark. You are given a correct
program with numbered lines; a line marked with * may be changed, other lines must stay
exactly as they are. Write buggy versions of the program, each with ONE bug of the asked
defect category that changes at most the asked number of consecutive marked lines, so that
the program still runs but computes a wrong result. Do not add comments or anything that
points at the bug. Answer with each buggy version as the complete program in its own
` + "```python" + ` fenced block, and nothing else.`

// bugPrompt is the user message of one request: the program with its editable lines
// marked, the category and the number of versions.
func bugPrompt(req LLMRequest) string {
	var b strings.Builder
	lines := strings.Split(req.Program, "\n")
	width := len(fmt.Sprint(len(lines)))
	for i, l := range lines {
		mark := " "
		if i < len(req.Marks) && req.Marks[i].Editable {
			mark = "*"
		}
		fmt.Fprintf(&b, "%*d%s %s\n", width, i+1, mark, l)
	}
	span := "one line"
	if req.MaxLines > 1 {
		span = fmt.Sprintf("%d consecutive lines", req.MaxLines)
	}
	return fmt.Sprintf("Program (line number, * when the line may change):\n\n%s\nWrite %d buggy version(s), each with one %s bug (ODC defect category) on at most %s.",
		b.String(), max(req.N, 1), req.Category, span)
}

// modelGenerate asks m for the programs of one LLMRequest: one chat request, the programs
// read from the answer's fenced blocks (at most req.N of them), each ending as the correct
// program ends.
func modelGenerate(ctx context.Context, m llm.Model, req LLMRequest) ([]string, error) {
	seed := int64(req.Seed & math.MaxInt64)
	resp, err := m.Chat(ctx, llm.Request{Messages: []llm.Message{
		{Role: "system", Content: bugSystemPrompt},
		{Role: "user", Content: bugPrompt(req)},
	}, Seed: &seed})
	if err != nil {
		return nil, err
	}
	progs := fencedBlocks(resp.Message.Content)
	if len(progs) == 0 {
		return nil, fmt.Errorf("%w (%d bytes)", ErrNoPrograms, len(resp.Message.Content))
	}
	if req.N > 0 && len(progs) > req.N {
		progs = progs[:req.N]
	}
	tail := req.Program[len(strings.TrimRight(req.Program, "\n")):]
	for i, p := range progs {
		progs[i] = strings.TrimRight(p, "\n") + tail
	}
	return progs, nil
}

// fencedBlocks returns the contents of the Markdown code fences of text, in order: a line
// starting with ``` opens a block and the next such line closes it. An unclosed last block
// is dropped (a truncated answer).
func fencedBlocks(text string) []string {
	var out []string
	var cur []string
	in := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			if in {
				out = append(out, strings.Join(cur, "\n"))
				cur = nil
			}
			in = !in
			continue
		}
		if in {
			cur = append(cur, strings.TrimSuffix(line, "\r"))
		}
	}
	return out
}
