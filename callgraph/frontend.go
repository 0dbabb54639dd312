package callgraph

import (
	"context"
	"fmt"
	"math"

	"github.com/faultline-dev/faultline/task"
)

// SourceFile is one file handed to a language front end.
type SourceFile struct {
	Path string // slash path relative to the repository root
	Src  []byte
}

// Language is a language front end: it finds the definitions in a set of files of its
// language, resolves the call sites it can, and measures each definition's complexity.
// Front ends are values the caller lists (see Build); they are configured when constructed
// (for example the Python front end's unique-name fallback) and must be safe for concurrent
// use.
type Language interface {
	// Name is the language's short name: "python", "go", "javascript", ...
	Name() string
	// Match reports whether the front end claims a file, by its slash path.
	Match(path string) bool
	// Analyze analyses all files of the language at once (resolution is cross-file). A file
	// with syntax errors yields partial results and a *SyntaxError in Analysis.Errors; the
	// error result is for failures of the front end itself (context cancelled).
	Analyze(ctx context.Context, files []SourceFile) (*Analysis, error)
}

// Analysis is what a front end reports for a set of files.
type Analysis struct {
	// Definitions in file order, then source order. Module pseudo-definitions (Kind
	// task.KindModule, ID `path::<module>`) hold module-level code; one per file that has any
	// module-level call sites.
	Definitions []Definition
	// Calls holds one entry per (call site, resolved callee). A call site that resolves to
	// several callees (class-hierarchy expansion) yields several entries.
	Calls []Call
	// CallSites counts every call expression seen; Resolved counts call sites resolved to
	// at least one definition; Unresolved = CallSites − Resolved (calls to builtins and
	// third-party code are unresolved by definition).
	CallSites, Resolved, Unresolved int
	// ByFile, when a front end fills it (AddSite, AddResolved), breaks CallSites and
	// Resolved down by the file of the calling definition. Build uses it to count the
	// call sites of the directory it reports when it analysed more than that directory;
	// without it the counts cover every file analysed.
	ByFile map[string]CallCount
	// Errors holds a *SyntaxError per file that did not parse cleanly, sorted by path.
	Errors []error
}

// CallCount counts the call sites of one file: Sites seen, Resolved to at least one
// definition.
type CallCount struct{ Sites, Resolved int }

// AddSite counts a call site in file (CallSites and ByFile).
func (a *Analysis) AddSite(file string) { a.count(file, 1, 0) }

// AddResolved counts a call site of file, already counted by AddSite, as resolved
// (Resolved and ByFile).
func (a *Analysis) AddResolved(file string) { a.count(file, 0, 1) }

func (a *Analysis) count(file string, sites, resolved int) {
	a.CallSites += sites
	a.Resolved += resolved
	if a.ByFile == nil {
		a.ByFile = map[string]CallCount{}
	}
	c := a.ByFile[file]
	c.Sites += sites
	c.Resolved += resolved
	a.ByFile[file] = c
}

// Definition is a function-like node with its complexity.
type Definition struct {
	task.Function
	Metrics Metrics
}

// Call is a resolved call edge from one definition to another, at a 1-based source line.
type Call struct {
	Caller string // caller's ID
	Callee string // callee's ID
	Line   int
}

// ModuleName is the qualified name of a file's module pseudo-definition.
const ModuleName = "<module>"

// Metrics are the complexity measures of one definition (docs/callgraph.md, Complexity).
type Metrics struct {
	// CodeLines is Breakpoint's definition: distinct lines, from the definition line
	// (decorators excluded) to its end, on which a token other than a comment or a newline
	// starts. Breakpoint-compatible mode adds one (see CompatCodeLines).
	CodeLines          int     `json:"code_lines"`
	Cyclomatic         int     `json:"cyclomatic"`
	HalsteadVolume     float64 `json:"halstead_volume"`
	HalsteadDifficulty float64 `json:"halstead_difficulty"`
	Nesting            int     `json:"nesting"`
	Lines              int     `json:"lines"` // total lines of the definition, decorators included
}

// CompatCodeLines returns the code-line count as Breakpoint's released code computed it:
// one more than CodeLines, for the tokenizer's end marker.
func (m Metrics) CompatCodeLines() int { return m.CodeLines + 1 }

// Halstead accumulates operator and operand occurrences for the Halstead measures.
// The zero value is ready to use.
type Halstead struct {
	operators, operands map[string]int
	n1, n2              int // total occurrences N1, N2
}

// Operator records one occurrence of an operator token.
func (h *Halstead) Operator(tok string) {
	if h.operators == nil {
		h.operators = map[string]int{}
	}
	h.operators[tok]++
	h.n1++
}

// Operand records one occurrence of an operand token.
func (h *Halstead) Operand(tok string) {
	if h.operands == nil {
		h.operands = map[string]int{}
	}
	h.operands[tok]++
	h.n2++
}

// Measures returns volume V = N·log2(η) and difficulty D = (η1/2)·(N2/η2), with η = η1+η2
// and N = N1+N2. Degenerate counts (no operands, a vocabulary of one) give 0 rather than
// NaN or infinity.
func (h *Halstead) Measures() (volume, difficulty float64) {
	eta1, eta2 := len(h.operators), len(h.operands)
	eta, n := eta1+eta2, h.n1+h.n2
	if eta > 1 {
		volume = float64(n) * math.Log2(float64(eta))
	}
	if eta2 > 0 {
		difficulty = float64(eta1) / 2 * float64(h.n2) / float64(eta2)
	}
	return volume, difficulty
}

// SyntaxError reports a file that did not parse cleanly: the first error's 1-based line
// and column. The front end still reports what it could recover.
type SyntaxError struct {
	Path   string
	Line   int
	Column int
	Msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("callgraph: %s:%d:%d: %s", e.Path, e.Line, e.Column, e.Msg)
}
