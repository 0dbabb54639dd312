package corrupt

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"strings"

	"github.com/faultline-dev/faultline/task"
)

// RemoveRule is the rule name recorded on REMOVE stubs.
const RemoveRule = "remove"

// Stub returns the REMOVE corruption of fn: its body replaced by the language's empty body,
// keeping decorators, the whole (possibly multi-line) signature, the docstring or doc
// comment, and any comments before the first statement.
//
//   - Python: the statements become `pass` (after the docstring, on its own line at the
//     body's indentation; `def f(): return 1` becomes `def f(): pass`).
//   - Go: the block returns zero values — `return *new(T1), *new(T2)` (valid for any result
//     type, type parameters included), a bare `return` for named results, nothing for a
//     function without results; comments at the top of the block stay. Zero values rather
//     than a panic: a panic aborts the whole test binary, so every later test of the package
//     would go missing and count as failing.
//   - JavaScript/TypeScript: the block becomes `{ throw new Error("not implemented"); }`.
//
// A Go stub can leave an import unused (the removed body was its only user): pass Go stubs
// through GoChecker.Accept, which prunes such imports and confirms the package compiles.
//
// lang is "python", "go", "javascript" or "typescript". Classes and module pseudo-nodes have
// no body to remove.
func Stub(lang string, src []byte, fn task.Function) (Mutant, error) {
	if err := fn.Validate(len(src)); err != nil {
		return Mutant{}, fmt.Errorf("corrupt: %w", err)
	}
	if fn.Body.Empty() || fn.Kind == task.KindClass || fn.Kind == task.KindModule {
		return Mutant{}, fmt.Errorf("%w: %s: no body to remove", ErrNoSites, fn)
	}
	var e Edit
	var err error
	switch lang {
	case "python":
		e, err = pythonStub(src, fn)
	case "go":
		var stmt string
		if stmt, err = goZeroReturn(src, fn); err == nil {
			e, err = braceStub(src, fn, stmt, "//")
		}
	case "javascript", "typescript":
		e, err = braceStub(src, fn, `throw new Error("not implemented");`, "//")
	default:
		return Mutant{}, fmt.Errorf("corrupt: no REMOVE stub for language %q", lang)
	}
	if err != nil {
		return Mutant{}, err
	}
	if string(src[e.Start:e.End]) == e.Text {
		return Mutant{}, fmt.Errorf("%w: %s: body is already empty", ErrNoSites, fn)
	}
	return Mutant{
		Rule:     RemoveRule,
		File:     fn.File,
		Function: fn.String(),
		Line:     lineOf(src, e.Start),
		Desc:     fmt.Sprintf("remove the body of %s", fn.Name),
		Edits:    []Edit{e},
	}, nil
}

// skipComments returns the offset of the first byte at or after off that is neither white
// space nor inside a comment starting with marker (to the end of its line) or, for C-like
// languages, a /* */ block.
func skipComments(src []byte, off, end int, marker string) int {
	for off < end {
		switch c := src[off]; {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f':
			off++
		case bytes.HasPrefix(src[off:end], []byte(marker)):
			nl := bytes.IndexByte(src[off:end], '\n')
			if nl < 0 {
				return end
			}
			off += nl + 1
		case marker == "//" && bytes.HasPrefix(src[off:end], []byte("/*")):
			close := bytes.Index(src[off+2:end], []byte("*/"))
			if close < 0 {
				return end
			}
			off += 2 + close + 2
		default:
			return off
		}
	}
	return off
}

// lineStart returns the offset of the start of the line holding off.
func lineStart(src []byte, off int) int {
	return bytes.LastIndexByte(src[:off], '\n') + 1
}

// indentOf returns the leading white space of the line holding off.
func indentOf(src []byte, off int) string {
	s := lineStart(src, off)
	e := s
	for e < len(src) && (src[e] == ' ' || src[e] == '\t') {
		e++
	}
	return string(src[s:e])
}

// trimTrailingSpace moves end back over white space so a replacement keeps what follows.
func trimTrailingSpace(src []byte, start, end int) int {
	for end > start && (src[end-1] == ' ' || src[end-1] == '\t' || src[end-1] == '\n' || src[end-1] == '\r') {
		end--
	}
	return end
}

func pythonStub(src []byte, fn task.Function) (Edit, error) {
	from := fn.Body.Start
	if !fn.Doc.Empty() && fn.Body.Contains(fn.Doc) {
		from = fn.Doc.End
		// A docstring may be followed by a statement separator on the same line.
		for from < fn.Body.End && (src[from] == ' ' || src[from] == '\t' || src[from] == ';') {
			from++
		}
	}
	first := skipComments(src, from, fn.Body.End, "#")
	end := trimTrailingSpace(src, first, fn.Body.End)
	if first >= end {
		// Only a docstring and comments: the stub still needs a statement.
		if fn.Doc.Empty() {
			return Edit{}, fmt.Errorf("corrupt: %s: empty Python body", fn)
		}
		first = end
	}
	if first < end {
		// The statements (from the first one after the docstring and comments) become
		// pass, in place: `def f(): return 1` becomes `def f(): pass`.
		return Edit{Start: first, End: end, Text: "pass"}, nil
	}
	if lineStart(src, fn.Doc.Start) == lineStart(src, fn.Signature.End) {
		return Edit{Start: end, End: end, Text: "; pass"}, nil // def f(): """doc"""
	}
	return Edit{Start: end, End: end, Text: "\n" + indentOf(src, fn.Doc.Start) + "pass"}, nil
}

// goZeroReturn returns the statement that ends a Go stub: it parses the function's file
// to read the declared results.
func goZeroReturn(src []byte, fn task.Function) (string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, fn.File, src, parser.SkipObjectResolution)
	if err != nil {
		return "", fmt.Errorf("corrupt: %s: %w", fn.File, err)
	}
	tf := fset.File(f.Pos())
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil || tf.Offset(fd.Body.Lbrace) != fn.Body.Start {
			continue
		}
		res := fd.Type.Results
		if res == nil || len(res.List) == 0 {
			return "", nil
		}
		if len(res.List[0].Names) > 0 {
			return "return", nil
		}
		var zeros []string
		for _, r := range res.List {
			typ := string(src[tf.Offset(r.Type.Pos()):tf.Offset(r.Type.End())])
			zeros = append(zeros, "*new("+typ+")")
		}
		return "return " + strings.Join(zeros, ", "), nil
	}
	return "", fmt.Errorf("corrupt: %s: no Go function body at byte %d", fn.File, fn.Body.Start)
}

func braceStub(src []byte, fn task.Function, stmt, marker string) (Edit, error) {
	b := fn.Body
	if src[b.Start] != '{' || src[b.End-1] != '}' {
		return Edit{}, fmt.Errorf("corrupt: %s: body span is not a {…} block", fn)
	}
	open, close := b.Start+1, b.End-1
	first := skipComments(src, open, close, marker)
	if !bytes.Contains(src[b.Start:b.End], []byte("\n")) {
		if stmt == "" {
			return Edit{Start: open, End: close}, nil // func f() { x++ }  →  func f() {}
		}
		return Edit{Start: open, End: close, Text: " " + stmt + " "}, nil
	}
	inner := indentOf(src, fn.Signature.Start) + "\t"
	if first < close && lineStart(src, first) != lineStart(src, b.Start) {
		inner = indentOf(src, first)
	}
	closing := indentOf(src, close)
	if first == close {
		// Only comments (or nothing) inside: add the statement after them.
		at := trimTrailingSpace(src, open, close)
		if stmt == "" {
			return Edit{Start: at, End: at}, nil // already empty
		}
		return Edit{Start: at, End: close, Text: "\n" + inner + stmt + "\n" + closing}, nil
	}
	line := ""
	if stmt != "" {
		line = inner + stmt + "\n"
	}
	start := lineStart(src, first)
	if start <= open {
		// The first statement shares the line of the opening brace.
		return Edit{Start: first, End: close, Text: strings.TrimLeft(line, " \t") + closing}, nil
	}
	return Edit{Start: start, End: close, Text: line + closing}, nil
}
