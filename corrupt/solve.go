package corrupt

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/faultline-dev/faultline/task"
	"github.com/faultline-dev/faultline/task/llm"
)

// The solver harness (docs/breakpoint.md, The solver's environment and Scoring): a model driven
// through an Env by function calling, and a scripted solver that applies the gold patch
// through the same tools. Both return a Trajectory: what was said, which tools were
// called with which results, and the Env's Score at the end.

// Agent solves one Breakpoint task in an Env: *Solver (a model) and GoldSolver (the gold
// patch) are agents.
type Agent interface {
	Solve(ctx context.Context, env *Env, problem task.BreakpointProblem) (*Trajectory, error)
}

// Usage counts the tokens a trajectory used, as the endpoint reported them.
type Usage struct {
	Requests         int `json:"requests"` // chat-completions calls that were answered
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// ToolCallRecord is one tool call of a trajectory and what the solver was told.
type ToolCallRecord struct {
	Turn      int    `json:"turn"` // the model response that made the call (1-based; 0 for GoldSolver)
	ID        string `json:"id,omitempty"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	Result    string `json:"result"`
	// Error: the call was refused (invalid arguments, an unknown tool or a spent budget)
	// and Result is the error shown to the solver.
	Error bool `json:"error,omitempty"`
}

// Trajectory is the record of one solver run on one task.
type Trajectory struct {
	ProblemID  string            `json:"problem_id"`
	Mode       Mode              `json:"mode"`
	Solver     string            `json:"solver"` // the model, or "gold"
	Transcript []TranscriptEntry `json:"transcript,omitempty"`
	Calls      []ToolCallRecord  `json:"tool_calls"`
	Score      Score             `json:"score"`
	Usage      Usage             `json:"usage"`
	Turns      int               `json:"turns"` // model responses
	Stop       string            `json:"stop"`  // why the loop ended
}

// Solver drives a model through an Env (docs/breakpoint.md, The solver's environment). At every
// turn the model is offered the tools the Env allows now (Env.Tools: the list shrinks to
// the submission tool on the last tool use and to nothing once the budget is spent), and
// each tool call it makes is dispatched with Env.Call. A call the Env refuses — invalid or
// malformed arguments, an unknown tool, a spent budget (errors wrapping ErrToolArgs or
// ErrBudget) — is answered with the error's text and the conversation goes on; any other
// error of the Env (a test run that could not be started) ends the run with that error.
//
// The budgets are the Env's (EnvOptions.MaxToolUses and MaxAttempts, paper default 16/4).
// When only the submission tool remains, the request names it as the required tool choice,
// so a model that never submits is made to submit with its last tool use.
//
// The loop ends when the model answers without calling a tool, when no tool remains, when
// no submission remains (nothing it does afterwards can change the score), after MaxTurns
// model responses, or when ctx ends. Given the same model answers, the trajectory is the
// same. A Solver is a value: safe for concurrent use on different Envs.
type Solver struct {
	// Model is the solver (required; llm.FromEnv configures an OpenAI-compatible endpoint
	// from the environment). The trajectory names it by llm.Name, else by the model its
	// first answer names.
	Model llm.Model
	// Temperature, if set, is sent with every request.
	Temperature *float64
	// MaxTokens, if positive, bounds each response.
	MaxTokens int
	// MaxTurns bounds the model responses (default: twice the Env's tool uses left at the
	// start, plus 4). Refused calls do not spend the Env's budget, so this is what stops a
	// model that keeps making them.
	MaxTurns int
	// SystemPrompt replaces the default system prompt (SystemPrompt(mode)).
	SystemPrompt string
}

const solveCommonPrompt = `You are repairing a software repository whose test suite used to pass. Someone has
deliberately damaged it, and some of its tests now fail. Your goal is a repository in which
every selected test passes again.

You work only through the tools you are given: you can list directories, search the source
files, read files and read or list the functions of a file. The repository cannot be run
by you except through the submission tool, and every tool call counts against a fixed
budget of tool calls; submissions (test runs) have a smaller budget of their own. When
only one tool call is left it must be a submission, so plan ahead: read what you need,
then submit, then use the test feedback to improve.
`

const solveRemovePrompt = `
The damage: the body of the named function was deleted. Its signature, docstring and any
leading comments were kept, and the body now only stubs out a result. Reconstruct the
original implementation from its documentation, its callers, the code it should call and
the tests. Submit with submit_attempt(code), where code is the complete definition of that
function, signature included, written as it would appear in the file. Each submission
replaces the function, runs the tests and reports the failures; the repository is then
restored, so every submission must contain the whole function.

When the tests pass, or when you have nothing better to submit, stop calling tools.`

const solveDiscoveryPrompt = `
The damage: a subtle bug was introduced into one or more functions of the code base (not
into the tests). The code still compiles or parses; only its behaviour is wrong, for
example a changed comparison, a boundary off by one, a swapped argument or a removed
guard. You are told which tests fail, not where the bug is: find the damaged function from
the failing tests, the code they exercise and the rest of the repository. Fix it with
replace_function(path, name, code), giving the complete new definition; your changes stay
in place for the rest of the session. Test files cannot be changed. Run the tests with
submit_attempt(), which checks the repository as you have left it and reports the
failures. Only a repaired damaged function counts: making the tests pass some other way is
scored as a failure.

When the tests pass, or when you have nothing better to try, stop calling tools.`

// SystemPrompt returns the default system prompt of the solver for a mode.
func SystemPrompt(mode Mode) string {
	if mode == Discovery {
		return solveCommonPrompt + solveDiscoveryPrompt
	}
	return solveCommonPrompt + solveRemovePrompt
}

// solveUserPrompt states the task: the problem statement (or one written from the record),
// the failing tests with their messages (truncated), and the budgets.
func solveUserPrompt(p task.BreakpointProblem, toolUses, attempts int) string {
	var b strings.Builder
	if st := strings.TrimSpace(p.ProblemStatement); st != "" {
		b.WriteString(st)
		b.WriteString("\n")
	} else if Mode(p.Mode) == Remove {
		b.WriteString("The bodies of these functions have been removed; implement them so that the tests pass again:\n\n")
		for _, f := range p.Functions {
			fmt.Fprintf(&b, "- `%s` in `%s` (line %d)\n", f.Name, f.Path, f.Line)
		}
	} else {
		b.WriteString("A subtle bug has been introduced into the code of this repository. Find and fix it so that every test passes again.\n")
	}
	if len(p.FailToPass) > 0 {
		b.WriteString("\nFailing tests")
		const maxShown = 20
		if len(p.FailToPass) > maxShown {
			fmt.Fprintf(&b, " (%d; the first %d shown)", len(p.FailToPass), maxShown)
		}
		b.WriteString(":\n")
		for i, id := range p.FailToPass {
			if i == maxShown {
				break
			}
			fmt.Fprintf(&b, "- %s\n", id)
			if msg := strings.TrimSpace(p.FailureMessages[id]); msg != "" && i < 5 {
				b.WriteString(indentBlock(truncate(msg, 800), "    "))
				b.WriteString("\n")
			}
		}
	}
	fmt.Fprintf(&b, "\nBudget: %d tool calls, of which at most %d may be submissions. A submission runs %d tests.\n",
		toolUses, attempts, len(p.FailToPass)+len(p.PassToPass))
	return b.String()
}

func indentBlock(s, ind string) string {
	lines := strings.Split(s, "\n")
	for i := range lines {
		lines[i] = ind + lines[i]
	}
	return strings.Join(lines, "\n")
}

// checkProblem refuses a problem that is not the Env's (a programmer mistake the prompt
// would otherwise hide).
func checkProblem(env *Env, p task.BreakpointProblem) error {
	if env == nil {
		return fmt.Errorf("corrupt: solve: nil Env")
	}
	if p.ID != env.problem.ID || p.Mode != env.problem.Mode {
		return fmt.Errorf("corrupt: solve: problem %s (%s) is not the Env's problem %s (%s)", p.ID, p.Mode, env.problem.ID, env.problem.Mode)
	}
	return nil
}

func llmTools(specs []ToolSpec) []llm.Tool {
	out := make([]llm.Tool, len(specs))
	for i, s := range specs {
		out[i] = llm.Tool{Name: s.Name, Description: s.Description, Parameters: s.Parameters}
	}
	return out
}

func transcriptEntry(m llm.Message) TranscriptEntry {
	e := TranscriptEntry{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID}
	for _, tc := range m.ToolCalls {
		e.ToolCalls = append(e.ToolCalls, struct {
			ID        string `json:"id"`
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		}{tc.ID, tc.Name, tc.Arguments})
	}
	return e
}

// dispatch runs one tool call through the Env. Refusals become the text shown to the
// solver; other errors are returned.
func dispatch(ctx context.Context, env *Env, rec *ToolCallRecord) error {
	out, err := env.Call(ctx, rec.Name, json.RawMessage(rec.Arguments))
	if err != nil {
		if errors.Is(err, ErrToolArgs) || errors.Is(err, ErrBudget) {
			rec.Result, rec.Error = "error: "+err.Error(), true
			return nil
		}
		return err
	}
	rec.Result = out
	return nil
}

// Solve runs the model on problem in env (env must have been made for problem). It returns
// the trajectory, scored with env.Score, also when it returns an error: an endpoint error
// that survived the retries, an error of the Env that is not a refusal, or the end of ctx
// (the error then wraps ctx.Err(), and the trajectory holds the run so far).
func (s *Solver) Solve(ctx context.Context, env *Env, problem task.BreakpointProblem) (*Trajectory, error) {
	if err := checkProblem(env, problem); err != nil {
		return nil, err
	}
	if s.Model == nil {
		return nil, fmt.Errorf("corrupt: solve: Solver.Model: %w", llm.ErrNotConfigured)
	}
	mode := Mode(problem.Mode)
	tr := &Trajectory{ProblemID: problem.ID, Mode: mode, Solver: llm.Name(s.Model), Calls: []ToolCallRecord{}}
	finish := func(stop string, err error) (*Trajectory, error) {
		tr.Stop = stop
		tr.Score = env.Score()
		if err != nil {
			return tr, fmt.Errorf("corrupt: solve %s: %w", problem.ID, err)
		}
		return tr, nil
	}
	toolUses, attempts := env.Remaining()
	maxTurns := s.MaxTurns
	if maxTurns <= 0 {
		maxTurns = 2*toolUses + 4
	}
	system := s.SystemPrompt
	if system == "" {
		system = SystemPrompt(mode)
	}
	msgs := []llm.Message{
		{Role: "system", Content: system},
		{Role: "user", Content: solveUserPrompt(problem, toolUses, attempts)},
	}
	for _, m := range msgs {
		tr.Transcript = append(tr.Transcript, transcriptEntry(m))
	}
	for {
		if err := ctx.Err(); err != nil {
			return finish("context ended", err)
		}
		specs := env.Tools()
		if len(specs) == 0 {
			return finish("no tools remain", nil)
		}
		if _, left := env.Remaining(); left == 0 {
			return finish("no submissions remain", nil)
		}
		if tr.Turns >= maxTurns {
			return finish(fmt.Sprintf("turn limit (%d) reached", maxTurns), nil)
		}
		req := llm.Request{Messages: msgs, Tools: llmTools(specs), ToolChoice: "auto", Temperature: s.Temperature, MaxTokens: s.MaxTokens}
		if len(specs) == 1 {
			req.RequireTool = specs[0].Name
		}
		resp, err := s.Model.Chat(ctx, req)
		if err != nil {
			if ctx.Err() != nil {
				return finish("context ended", err)
			}
			return finish("endpoint error", err)
		}
		tr.Turns++
		if tr.Solver == "" {
			tr.Solver = resp.Model
		}
		tr.Usage.Requests++
		tr.Usage.PromptTokens += resp.Usage.PromptTokens
		tr.Usage.CompletionTokens += resp.Usage.CompletionTokens
		tr.Usage.TotalTokens += resp.Usage.TotalTokens
		msg := resp.Message
		msg.Role = "assistant"
		msgs = append(msgs, msg)
		tr.Transcript = append(tr.Transcript, transcriptEntry(msg))
		if len(msg.ToolCalls) == 0 {
			return finish("the model ended the conversation", nil)
		}
		for _, tc := range msg.ToolCalls {
			rec := ToolCallRecord{Turn: tr.Turns, ID: tc.ID, Name: tc.Name, Arguments: tc.Arguments}
			if err := dispatch(ctx, env, &rec); err != nil {
				tr.Calls = append(tr.Calls, rec)
				if ctx.Err() != nil {
					return finish("context ended", err)
				}
				return finish("environment error", fmt.Errorf("%s: %w", rec.Name, err))
			}
			tr.Calls = append(tr.Calls, rec)
			tm := llm.Message{Role: "tool", ToolCallID: tc.ID, Content: rec.Result}
			msgs = append(msgs, tm)
			tr.Transcript = append(tr.Transcript, transcriptEntry(tm))
		}
	}
}

// GoldSolver is the scripted oracle: it solves a task with its gold patch, through the same
// tools a model uses, and so shows that the Env can be solved and bounds what a solver can
// score. It applies the gold patch (corrupted → clean) to the corrupted files to recover each
// corrupted function's original definition, then in REMOVE submits the originals of the
// removed functions in one submission (one tool use); in DISCOVERY it replaces every
// corrupted function by its original and submits (k + 1 tool uses). A refused call (a
// budget too small for that) is recorded like a model's and the script goes on, so the
// score says what the budget allowed.
type GoldSolver struct{}

// Solve applies the gold patch of problem through env's tools.
func (GoldSolver) Solve(ctx context.Context, env *Env, problem task.BreakpointProblem) (*Trajectory, error) {
	if err := checkProblem(env, problem); err != nil {
		return nil, err
	}
	originals, err := goldDefinitions(env, problem)
	if err != nil {
		return nil, err
	}
	tr := &Trajectory{ProblemID: problem.ID, Mode: Mode(problem.Mode), Solver: "gold", Calls: []ToolCallRecord{}}
	call := func(name string, args any) error {
		data, err := json.Marshal(args)
		if err != nil {
			return err
		}
		rec := ToolCallRecord{ID: fmt.Sprintf("gold-%d", len(tr.Calls)+1), Name: name, Arguments: string(data)}
		err = dispatch(ctx, env, &rec)
		tr.Calls = append(tr.Calls, rec)
		return err
	}
	if Mode(problem.Mode) == Remove {
		err = call(ToolSubmitAttempt, map[string]string{"code": strings.Join(originals, "\n\n")})
	} else {
		for i, f := range problem.Functions {
			if err = call(ToolReplaceFunction, map[string]string{"path": f.Path, "name": f.Name, "code": originals[i]}); err != nil {
				break
			}
		}
		if err == nil {
			err = call(ToolSubmitAttempt, map[string]string{})
		}
	}
	tr.Score = env.Score()
	if err != nil {
		tr.Stop = "environment error"
		return tr, fmt.Errorf("corrupt: gold solve %s: %w", problem.ID, err)
	}
	tr.Stop = "gold patch submitted"
	return tr, nil
}

// goldDefinitions returns the original definition of each corrupted function of problem,
// read from the Env's corrupted files with the gold patch applied, in the form the Env's
// tools take: a nested definition's continuation lines are written relative to its first
// line (the Env indents them back).
func goldDefinitions(env *Env, problem task.BreakpointProblem) ([]string, error) {
	gold, err := task.ParsePatch([]byte(problem.GoldPatch))
	if err != nil {
		return nil, fmt.Errorf("corrupt: gold patch of %s: %w", problem.ID, err)
	}
	clean, err := gold.Apply(env.workingFile)
	if err != nil {
		return nil, fmt.Errorf("corrupt: gold patch of %s does not apply to the corrupted files: %w", problem.ID, err)
	}
	out := make([]string, len(problem.Functions))
	for i, f := range problem.Functions {
		ch, ok := clean[f.Path]
		if !ok || ch.Delete {
			return nil, fmt.Errorf("corrupt: gold patch of %s does not restore %s", problem.ID, f.Path)
		}
		d, err := env.locate(f.Path, f.Name, ch.Data)
		if err != nil {
			return nil, fmt.Errorf("corrupt: gold patch of %s: %w", problem.ID, err)
		}
		out[i] = dedentContinuation(string(ch.Data[d.Def.Start:d.Def.End]), indentOf(ch.Data, d.Def.Start))
	}
	return out, nil
}

// workingFile reads a file of the Env's working copy without spending a tool use.
func (e *Env) workingFile(p string) ([]byte, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	b, err := e.read(p)
	return bytes.Clone(b), err
}

// dedentContinuation removes ind from the start of every line but the first.
func dedentContinuation(def, ind string) string {
	if ind == "" {
		return def
	}
	lines := strings.Split(def, "\n")
	for i := 1; i < len(lines); i++ {
		lines[i] = strings.TrimPrefix(lines[i], ind)
	}
	return strings.Join(lines, "\n")
}
