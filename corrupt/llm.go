package corrupt

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/faultline-dev/faultline/callgraph"
	"github.com/faultline-dev/faultline/callgraph/python"
	"github.com/faultline-dev/faultline/task"
	"github.com/faultline-dev/faultline/task/llm"
	"github.com/faultline-dev/faultline/task/repo"
)

// LLMCorruptor asks a model to introduce a subtle bug into a function (docs/breakpoint.md,
// Corruption modes: DISCOVERY): the model sees the function, its path and up to five tests that
// fail when the function is deleted, and submits candidate versions through a
// submit_attempt tool that runs the tests and reports back. An attempt is acceptable when
// the tests ran without an execution error and at least MinFailures previously passing
// tests fail; the signature must be unchanged and no comment may be added (a comment can
// hint at the change).
//
// Of the acceptable attempts the one with the fewest failing tests is kept (the subtlest;
// ties keep the earliest). The reference implementation kept the last attempt.
type LLMCorruptor struct {
	// Model writes the corruptions (required; llm.FromEnv configures an OpenAI-compatible
	// endpoint from the environment).
	Model llm.Model
	// MaxSubmissions is the test budget (default 4; the paper used 3–5).
	MaxSubmissions int
	// MaxToolCalls caps the model's tool calls (default 5).
	MaxToolCalls int
	// Temperature, if set, is sent with every request.
	Temperature *float64
}

// LLMRequest is one function to corrupt.
type LLMRequest struct {
	Target *Target // the function and its file
	Lang   string  // "go" or "python"
	// Tests are the relevant tests' sources (at most five are shown).
	Tests []TestSource
	// Runner, Run, Baseline and MinFailures validate each submission (see Validate).
	Runner      task.Runner
	Run         task.RunRequest // Root and Kind set; Overlay is replaced per submission
	Baseline    Baseline
	MinFailures int
	// Checker checks a submission before its tests run (nil: none).
	Checker Checker
}

// TestSource is a test shown to the model.
type TestSource struct {
	ID     string
	Source string
}

// Submission records one submit_attempt call.
type Submission struct {
	Code       string      `json:"code"`
	Accepted   bool        `json:"accepted"`
	Reason     string      `json:"reason,omitempty"` // why it was not acceptable
	Validation *Validation `json:"validation,omitempty"`
}

// TranscriptEntry is one message of the conversation, recorded for the task.
type TranscriptEntry struct {
	Role      string `json:"role"`
	Content   string `json:"content,omitempty"`
	ToolCalls []struct {
		ID        string `json:"id"`
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"tool_calls,omitempty"`
	ToolCallID string `json:"tool_call_id,omitempty"`
}

// LLMResult is the outcome of the loop.
type LLMResult struct {
	Mutant      *Mutant           `json:"mutant,omitempty"` // the kept attempt, nil if none was acceptable
	Validation  *Validation       `json:"validation,omitempty"`
	Submissions []Submission      `json:"submissions"`
	Transcript  []TranscriptEntry `json:"transcript"`
	Model       string            `json:"model"`
	ToolCalls   int               `json:"tool_calls"`
	Stop        string            `json:"stop"` // why the loop ended
}

const corruptSystemPrompt = `You help build a debugging benchmark from a real code base whose tests pass.
Your job: rewrite ONE given function so that it keeps its exact signature and still looks
natural, but behaves subtly wrongly, so that at least %d of the repository's currently
passing tests fail.

Rules:
- Change behaviour, not the interface: the signature (name, parameters, results) stays identical.
- Do not add comments, odd strings, print statements or names that hint at the change.
- Prefer a small, plausible mistake (a boundary, an operator, a missed case, a wrong variable)
  that is hard to locate from the failing tests alone; avoid crashes and syntax errors.
- Submit your version with the submit_attempt tool, giving the complete function definition.
  Each submission runs the tests and tells you which fail. You have %d submissions.
- When you are satisfied, answer without calling a tool.`

func corruptUserPrompt(req LLMRequest) string {
	fn := req.Target.Func
	var b strings.Builder
	fmt.Fprintf(&b, "File: %s\nFunction: %s (%s)\n\n```%s\n%s\n```\n", req.Target.Path, fn.Name, req.Lang, req.Lang, req.Target.Src[fn.Def.Start:fn.Def.End])
	tests := req.Tests
	if len(tests) > 5 {
		tests = tests[:5]
	}
	if len(tests) > 0 {
		b.WriteString("\nTests that exercise it:\n")
		for _, t := range tests {
			fmt.Fprintf(&b, "\n%s\n```%s\n%s\n```\n", t.ID, req.Lang, strings.TrimRight(t.Source, "\n"))
		}
	}
	return b.String()
}

var submitSchema = json.RawMessage(`{"type":"object","properties":{"code":{"type":"string","description":"the complete new definition of the function, signature unchanged"}},"required":["code"]}`)

// Corrupt runs the loop for one function.
func (c *LLMCorruptor) Corrupt(ctx context.Context, req LLMRequest) (*LLMResult, error) {
	if req.Target == nil || req.Runner == nil {
		return nil, fmt.Errorf("corrupt: llm: Target and Runner are required")
	}
	if c.Model == nil {
		return nil, fmt.Errorf("corrupt: llm: LLMCorruptor.Model: %w", llm.ErrNotConfigured)
	}
	maxSub, maxCalls := c.MaxSubmissions, c.MaxToolCalls
	if maxSub <= 0 {
		maxSub = 4
	}
	if maxCalls <= 0 {
		maxCalls = 5
	}
	minFail := req.MinFailures
	if minFail <= 0 {
		minFail = 2
	}
	msgs := []llm.Message{
		{Role: "system", Content: fmt.Sprintf(corruptSystemPrompt, minFail, maxSub)},
		{Role: "user", Content: corruptUserPrompt(req)},
	}
	res := &LLMResult{Model: c.name()}
	tools := []llm.Tool{{Name: ToolSubmitAttempt, Description: "Replace the function by your version and run the tests.", Parameters: submitSchema}}
	record := func(m llm.Message) { res.Transcript = append(res.Transcript, transcriptEntry(m)) }
	for _, m := range msgs {
		record(m)
	}
	var best *Submission
	var bestMutant *Mutant
	for {
		if len(res.Submissions) >= maxSub {
			res.Stop = "submission budget used"
			break
		}
		if res.ToolCalls >= maxCalls {
			res.Stop = "tool-call budget used"
			break
		}
		resp, err := c.Model.Chat(ctx, llm.Request{Messages: msgs, Tools: tools, ToolChoice: "auto", Temperature: c.Temperature})
		if err != nil {
			if best != nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				res.Stop = "endpoint error: " + err.Error()
				break
			}
			return res, fmt.Errorf("corrupt: %w", err)
		}
		if res.Model == "" {
			res.Model = resp.Model
		}
		msg := resp.Message
		msg.Role = "assistant"
		msgs = append(msgs, msg)
		record(msg)
		if len(msg.ToolCalls) == 0 {
			res.Stop = "the model ended the conversation"
			break
		}
		for _, tc := range msg.ToolCalls {
			res.ToolCalls++
			reply := c.handle(ctx, req, tc, minFail, res, &best, &bestMutant, maxSub)
			tm := llm.Message{Role: "tool", ToolCallID: tc.ID, Content: reply}
			msgs = append(msgs, tm)
			record(tm)
		}
	}
	if best != nil {
		res.Mutant, res.Validation = bestMutant, best.Validation
	}
	return res, nil
}

// name is the model's name for the records (llm.Name; "" when the model has none, and
// then Corrupt records the name its answers give).
func (c *LLMCorruptor) name() string {
	if c == nil || c.Model == nil {
		return ""
	}
	return llm.Name(c.Model)
}

// handle executes one tool call and returns the text sent back to the model.
func (c *LLMCorruptor) handle(ctx context.Context, req LLMRequest, tc llm.ToolCall, minFail int, res *LLMResult, best **Submission, bestMutant **Mutant, maxSub int) string {
	if tc.Name != ToolSubmitAttempt {
		return fmt.Sprintf("error: unknown tool %q; the only tool is %s", tc.Name, ToolSubmitAttempt)
	}
	if len(res.Submissions) >= maxSub {
		return "error: no submissions left"
	}
	var args struct {
		Code string `json:"code"`
	}
	if err := json.Unmarshal([]byte(tc.Arguments), &args); err != nil || strings.TrimSpace(args.Code) == "" {
		return `error: the arguments must be a JSON object {"code": "<the complete function definition>"}`
	}
	sub := Submission{Code: args.Code}
	defer func() { res.Submissions = append(res.Submissions, sub) }()
	m, reason := c.mutantOf(req, args.Code)
	if m == nil {
		sub.Reason = reason
		return "rejected without running the tests: " + reason
	}
	if req.Checker != nil {
		ok, err := req.Checker.Accept(m, req.Target.Src)
		if err != nil || !ok {
			sub.Reason = "the new code does not compile"
			return "rejected without running the tests: the code does not parse or compile"
		}
	}
	run := req.Run
	run.Overlay = task.Overlay{}
	run.Overlay.Set(req.Target.Path, m.Apply(req.Target.Src))
	v, err := Validate(ctx, req.Runner, run, req.Baseline, minFail, 0)
	if err != nil {
		sub.Reason = err.Error()
		return "the tests could not be run: " + err.Error()
	}
	sub.Validation = v
	if !v.Accepted {
		sub.Reason = v.Reason
		if v.State != task.RunOK {
			return "execution error — the tests did not run: " + v.Reason
		}
		return fmt.Sprintf("%d test(s) fail; at least %d must fail. Failing: %s", len(v.FailToPass), minFail, strings.Join(v.FailToPass, ", "))
	}
	sub.Accepted = true
	if *best == nil || len(v.FailToPass) < len((*best).Validation.FailToPass) {
		cp := sub
		*best, *bestMutant = &cp, m
	}
	return fmt.Sprintf("accepted: %d test(s) fail: %s. You may submit a subtler version or stop.", len(v.FailToPass), strings.Join(v.FailToPass, ", "))
}

var commentRE = map[string]*regexp.Regexp{
	"python": regexp.MustCompile(`#[^\n]*`),
	"go":     regexp.MustCompile(`//[^\n]*|/\*[\s\S]*?\*/`),
}

// mutantOf turns a submitted definition into a mutant of the target, or says why not.
func (c *LLMCorruptor) mutantOf(req LLMRequest, code string) (*Mutant, string) {
	t := req.Target
	fn := t.Func
	code = strings.TrimRight(strings.Trim(code, "\n"), " \t")
	code = stripFence(code)
	orig := string(t.Src[fn.Def.Start:fn.Def.End])
	if code == orig {
		return nil, "the code is unchanged"
	}
	// The signature must be identical up to white space.
	sig := squash(string(t.Src[fn.Signature.Start:fn.Signature.End]))
	if !strings.Contains(squash(code), sig) {
		return nil, "the signature changed; keep it exactly"
	}
	if re := commentRE[req.Lang]; re != nil {
		have := map[string]bool{}
		for _, m := range re.FindAllString(orig, -1) {
			have[strings.TrimSpace(m)] = true
		}
		for _, m := range re.FindAllString(code, -1) {
			if !have[strings.TrimSpace(m)] {
				return nil, "a comment was added; do not add comments"
			}
		}
	}
	// Keep the definition's indentation (a method or nested function).
	if ind := indentOf(t.Src, fn.Def.Start); ind != "" {
		lines := strings.Split(code, "\n")
		for i := 1; i < len(lines); i++ {
			if lines[i] != "" && !strings.HasPrefix(lines[i], ind) {
				lines[i] = ind + lines[i]
			}
		}
		code = strings.TrimPrefix(strings.Join(lines, "\n"), ind)
	}
	return &Mutant{Rule: "llm", File: t.Path, Function: fn.String(), Line: fn.Line, Desc: "LLM-written corruption of " + fn.Name,
		Edits: []Edit{{Start: fn.Def.Start, End: fn.Def.End, Text: code}}}, ""
}

func squash(s string) string { return strings.Join(strings.Fields(s), " ") }

// stripFence removes a Markdown code fence a model may wrap its code in.
func stripFence(s string) string {
	if !strings.HasPrefix(s, "```") {
		return s
	}
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return strings.TrimSuffix(strings.TrimRight(s, "\n"), "```")
}

// testSources returns the source of each test id's function, read from the repository at
// root: Go ids `import/path.TestName/sub` are looked up in the package's _test.go files by
// the directory whose files declare them; pytest ids `path.py::Class::test[param]` in their
// file. Tests whose source cannot be found are left out.
func testSources(root string, ids []string, lang string, read func(string) ([]byte, error), limit int) []TestSource {
	var out []TestSource
	seen := map[string]bool{}
	for _, id := range ids {
		if len(out) == limit {
			break
		}
		var file, name string
		switch lang {
		case "python":
			parts := strings.Split(id, "::")
			if len(parts) < 2 {
				continue
			}
			file = parts[0]
			last := parts[len(parts)-1]
			if i := strings.IndexByte(last, '['); i >= 0 {
				last = last[:i]
			}
			name = strings.Join(append(parts[1:len(parts)-1], last), ".")
		case "go":
			// import/path.TestName/sub: the import path may hold dots and slashes, so split
			// at ".Test" (Go test functions start with Test).
			i := strings.Index(id, ".Test")
			if i < 0 {
				continue
			}
			file, name = id[:i], id[i+1:]
			if j := strings.IndexByte(name, '/'); j >= 0 {
				name = name[:j]
			}
		}
		if name == "" || seen[file+"::"+name] {
			continue
		}
		seen[file+"::"+name] = true
		if src, ok := findTest(root, lang, file, name, read); ok {
			out = append(out, TestSource{ID: id, Source: src})
		}
	}
	return out
}

// findTest finds the definition of a test function.
func findTest(root, lang, file, name string, read func(string) ([]byte, error)) (string, bool) {
	switch lang {
	case "python":
		src, err := read(file)
		if err != nil {
			return "", false
		}
		a, err := python.New(python.Options{}).Analyze(context.Background(), []callgraph.SourceFile{{Path: file, Src: src}})
		if err != nil {
			return "", false
		}
		for _, d := range a.Definitions {
			if d.Name == name {
				return string(src[d.Def.Start:d.Def.End]), true
			}
		}
	case "go":
		// file is the import path; its last elements name a directory under root.
		mod := repo.ReadGoMod(filepath.Join(root, "go.mod")).Path
		rel := strings.TrimPrefix(strings.TrimPrefix(file, mod), "/")
		if mod == "" || (rel == file && file != mod) {
			return "", false
		}
		dir := filepath.Join(root, filepath.FromSlash(rel))
		ents, err := os.ReadDir(dir)
		if err != nil {
			return "", false
		}
		for _, e := range ents {
			if !strings.HasSuffix(e.Name(), "_test.go") {
				continue
			}
			p := path.Join(rel, e.Name())
			src, err := read(p)
			if err != nil {
				continue
			}
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, p, src, parser.SkipObjectResolution)
			if err != nil {
				continue
			}
			tf := fset.File(f.Pos())
			for _, d := range f.Decls {
				if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == name {
					return string(src[tf.Offset(fd.Pos()):tf.Offset(fd.End())]), true
				}
			}
		}
	}
	return "", false
}
