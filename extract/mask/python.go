package mask

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/faultline-dev/faultline/callgraph"
	"github.com/faultline-dev/faultline/internal/pylex"
	"github.com/faultline-dev/faultline/task"
)

// pyFile is one Python file with its line structure.
type pyFile struct {
	path    string
	src     []byte
	lines   []physLine
	logical []logLine
	all     map[string]bool
	imports map[int]fromImport // logical index → parsed from-import
	defs    []task.Function    // definitions (target files only)
}

func newPyFile(p string, src []byte) *pyFile {
	f := &pyFile{path: p, src: src, lines: pyLines(src)}
	f.logical = scanLogical(src)
	f.all = map[string]bool{}
	for _, n := range allNames(src, f.lines, f.logical) {
		f.all[n] = true
	}
	return f
}

func (f *pyFile) text(l logLine) string {
	return string(f.src[f.lines[l.first-1].start:f.lines[l.last-1].end])
}

// fromImports parses the file's from-imports once.
func (f *pyFile) fromImports() map[int]fromImport {
	if f.imports != nil {
		return f.imports
	}
	f.imports = map[int]fromImport{}
	for i, l := range f.logical {
		if !l.code {
			continue
		}
		t := f.text(l)
		if !strings.Contains(t, "import") {
			continue
		}
		if fi, ok := parseFromImport(strings.TrimRight(t, "\r\n")); ok && !fi.star {
			f.imports[i] = fi
		}
	}
	return f.imports
}

// blank reports whether physical line i (0-based) is blank outside any string.
func (f *pyFile) blank(i int, logOf []int) bool {
	l := f.logical[logOf[i]]
	return !l.code && l.first == l.last && len(bytes.TrimSpace(f.src[f.lines[i].start:f.lines[i].end])) == 0
}

// comment reports whether physical line i is a comment-only line.
func (f *pyFile) comment(i int, logOf []int) bool {
	l := f.logical[logOf[i]]
	return !l.code && l.first == l.last && bytes.HasPrefix(bytes.TrimSpace(f.src[f.lines[i].start:f.lines[i].end]), []byte("#"))
}

func (f *pyFile) logOf() []int {
	out := make([]int, len(f.lines))
	for i, l := range f.logical {
		for p := l.first; p <= l.last; p++ {
			out[p-1] = i
		}
	}
	return out
}

// pyMasker masks the Python files of one repository.
type pyMasker struct {
	ctx   context.Context
	root  string
	opts  Options
	files map[string]*pyFile
	all   []string // every .py file
	index *moduleIndex
}

func (m *pyMasker) load(p string) (*pyFile, error) {
	if f, ok := m.files[p]; ok {
		return f, nil
	}
	src, err := readRel(m.root, p)
	if err != nil {
		return nil, err
	}
	f := newPyFile(p, src)
	m.files[p] = f
	return f, nil
}

func maskPython(ctx context.Context, root string, targets []Target, opts Options, res *Result) error {
	all, err := walkFiles(ctx, root, ".py")
	if err != nil {
		return err
	}
	m := &pyMasker{ctx: ctx, root: root, opts: opts, files: map[string]*pyFile{}, all: all, index: newModuleIndex(all)}
	// Definitions of the target files.
	var tfiles []string
	for _, t := range targets {
		if len(tfiles) == 0 || tfiles[len(tfiles)-1] != t.File {
			tfiles = append(tfiles, t.File)
		}
	}
	var srcs []callgraph.SourceFile
	for _, p := range tfiles {
		f, err := m.load(p)
		if err != nil {
			return err
		}
		srcs = append(srcs, callgraph.SourceFile{Path: p, Src: f.src})
	}
	an, err := opts.Python.Analyze(ctx, srcs)
	if err != nil {
		return fmt.Errorf("mask: %w", err)
	}
	for _, d := range an.Definitions {
		if d.Kind == task.KindModule {
			continue
		}
		f := m.files[d.File]
		if f != nil {
			f.defs = append(f.defs, d.Function)
		}
	}
	protected := map[Target]string{}
	for iter := 0; ; iter++ {
		if iter > len(targets)+1 {
			return fmt.Errorf("mask: python protection did not converge")
		}
		plan, newProt, err := m.plan(targets, protected)
		if err != nil {
			return err
		}
		if len(newProt) == 0 {
			return m.emit(plan, protected, res)
		}
		for t, why := range newProt {
			protected[t] = why
		}
	}
}

// pyPlan is what to do to the Python files.
type pyPlan struct {
	removals []pyRemoval
	imports  map[string]map[int][]impEnt // file → logical index → removed entries
}

type pyRemoval struct {
	target Target
	fn     task.Function
}

// plan chooses the definitions to remove and the import entries to drop, given the targets
// already protected. It returns new protections when it finds some (the caller retries).
func (m *pyMasker) plan(targets []Target, protected map[Target]string) (*pyPlan, map[Target]string, error) {
	newProt := map[Target]string{}
	var chosen []pyRemoval
	for _, t := range targets {
		if _, ok := protected[t]; ok {
			continue
		}
		f := m.files[t.File]
		var hits []task.Function
		for _, d := range f.defs {
			if t.matches(d) {
				hits = append(hits, d)
			}
		}
		if len(hits) == 0 {
			newProt[t] = ReasonNotFound
			continue
		}
		for _, d := range hits {
			if !strings.Contains(d.Name, ".") && d.Parent == "" && f.all[d.Name] {
				newProt[t] = ReasonAll
				break
			}
			if !ownsLines(f.src, d.Def) {
				newProt[t] = ReasonShared
				break
			}
		}
		if _, ok := newProt[t]; ok {
			continue
		}
		for _, d := range hits {
			chosen = append(chosen, pyRemoval{target: t, fn: d})
		}
	}
	if len(newProt) > 0 {
		return nil, newProt, nil
	}
	// Drop definitions inside another chosen one.
	sort.Slice(chosen, func(i, j int) bool {
		a, b := chosen[i].fn, chosen[j].fn
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Def.Start != b.Def.Start {
			return a.Def.Start < b.Def.Start
		}
		return a.Def.End > b.Def.End
	})
	var kept []pyRemoval
	for _, c := range chosen {
		if n := len(kept); n > 0 && kept[n-1].fn.File == c.fn.File && kept[n-1].fn.Def.Contains(c.fn.Def) {
			continue
		}
		kept = append(kept, c)
	}
	plan := &pyPlan{removals: kept, imports: map[string]map[int][]impEnt{}}
	// Names removed from each module, with the target they come from.
	removedNames := map[string]map[string]Target{}
	for _, r := range kept {
		if r.fn.Parent != "" || strings.Contains(r.fn.Name, ".") {
			continue
		}
		if removedNames[r.fn.File] == nil {
			removedNames[r.fn.File] = map[string]Target{}
		}
		removedNames[r.fn.File][r.fn.Name] = r.target
	}
	if len(removedNames) == 0 {
		return plan, nil, nil
	}
	// Propagate through from-imports to a fixpoint: an import entry of a removed name is
	// dropped, and the name it bound is removed from the importing module in turn.
	for changed := true; changed; {
		changed = false
		for _, p := range m.all {
			if m.opts.IsTest(p) {
				continue
			}
			if err := m.ctx.Err(); err != nil {
				return nil, nil, fmt.Errorf("mask: %w", err)
			}
			f, err := m.load(p)
			if err != nil {
				return nil, nil, err
			}
			imps := f.fromImports()
			idx := make([]int, 0, len(imps))
			for i := range imps {
				idx = append(idx, i)
			}
			sort.Ints(idx)
			for _, i := range idx {
				fi := imps[i]
				src := m.index.resolve(p, fi)
				names := removedNames[src]
				if src == "" || names == nil {
					continue
				}
				for _, e := range fi.entries {
					org, ok := names[e.name]
					if !ok || containsEnt(plan.imports[p][i], e) {
						continue
					}
					if f.logical[i].indent == "" && f.all[e.bound()] {
						newProt[org] = ReasonReexported + ": " + p
						continue
					}
					if plan.imports[p] == nil {
						plan.imports[p] = map[int][]impEnt{}
					}
					plan.imports[p][i] = append(plan.imports[p][i], e)
					changed = true
					if f.logical[i].indent == "" {
						if removedNames[p] == nil {
							removedNames[p] = map[string]Target{}
						}
						if _, ok := removedNames[p][e.bound()]; !ok {
							removedNames[p][e.bound()] = org
						}
					}
				}
			}
		}
		if len(newProt) > 0 {
			return nil, newProt, nil
		}
	}
	return plan, nil, nil
}

func containsEnt(es []impEnt, e impEnt) bool {
	for _, x := range es {
		if x == e {
			return true
		}
	}
	return false
}

// ownsLines reports whether the span starts a line (after indentation) and ends one
// (before an optional comment), so that removing its whole lines removes nothing else.
func ownsLines(src []byte, s task.Span) bool {
	i := s.Start
	for i > 0 && (src[i-1] == ' ' || src[i-1] == '\t' || src[i-1] == '\f') {
		i--
	}
	if i > 0 && src[i-1] != '\n' {
		return false
	}
	j := s.End
	for j < len(src) && (src[j] == ' ' || src[j] == '\t' || src[j] == '\r' || src[j] == '\f') {
		j++
	}
	return j == len(src) || src[j] == '\n' || src[j] == '#'
}

// emit writes the plan into res.
func (m *pyMasker) emit(plan *pyPlan, protected map[Target]string, res *Result) error {
	for t, why := range protected {
		res.Protected = append(res.Protected, Protection{t, why})
	}
	byFile := map[string][]pyRemoval{}
	var paths []string
	for _, r := range plan.removals {
		if byFile[r.fn.File] == nil {
			paths = append(paths, r.fn.File)
		}
		byFile[r.fn.File] = append(byFile[r.fn.File], r)
	}
	for p := range plan.imports {
		if byFile[p] == nil {
			paths = append(paths, p)
			byFile[p] = []pyRemoval{}
		}
	}
	sort.Strings(paths)
	for _, p := range paths {
		f := m.files[p]
		out, rems, edits := f.rewrite(byFile[p], plan.imports[p])
		res.Overlay.Set(p, out)
		res.Removed = append(res.Removed, rems...)
		res.Imports = append(res.Imports, edits...)
	}
	return nil
}

// rewrite applies removals and import edits to one file and fills emptied blocks with
// `pass`.
func (f *pyFile) rewrite(rems []pyRemoval, imps map[int][]impEnt) ([]byte, []Removal, []ImportEdit) {
	logOf := f.logOf()
	n := len(f.lines)
	removed := make([]bool, n)
	var out []Removal
	for _, r := range rems {
		first := lineOf(f.lines, r.fn.Def.Start)
		last := lineOf(f.lines, max(r.fn.Def.End-1, r.fn.Def.Start))
		last = max(last, f.logical[logOf[last-1]].last)
		indent := string(pylex.LeadingSpace(f.src[f.lines[first-1].start:f.lines[first-1].end]))
		// The attached comment block: comment lines right above at the same indentation.
		for first > 1 && f.comment(first-2, logOf) &&
			string(pylex.LeadingSpace(f.src[f.lines[first-2].start:f.lines[first-2].end])) == indent {
			first--
		}
		for i := first; i <= last; i++ {
			removed[i-1] = true
		}
		t := r.target
		t.Line = r.fn.Line
		out = append(out, Removal{Target: t, Kind: r.fn.Kind, StartLine: first, EndLine: last, asked: r.target})
	}
	// Import edits.
	repl := map[int]string{}
	var edits []ImportEdit
	idx := make([]int, 0, len(imps))
	for i := range imps {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	for _, i := range idx {
		l := f.logical[i]
		if removed[l.first-1] {
			continue
		}
		fi := f.imports[i]
		drop := map[impEnt]bool{}
		var names []string
		for _, e := range imps[i] {
			drop[e] = true
			names = append(names, e.String())
		}
		var rest []impEnt
		for _, e := range fi.entries {
			if !drop[e] {
				rest = append(rest, e)
			}
		}
		ed := ImportEdit{File: f.path, Line: l.first, Removed: names, Dropped: len(rest) == 0}
		edits = append(edits, ed)
		if len(rest) == 0 {
			for p := l.first; p <= l.last; p++ {
				removed[p-1] = true
			}
			continue
		}
		nl := lineEnding(f.src[f.lines[l.last-1].start:f.lines[l.last-1].end])
		entryIndent := l.indent + "    "
		if l.last > l.first {
			second := f.src[f.lines[l.first].start:f.lines[l.first].end]
			if ws := string(pylex.LeadingSpace(second)); len(bytes.TrimSpace(second)) > 0 && pylex.IndentWidth(ws) > pylex.IndentWidth(l.indent) {
				entryIndent = ws
			}
		}
		repl[i] = fi.render(l.indent, entryIndent, nl, rest, l.last > l.first && fi.paren)
	}
	tidyBlank(n, func(i int) bool { return f.blank(i, logOf) }, removed)
	gone := func(i int) bool {
		l := f.logical[i]
		for p := l.first; p <= l.last; p++ {
			if !removed[p-1] {
				return false
			}
		}
		return true
	}
	// Emptied blocks.
	pass := map[int]string{}
	for h, l := range f.logical {
		if !l.header || gone(h) {
			continue
		}
		w := pylex.IndentWidth(l.indent)
		hasBody, alive := false, false
		bodyIndent := ""
		for j := h + 1; j < len(f.logical); j++ {
			b := f.logical[j]
			if !b.code {
				continue
			}
			if pylex.IndentWidth(b.indent) <= w {
				break
			}
			if !hasBody {
				bodyIndent = b.indent
			}
			hasBody = true
			if !gone(j) {
				alive = true
				break
			}
		}
		if hasBody && !alive {
			pass[h] = bodyIndent
		}
	}
	var b bytes.Buffer
	b.Grow(len(f.src))
	for i, l := range f.logical {
		if r, ok := repl[i]; ok {
			b.WriteString(r)
		} else {
			for p := l.first; p <= l.last; p++ {
				if !removed[p-1] {
					b.Write(f.src[f.lines[p-1].start:f.lines[p-1].end])
				}
			}
		}
		if ind, ok := pass[i]; ok {
			nl := lineEnding(f.src[f.lines[l.last-1].start:f.lines[l.last-1].end])
			if nl == "" {
				b.WriteString("\n")
				nl = "\n"
			}
			b.WriteString(ind + "pass" + nl)
		}
	}
	return b.Bytes(), out, edits
}

// lineOf returns the 1-based physical line holding byte offset off.
func lineOf(lines []physLine, off int) int {
	i := sort.Search(len(lines), func(i int) bool { return lines[i].end > off })
	if i == len(lines) {
		return len(lines)
	}
	return i + 1
}

func lineEnding(line []byte) string {
	switch {
	case bytes.HasSuffix(line, []byte("\r\n")):
		return "\r\n"
	case bytes.HasSuffix(line, []byte("\n")):
		return "\n"
	}
	return ""
}
