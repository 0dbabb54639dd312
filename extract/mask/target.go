package mask

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/faultline-dev/faultline/task"
)

// Target names one definition: a slash path relative to the repository root, a qualified
// name (`func`, `Class.method`, `outer.inner`, Go `Type.Method`) and, optionally, a line
// that tells same-named definitions apart: the line of the def/class/func keyword or of the
// first decorator (a traced Python code object's co_firstlineno is the latter). Line 0
// matches every definition of that name in the file.
type Target struct {
	File string `json:"file"`
	Name string `json:"name"`
	Line int    `json:"line,omitempty"`
}

// ParseTarget reads a target from an object id: `file::Name` (callgraph), `file::Name@line`
// (callgraph, duplicated names) or `file::Name::line` (the FeatureBench trace). A traced
// qualified name's `.<locals>.` separators (co_qualname of nested functions) become ".", the
// front ends' form.
func ParseTarget(id string) (Target, error) {
	file, rest, ok := strings.Cut(id, "::")
	if !ok || file == "" || rest == "" {
		return Target{}, fmt.Errorf("mask: bad object id %q: want file::Name[::line]", id)
	}
	t := Target{File: file, Name: rest}
	if name, line, ok := strings.Cut(rest, "::"); ok {
		n, err := strconv.Atoi(line)
		if err != nil || n <= 0 {
			return Target{}, fmt.Errorf("mask: bad line in object id %q", id)
		}
		t.Name, t.Line = name, n
	} else if i := strings.LastIndexByte(rest, '@'); i > 0 {
		if n, err := strconv.Atoi(rest[i+1:]); err == nil && n > 0 {
			t.Name, t.Line = rest[:i], n
		}
	}
	// Python's co_qualname writes nested functions as outer.<locals>.inner.
	t.Name = strings.ReplaceAll(t.Name, ".<locals>.", ".")
	if _, err := task.CleanRelPath(t.File); err != nil {
		return Target{}, fmt.Errorf("mask: object id %q: %w", id, err)
	}
	if t.Name == "" || strings.ContainsAny(t.Name, " \t\n:") {
		return Target{}, fmt.Errorf("mask: bad name in object id %q", id)
	}
	return t, nil
}

// String returns the target in the FeatureBench id form, `file::Name::line`, or
// `file::Name` without a line.
func (t Target) String() string {
	if t.Line > 0 {
		return t.File + "::" + t.Name + "::" + strconv.Itoa(t.Line)
	}
	return t.File + "::" + t.Name
}

// matches reports whether the definition fn is the one t names.
func (t Target) matches(fn task.Function) bool {
	if fn.File != t.File || fn.Name != t.Name {
		return false
	}
	return t.Line == 0 || t.Line == fn.Line || t.Line == fn.DecoratorLine
}

func less(a, b Target) bool {
	if a.File != b.File {
		return a.File < b.File
	}
	if a.Name != b.Name {
		return a.Name < b.Name
	}
	return a.Line < b.Line
}

func sortTargets(ts []Target) {
	sort.Slice(ts, func(i, j int) bool { return less(ts[i], ts[j]) })
}

// Why a target was protected (kept in the masked tree).
const (
	ReasonKept       = "kept by the caller"
	ReasonAll        = "listed in __all__"
	ReasonReexported = "re-exported through __all__"
	ReasonShared     = "shares a line with other code"
	ReasonUsed       = "still used by the remaining code"
	ReasonNotFound   = "no such definition"
	ReasonCollect    = "named by a collection error"
	ReasonBisect     = "its removal breaks collection (found by bisection)"
)

// Protection is a target that was not removed, and why: one of the Reason constants,
// optionally followed by ": " and the message that caused it.
type Protection struct {
	Target Target `json:"target"`
	Reason string `json:"reason"`
}

// Removal is a definition that was removed: the target (with the definition's own line),
// its kind, and the 1-based inclusive line range deleted from the original file (decorators
// and the attached comment block or doc comment included).
type Removal struct {
	Target    Target    `json:"target"`
	Kind      task.Kind `json:"kind"`
	StartLine int       `json:"start_line"`
	EndLine   int       `json:"end_line"`

	asked Target // the target as the caller named it
}

// Lines is the number of lines the removal deleted.
func (r Removal) Lines() int { return r.EndLine - r.StartLine + 1 }

// ImportEdit is an import statement that the mask rewrote or dropped because it imported
// removed names.
type ImportEdit struct {
	File    string   `json:"file"`
	Line    int      `json:"line"`    // first line of the statement in the original file
	Removed []string `json:"removed"` // the entries taken out (`name` or `name as alias`)
	Dropped bool     `json:"dropped"` // nothing remained: the statement was deleted
}
