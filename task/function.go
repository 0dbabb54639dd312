package task

import "fmt"

// Span is a half-open byte range [Start, End) into a file's contents.
// The zero Span is empty and means "absent" (for example a function without a docstring).
type Span struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Len returns the number of bytes the span covers.
func (s Span) Len() int { return s.End - s.Start }

// Empty reports whether the span covers no bytes.
func (s Span) Empty() bool { return s.End <= s.Start }

// Contains reports whether o lies entirely inside s.
func (s Span) Contains(o Span) bool { return s.Start <= o.Start && o.End <= s.End }

// Text returns the bytes of src the span covers. It panics if the span is out of range,
// which is a programmer error (spans are produced from the same src).
func (s Span) Text(src []byte) []byte { return src[s.Start:s.End] }

// Kind classifies a definition.
type Kind string

// The kinds of definition a front end reports.
const (
	KindFunction Kind = "function" // a module-level or nested function
	KindMethod   Kind = "method"   // a function defined directly in a class (or a Go method)
	KindClass    Kind = "class"    // a class (Python, JS/TS, Java) or a named type with methods
	KindModule   Kind = "module"   // the per-file pseudo-definition holding module-level code
)

// Function is one definition found in a repository: a function, method, class or the
// module pseudo-definition. Corruption and extraction edit exactly the byte spans recorded
// here, so they must be exact: Def covers the whole definition including decorators (and,
// for Go, the doc comment is not part of Def), Signature runs from the definition keyword
// (or name) to the end of the header, Doc is the docstring literal (Python) or doc comment
// (Go, JS/TS, Java) when present, and Body is the statement block.
//
// Line and EndLine are 1-based and inclusive and describe Def without decorators: Line is
// the line of the `def`/`func`/`class` keyword. DecoratorLine is the first line of Def
// (equal to Line when there are no decorators).
type Function struct {
	// ID is the stable node identity `relative/path::Qualified.Name`. When one file holds
	// several definitions with the same qualified name, each of them gets the suffix
	// `@<line>` so they stay distinct (see callgraph's package doc).
	ID            string `json:"id"`
	File          string `json:"file"` // slash path relative to the repository root
	Name          string `json:"name"` // qualified name: Class.method, outer.inner, Type.Method
	Kind          Kind   `json:"kind"`
	Language      string `json:"language,omitempty"`
	Line          int    `json:"line"`
	EndLine       int    `json:"end_line"`
	DecoratorLine int    `json:"decorator_line,omitempty"`
	Def           Span   `json:"def"`
	Signature     Span   `json:"signature"`
	Doc           Span   `json:"doc"`
	Body          Span   `json:"body"`
	// Parent is the ID of the enclosing definition (class or function), empty at top level.
	Parent string `json:"parent,omitempty"`
}

// MakeID joins a slash path and a qualified name into a node identity.
func MakeID(file, name string) string { return file + "::" + name }

// String returns the function's ID.
func (f Function) String() string {
	if f.ID != "" {
		return f.ID
	}
	return MakeID(f.File, f.Name)
}

// Validate checks that the spans are ordered and lie inside a file of size n.
func (f Function) Validate(n int) error {
	for _, s := range []struct {
		name string
		s    Span
	}{{"def", f.Def}, {"signature", f.Signature}, {"doc", f.Doc}, {"body", f.Body}} {
		if s.s.Start < 0 || s.s.End < s.s.Start || s.s.End > n {
			return fmt.Errorf("task: %s: %s span [%d,%d) outside file of %d bytes", f, s.name, s.s.Start, s.s.End, n)
		}
	}
	if !f.Def.Contains(f.Signature) || (!f.Body.Empty() && !f.Def.Contains(f.Body)) {
		return fmt.Errorf("task: %s: signature or body span outside the definition", f)
	}
	return nil
}
