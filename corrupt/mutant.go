package corrupt

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"

	"github.com/faultline-dev/faultline/task"
)

// Edit replaces the bytes [Start, End) of a file with Text.
type Edit struct {
	Start int    `json:"start"`
	End   int    `json:"end"`
	Text  string `json:"text"`
}

// Mutant is one rule-based corruption of one function: byte edits of the function's file.
// The edits lie inside the function body, except import lines a Go mutant pruned because
// the corruption left them unused.
type Mutant struct {
	Rule     string `json:"rule"`
	File     string `json:"file"`
	Function string `json:"function"` // the function's ID
	Line     int    `json:"line"`     // 1-based line of the first changed byte
	Desc     string `json:"desc"`     // what changed, e.g. "flip < to <= at line 12"
	Edits    []Edit `json:"edits"`    // sorted by Start, non-overlapping
}

// Apply returns src with the mutant's edits applied. It panics if the edits are out of
// range or overlap, which means the mutant was made for another source (a programmer error).
func (m Mutant) Apply(src []byte) []byte {
	return applyEdits(src, m.Edits)
}

func applyEdits(src []byte, edits []Edit) []byte {
	var out bytes.Buffer
	out.Grow(len(src) + 64)
	pos := 0
	for _, e := range edits {
		if e.Start < pos || e.End < e.Start || e.End > len(src) {
			panic(fmt.Sprintf("corrupt: edit [%d,%d) out of order or range (file of %d bytes)", e.Start, e.End, len(src)))
		}
		out.Write(src[pos:e.Start])
		out.WriteString(e.Text)
		pos = e.End
	}
	out.Write(src[pos:])
	return out.Bytes()
}

// sortEdits orders edits by position and reports whether they are non-overlapping.
func sortEdits(edits []Edit) bool {
	sort.SliceStable(edits, func(i, j int) bool { return edits[i].Start < edits[j].Start })
	for i := 1; i < len(edits); i++ {
		if edits[i].Start < edits[i-1].End {
			return false
		}
	}
	return true
}

// Target is one function to corrupt: its file's path and contents and its spans. Parsed
// forms of the file are computed once and shared by every rule applied to the target.
type Target struct {
	Path string // slash path relative to the repository root
	Src  []byte
	Func task.Function

	goFile *goParsed // cached Go parse (see gorules.go)
	pyFile *pyParsed // cached Python parse (see pyrules.go)
}

// NewTarget returns a target for fn, whose spans index src.
func NewTarget(path string, src []byte, fn task.Function) (*Target, error) {
	if err := fn.Validate(len(src)); err != nil {
		return nil, fmt.Errorf("corrupt: %s: %w", path, err)
	}
	if fn.Body.Empty() {
		return nil, fmt.Errorf("%w: %s: %s has no body to change", ErrNoSites, path, fn.Name)
	}
	return &Target{Path: path, Src: src, Func: fn}, nil
}

// Rule is a rule-based corruption operator: a value with a name and a doc, listing every
// mutant it can make of a target's body. Rules must be deterministic (the same target gives
// the same mutants in the same order) and safe for concurrent use.
type Rule interface {
	Name() string
	Doc() string
	Language() string // "go" or "python"
	Mutants(t *Target) []Mutant
}

// ErrNoSites is wrapped when no rule can change a function.
var ErrNoSites = errors.New("corrupt: no mutation site")

// Candidates lists the mutants of every rule for the target whose language matches, in rule
// order then source order, shuffled by rng when rng is not nil (a seeded, deterministic
// permutation).
func Candidates(t *Target, rules []Rule, lang string, rng *rand.Rand) []Mutant {
	var all []Mutant
	for _, r := range rules {
		if r.Language() != lang {
			continue
		}
		all = append(all, r.Mutants(t)...)
	}
	if rng != nil {
		rng.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	}
	return all
}

// lineOf returns the 1-based line of byte offset off in src.
func lineOf(src []byte, off int) int {
	if off > len(src) {
		off = len(src)
	}
	return bytes.Count(src[:off], []byte("\n")) + 1
}
