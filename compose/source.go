package compose

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"strings"

	"github.com/faultline-dev/faultline/internal/linemut"
	"github.com/faultline-dev/faultline/task"
	"github.com/faultline-dev/faultline/task/llm"
)

// Candidate is a proposed bug of the correct program: either its forward Edits (keyed by
// lines of the correct program, as task.DiffLines(correct, buggy) would key them) or the
// whole Buggy program. The generator validates it.
type Candidate struct {
	Edits  task.Edits // forward edits correct → buggy; used when non-nil
	Buggy  string     // the buggy program; used when Edits is nil
	Source string     // "rule", "given", "llm", …
	Rule   string     // the rule, ODC category or label that produced it
}

// Request is what a BugSource is asked for.
type Request struct {
	Program string     // the correct program (normalised: task.Normalize)
	Lines   []string   // task.Lines(Program)
	Marks   []LineInfo // editable / deletable marks of Lines
	N       int        // how many validated bugs the generator wants (m1); a hint
}

// BugSource proposes candidate bugs, best first. Randomness comes only from rng.
// Implementations need not be safe for concurrent use.
type BugSource interface {
	Candidates(ctx context.Context, req Request, rng *rand.Rand) ([]Candidate, error)
}

// Rules is the default, rule-based bug source: seeded mutations of editable lines with
// linemut rules. MaxSpan > 1 also proposes multi-line bugs: spans of b ∈ [2, MaxSpan]
// consecutive editable lines, each mutated (the atomicity filter then decides).
type Rules struct {
	Rules   []linemut.Rule // nil means linemut.Default()
	MaxSpan int            // 0 or 1: single-line bugs only
	// PerRequest caps the candidates returned (0: no cap). Candidates are cheap edit
	// lists; the generator validates them in order only until it has M1 bugs.
	PerRequest int
}

// Candidates implements BugSource: every (line, mutant) pair of the editable lines, in a
// seeded random order, then (with MaxSpan > 1) seeded multi-line spans.
func (r Rules) Candidates(_ context.Context, req Request, rng *rand.Rand) ([]Candidate, error) {
	rules := r.Rules
	if rules == nil {
		rules = linemut.Default()
	}
	limit := r.PerRequest
	if limit <= 0 {
		limit = math.MaxInt
	}
	type one struct {
		line int
		m    linemut.Mutant
	}
	var singles []one
	perLine := make(map[int][]linemut.Mutant)
	for i, l := range req.Lines {
		if i >= len(req.Marks) || !req.Marks[i].Editable {
			continue
		}
		ms := linemut.All(l, linemut.Context{Deletable: req.Marks[i].Deletable}, rules)
		perLine[i+1] = ms
		for _, m := range ms {
			singles = append(singles, one{i + 1, m})
		}
	}
	rng.Shuffle(len(singles), func(a, b int) { singles[a], singles[b] = singles[b], singles[a] })
	var out []Candidate
	if r.MaxSpan <= 1 {
		for _, s := range singles {
			if len(out) == limit {
				break
			}
			out = append(out, Candidate{Edits: task.Edits{mutEdit(s.line, req.Lines[s.line-1], s.m)}, Source: "rule", Rule: s.m.Rule})
		}
		return out, nil
	}
	// Multi-line: spans at seeded start lines interleaved with single-line mutants, then
	// the remaining single-line mutants.
	var starts []int
	for l := 1; l <= len(req.Lines); l++ {
		starts = append(starts, l)
	}
	rng.Shuffle(len(starts), func(a, b int) { starts[a], starts[b] = starts[b], starts[a] })
	si := 0
	for _, st := range starts {
		if len(out) >= limit {
			break
		}
		b := 2 + rng.Intn(r.MaxSpan-1)
		var edits task.Edits
		var names []string
		ok := true
		for l := st; l < st+b; l++ {
			ms := perLine[l]
			if len(ms) == 0 || l > len(req.Lines) {
				ok = false
				break
			}
			m := ms[rng.Intn(len(ms))]
			if m.Delete || m.Insert {
				ok = false // spans change lines in place: no deletion or insertion
				break
			}
			edits = append(edits, mutEdit(l, req.Lines[l-1], m))
			names = append(names, m.Rule)
		}
		if ok {
			out = append(out, Candidate{Edits: edits, Source: "rule", Rule: fmt.Sprint(names)})
		}
		if si < len(singles) && len(out) < limit {
			s := singles[si]
			si++
			out = append(out, Candidate{Edits: task.Edits{mutEdit(s.line, req.Lines[s.line-1], s.m)}, Source: "rule", Rule: s.m.Rule})
		}
	}
	for ; si < len(singles) && len(out) < limit; si++ {
		s := singles[si]
		out = append(out, Candidate{Edits: task.Edits{mutEdit(s.line, req.Lines[s.line-1], s.m)}, Source: "rule", Rule: s.m.Rule})
	}
	return out, nil
}

func mutEdit(line int, text string, m linemut.Mutant) task.LineEdit {
	if m.Delete {
		return task.LineEdit{Line: line, Type: task.Delete, Original: text}
	}
	if m.Insert {
		return task.LineEdit{Line: line + 1, Type: task.Add, Modified: m.Line}
	}
	return task.LineEdit{Line: line, Type: task.Modify, Original: text, Modified: m.Line}
}

// Given is a fixed list of candidate bugs (for example hand-written, or taken from a
// dataset). Candidates returns them in order, ignoring rng.
type Given []Candidate

// Candidates implements BugSource.
func (g Given) Candidates(context.Context, Request, *rand.Rand) ([]Candidate, error) {
	out := make([]Candidate, len(g))
	copy(out, g)
	for i := range out {
		if out[i].Source == "" {
			out[i].Source = "given"
		}
	}
	return out, nil
}

// ODC categories with the reference's sampling weights, used to steer an LLM bug
// generator (and to label its bugs).
var ODC = []struct {
	Category string
	Weight   float64
}{
	{"Assignment", 0.1}, {"Checking", 0.2}, {"Algorithm", 0.4}, {"Build/Package/Merge", 0.2}, {"Timing/Serialization", 0.1},
}

// LLMRequest is what an LLM bug generator is asked: n buggy versions of Program, each
// with one bug of the given ODC category touching at most MaxLines consecutive editable
// lines.
type LLMRequest struct {
	Program  string
	Marks    []LineInfo
	Category string
	N        int
	MaxLines int
	Seed     uint64
}

// LLM is a bug source that asks a language model for buggy programs: Model with this
// package's prompt (the program with its editable lines marked, the sampled category, N
// versions asked, each read from a fenced block of the answer), or Generate, the caller's
// own function, which replaces the prompt when set. Each call asks for one sampled ODC
// category; Calls requests are made (default 1). The generator validates every program
// like any candidate.
type LLM struct {
	Model    llm.Model
	Generate func(ctx context.Context, req LLMRequest) ([]string, error)
	Calls    int
	MaxLines int // default 1
}

// Candidates implements BugSource.
func (l LLM) Candidates(ctx context.Context, req Request, rng *rand.Rand) ([]Candidate, error) {
	gen := l.Generate
	if gen == nil && l.Model != nil {
		gen = func(ctx context.Context, req LLMRequest) ([]string, error) { return modelGenerate(ctx, l.Model, req) }
	}
	if gen == nil {
		return nil, fmt.Errorf("compose: LLM source has neither Model nor Generate: %w", llm.ErrNotConfigured)
	}
	calls := max(l.Calls, 1)
	var out []Candidate
	for range calls {
		cat := sampleODC(rng)
		progs, err := gen(ctx, LLMRequest{Program: req.Program, Marks: req.Marks, Category: cat, N: req.N, MaxLines: max(l.MaxLines, 1), Seed: rng.Uint64()})
		if err != nil {
			return nil, fmt.Errorf("compose: LLM generator: %w", err)
		}
		for _, p := range progs {
			out = append(out, Candidate{Buggy: p, Source: "llm", Rule: cat})
		}
	}
	return out, nil
}

// RuleCategory is the ODC category of each default linemut rule, by rule name: our
// reading of which kind of defect the mutation models (a wrong value is Assignment, a
// wrong condition Checking, a wrong computation or statement Algorithm).
var RuleCategory = map[string]string{
	"flip-comparison":     "Checking",
	"negate-condition":    "Checking",
	"swap-boolean":        "Checking",
	"off-by-one":          "Assignment",
	"change-constant":     "Assignment",
	"return-value":        "Assignment",
	"swap-arithmetic":     "Algorithm",
	"swap-call-args":      "Algorithm",
	"delete-statement":    "Algorithm",
	"duplicate-statement": "Algorithm",
}

// candidateCategory is the ODC category of a candidate: an LLM candidate's requested
// category; for a rule candidate the category of its rule, or of all its rules when a
// multi-line span's rules share one; otherwise none.
func candidateCategory(c Candidate) string {
	switch c.Source {
	case "llm":
		return c.Rule
	case "rule":
		cat := ""
		for _, r := range strings.Fields(strings.Trim(c.Rule, "[]")) {
			rc := RuleCategory[r]
			if rc == "" || (cat != "" && rc != cat) {
				return ""
			}
			cat = rc
		}
		return cat
	}
	return ""
}

func sampleODC(rng *rand.Rand) string {
	x := rng.Float64()
	acc := 0.0
	for _, c := range ODC {
		acc += c.Weight
		if x < acc {
			return c.Category
		}
	}
	return ODC[len(ODC)-1].Category
}
