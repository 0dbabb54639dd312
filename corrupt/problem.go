package corrupt

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"

	"github.com/faultline-dev/faultline/task"
)

// Problem returns the task record of r (docs/breakpoint.md, Records) for the repository
// identified by repo (e.g. "owner/name", or a directory name) at commit. The ID is
// `{repo}.{mode}.{seed}.{index}.{hash8}` with "/" in repo replaced by "__" and hash8 the
// first 8 hex digits of the SHA-256 of the corruption patch, so it is stable for the same
// inputs and seed.
func (r Result) Problem(repo, commit string) task.BreakpointProblem {
	sum := sha256.Sum256([]byte(r.Patch))
	p := task.BreakpointProblem{
		ID:              fmt.Sprintf("%s.%s.%d.%d.%s", strings.ReplaceAll(repo, "/", "__"), r.Mode, r.Seed, r.Index, hex.EncodeToString(sum[:4])),
		Repo:            repo,
		Commit:          commit,
		Mode:            string(r.Mode),
		CorruptionPatch: r.Patch,
		GoldPatch:       r.Gold,
		Seed:            r.Seed,
		Model:           r.Model,
		FailToPass:      task.TestList(append([]string{}, r.Validation.FailToPass...)),
		PassToPass:      task.TestList(append([]string{}, r.Validation.PassToPass...)),
	}
	if len(r.Validation.NotRun) > 0 {
		p.NotRun = task.TestList(append([]string{}, r.Validation.NotRun...))
	}
	if len(r.Validation.OnlyWithOthers) > 0 {
		p.OnlyWithOthers = task.TestList(append([]string{}, r.Validation.OnlyWithOthers...))
	}
	rules := map[string]bool{}
	for _, f := range r.Functions {
		metrics := map[string]float64{}
		for k, v := range f.Metrics {
			metrics[k] = v
		}
		metrics["code_lines"] = float64(f.CodeLines)
		p.Functions = append(p.Functions, task.CorruptedFunction{Path: f.Path, Name: f.Name, Span: f.Span, Line: f.Line, EndLine: f.EndLine, Metrics: metrics})
		rules[f.Rule] = true
	}
	var rs []string
	for k := range rules {
		rs = append(rs, k)
	}
	sort.Strings(rs)
	p.Rule = strings.Join(rs, "+")
	if len(r.Validation.FailToPass) > 0 {
		p.FailureMessages = map[string]string{}
		for i, id := range r.Validation.FailToPass {
			p.FailureMessages[id] = r.Validation.Messages[i]
		}
	}
	p.ProblemStatement = r.Statement()
	return p
}

// Statement writes the task's problem statement. REMOVE names the functions to implement
// (their bodies are gone; signatures and docstrings remain). DISCOVERY names only the
// failing tests, as the paper's solvers get them: finding the corrupted function is the
// task.
func (r Result) Statement() string {
	var b strings.Builder
	switch r.Mode {
	case Remove:
		if len(r.Functions) == 1 {
			f := r.Functions[0]
			fmt.Fprintf(&b, "The body of `%s` in `%s` (line %d) has been removed. Implement it so that the repository's tests pass again.\n", f.Name, f.Path, f.Line)
		} else {
			b.WriteString("The bodies of these functions have been removed. Implement them so that the repository's tests pass again:\n\n")
			for _, f := range r.Functions {
				fmt.Fprintf(&b, "- `%s` in `%s` (line %d)\n", f.Name, f.Path, f.Line)
			}
		}
		b.WriteString("\nThe signatures, docstrings and comments are intact; use them and the rest of the code base to recover the intended behaviour.\n")
	default:
		n := len(r.Functions)
		if n == 1 {
			b.WriteString("A subtle bug has been introduced into one function of this repository. ")
		} else {
			fmt.Fprintf(&b, "Subtle bugs have been introduced into %d functions of this repository. ", n)
		}
		b.WriteString("Find and fix it so that every test passes again. These tests fail:\n\n")
		for _, id := range r.Validation.FailToPass {
			fmt.Fprintf(&b, "- `%s`\n", id)
		}
	}
	return b.String()
}
