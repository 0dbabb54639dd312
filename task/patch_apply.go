package task

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// ErrBinaryPatch is wrapped by the error for applying a binary file patch, whose data
// ParsePatch does not keep.
var ErrBinaryPatch = errors.New("binary patches cannot be applied")

// ErrUnsupportedMode is wrapped by the error for applying a file patch of a symbolic link
// (mode 120000) or a submodule (160000): an Overlay holds regular files only.
var ErrUnsupportedMode = errors.New("symbolic link and submodule patches cannot be applied")

// ApplyError is a file patch that cannot be applied. Hunk is the 1-based index of the hunk
// that failed and Header its "@@" line, or 0 and "" when the file as a whole is the
// problem (a missing file, a file that already exists, an unsafe path). Err, when set, is
// the underlying cause (ErrUnsafePath, fs.ErrNotExist, ErrBinaryPatch, an I/O error).
type ApplyError struct {
	Path   string
	Hunk   int
	Header string
	Msg    string
	Err    error
}

func (e *ApplyError) Error() string {
	s := "task: patch: " + e.Path
	if e.Hunk > 0 {
		s += fmt.Sprintf(": hunk %d (%s)", e.Hunk, e.Header)
	}
	s += ": " + e.Msg
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the underlying cause.
func (e *ApplyError) Unwrap() error { return e.Err }

// DirReader returns a read function for Apply that reads files below dir. It refuses paths
// that escape dir, including through a symbolic link (errors wrap ErrUnsafePath), and
// reports a missing file with an error wrapping fs.ErrNotExist.
func DirReader(dir string) func(path string) ([]byte, error) {
	return func(p string) ([]byte, error) {
		t, err := SafeJoin(dir, p)
		if err != nil {
			return nil, err
		}
		return os.ReadFile(t)
	}
}

// ApplyDir applies the patch to the directory dir: it computes every new file with Apply
// (reading through DirReader, so nothing outside dir is read), and only when all file
// patches apply writes the result with Overlay.WriteTo. On any error nothing is written.
// It returns the overlay it wrote. File modes are not changed (an Overlay carries
// contents only); new files are created with mode 0644.
func (p *Patch) ApplyDir(dir string) (Overlay, error) {
	o, err := p.Apply(DirReader(dir))
	if err != nil {
		return nil, err
	}
	if err := o.WriteTo(dir); err != nil {
		return nil, err
	}
	// Set the modes the patch states for created files and mode changes.
	for _, f := range p.Files {
		if f.Deleted || (!f.Created && f.OldMode == f.NewMode) {
			continue
		}
		perm := fs.FileMode(0o644)
		switch f.NewMode {
		case "100755":
			perm = 0o755
		case "100644":
		default:
			continue
		}
		c, _ := CleanRelPath(f.NewPath) // checked by Apply
		t, err := SafeJoin(dir, c)
		if err != nil {
			return nil, err
		}
		if err := os.Chmod(t, perm); err != nil {
			return nil, fmt.Errorf("task: patch: %w", err)
		}
	}
	return o, nil
}

// Apply computes the files the patch produces without writing anything. read returns the
// current contents of a slash path relative to the tree's root, and an error wrapping
// fs.ErrNotExist when the file does not exist (DirReader reads a directory this way). File
// patches apply in order, each seeing the result of the previous ones.
//
// Every path is checked with CleanRelPath before it is read. A hunk applies where its
// context and removed lines match the file exactly: first at the stated line (shifted by
// the offset at which the previous hunk applied), then at the nearest line above or
// below, as patch(1) and `git apply` search; there is no fuzz (context lines are never
// ignored). A hunk with context lines that is stated at line 1, or that has less leading
// than trailing context, must match at the start of the file (git's and patch(1)'s
// rules); one with less trailing than leading context must match at its end (patch(1)'s
// rule without fuzz; git anchors only hunks without trailing context, so this is
// stricter). Zero-context hunks (`diff -U0`) are applied as `git apply --unidiff-zero`
// applies them: an insertion goes exactly after its stated line (shifted by the previous
// hunks' offset), other hunks are searched for like any other. Creating a file that
// exists, changing or deleting a missing one, and deleting a file whose contents the
// patch does not remove entirely are errors. Errors are *ApplyError.
//
// The result holds the new contents of every changed path and a deletion for every
// removed one (a renamed file's old path is removed).
func (p *Patch) Apply(read func(path string) ([]byte, error)) (Overlay, error) {
	type state struct {
		data       []byte
		exists     bool
		origExists bool
		touched    bool
	}
	files := map[string]*state{}
	get := func(path string) (*state, error) {
		if s, ok := files[path]; ok {
			return s, nil
		}
		data, err := read(path)
		s := &state{data: data, exists: err == nil}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, &ApplyError{Path: path, Msg: "cannot read", Err: err}
		}
		s.origExists = s.exists
		if !s.exists {
			s.data = nil
		}
		files[path] = s
		return s, nil
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	// Check every path before reading anything.
	type paths struct{ old, new string }
	clean := make([]paths, len(p.Files))
	for i := range p.Files {
		f := &p.Files[i]
		for _, pp := range []struct {
			raw string
			dst *string
		}{{f.OldPath, &clean[i].old}, {f.NewPath, &clean[i].new}} {
			c, err := CleanRelPath(pp.raw)
			if err != nil {
				return nil, &ApplyError{Path: pp.raw, Msg: "unsafe path", Err: err}
			}
			*pp.dst = c
		}
		if f.Binary {
			return nil, &ApplyError{Path: clean[i].new, Msg: "binary file patch", Err: ErrBinaryPatch}
		}
		if f.Created && f.Deleted {
			return nil, &ApplyError{Path: clean[i].new, Msg: "file patch both creates and deletes the file"}
		}
		for _, m := range []string{f.OldMode, f.NewMode} {
			if m == "120000" || m == "160000" {
				return nil, &ApplyError{Path: clean[i].new, Msg: "mode " + m, Err: ErrUnsupportedMode}
			}
		}
		if (f.Created || f.Deleted) && (f.Renamed || f.Copied) {
			return nil, &ApplyError{Path: clean[i].new, Msg: "file patch creates or deletes a renamed or copied file"}
		}
		if !f.Created && !f.Deleted && !f.Renamed && !f.Copied && clean[i].old != clean[i].new {
			return nil, &ApplyError{Path: clean[i].new, Msg: fmt.Sprintf("old path %s differs from new path without a rename or copy", clean[i].old)}
		}
	}
	for i := range p.Files {
		f := &p.Files[i]
		oldPath, newPath := clean[i].old, clean[i].new
		if f.Created {
			dst, err := get(newPath)
			if err != nil {
				return nil, err
			}
			if dst.exists {
				return nil, &ApplyError{Path: newPath, Msg: "file to create already exists", Err: fs.ErrExist}
			}
			out, err := f.applyHunks(newPath, nil)
			if err != nil {
				return nil, err
			}
			*dst = state{data: out, exists: true, origExists: dst.origExists, touched: true}
			continue
		}
		src, err := get(oldPath)
		if err != nil {
			return nil, err
		}
		if !src.exists {
			return nil, &ApplyError{Path: oldPath, Msg: "file to patch does not exist", Err: fs.ErrNotExist}
		}
		out, err := f.applyHunks(oldPath, src.data)
		if err != nil {
			return nil, err
		}
		switch {
		case f.Deleted:
			if len(out) != 0 {
				return nil, &ApplyError{Path: oldPath, Msg: fmt.Sprintf("file to delete keeps %d bytes after the patch", len(out))}
			}
			src.data, src.exists, src.touched = nil, false, true
		case oldPath != newPath && (f.Renamed || f.Copied):
			dst, err := get(newPath)
			if err != nil {
				return nil, err
			}
			if dst.exists {
				return nil, &ApplyError{Path: newPath, Msg: "rename or copy target already exists", Err: fs.ErrExist}
			}
			*dst = state{data: out, exists: true, origExists: dst.origExists, touched: true}
			if f.Renamed {
				src.data, src.exists, src.touched = nil, false, true
			}
		default:
			src.data, src.touched = out, true
		}
	}
	o := Overlay{}
	for path, s := range files {
		switch {
		case !s.touched:
		case s.exists:
			o.Set(path, s.data)
		case s.origExists:
			o.Remove(path)
		}
	}
	return o, nil
}

// Validate checks the structure of a patch built by hand (ParsePatch only returns valid
// ones): non-empty paths, hunk lines with op ' ', '-' or '+' and no "\n" in their text,
// header counts equal to the hunk's lines, and a line without final newline only at the
// end of its side. Errors are *ApplyError.
func (p *Patch) Validate() error {
	for i := range p.Files {
		if err := p.Files[i].Validate(); err != nil {
			return err
		}
	}
	return nil
}

// Validate checks the file patch as Patch.Validate does.
func (f *FilePatch) Validate() error {
	if f.OldPath == "" || f.NewPath == "" {
		return &ApplyError{Path: f.Path(), Msg: "empty path"}
	}
	for k := range f.Hunks {
		h := &f.Hunks[k]
		fail := func(msg string) error {
			return &ApplyError{Path: f.Path(), Hunk: k + 1, Header: h.Header(), Msg: msg}
		}
		oldN, newN := 0, 0
		for _, l := range h.Lines {
			switch l.Op {
			case ' ':
				oldN++
				newN++
			case '-':
				oldN++
			case '+':
				newN++
			default:
				return fail(fmt.Sprintf("line op %q is not ' ', '-' or '+'", l.Op))
			}
			if strings.IndexByte(l.Text, '\n') >= 0 {
				return fail("a line's text contains a newline")
			}
		}
		if oldN != h.OldLines || newN != h.NewLines {
			return fail(fmt.Sprintf("header counts %d old and %d new lines, the hunk has %d and %d", h.OldLines, h.NewLines, oldN, newN))
		}
		if err := checkNoNewline(h); err != nil {
			return fail(err.Error())
		}
	}
	return nil
}

// ApplyBytes applies the file patch's hunks to old and returns the new contents, with the
// same matching rules as Patch.Apply (path, creation and deletion checks aside). Errors
// are *ApplyError.
func (f *FilePatch) ApplyBytes(old []byte) ([]byte, error) {
	if f.Binary {
		return nil, &ApplyError{Path: f.Path(), Msg: "binary file patch", Err: ErrBinaryPatch}
	}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	return f.applyHunks(f.Path(), old)
}

// splitLines splits data after every "\n"; each line keeps its terminator and a last line
// without one is kept as it is.
func splitLines(data []byte) [][]byte {
	if len(data) == 0 {
		return nil
	}
	lines := make([][]byte, 0, bytes.Count(data, []byte{'\n'})+1)
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			lines = append(lines, data)
			break
		}
		lines = append(lines, data[:i+1:i+1])
		data = data[i+1:]
	}
	return lines
}

// lineMatches reports whether a file line (with its terminator) is the hunk line l.
func lineMatches(line []byte, l *HunkLine) bool {
	if l.NoNewline {
		return string(line) == l.Text
	}
	n := len(line)
	return n == len(l.Text)+1 && line[n-1] == '\n' && string(line[:n-1]) == l.Text
}

func (f *FilePatch) applyHunks(path string, data []byte) ([]byte, error) {
	if len(f.Hunks) == 0 {
		return data, nil
	}
	lines := splitLines(data)
	var out bytes.Buffer
	out.Grow(len(data) + len(data)/8 + 64)
	pos, offset := 0, 0
	for k := range f.Hunks {
		h := &f.Hunks[k]
		fail := func(msg string) error {
			return &ApplyError{Path: path, Hunk: k + 1, Header: h.Header(), Msg: msg}
		}
		var old []*HunkLine
		for i := range h.Lines {
			if h.Lines[i].Op != '+' {
				old = append(old, &h.Lines[i])
			}
		}
		leading, trailing := 0, 0
		for leading < len(h.Lines) && h.Lines[leading].Op == ' ' {
			leading++
		}
		for trailing < len(h.Lines)-leading && h.Lines[len(h.Lines)-1-trailing].Op == ' ' {
			trailing++
		}
		stated := h.OldStart - 1
		if h.OldLines == 0 {
			stated = h.OldStart
		}
		want := stated + offset
		at := -1
		if len(old) == 0 {
			if want < pos || want > len(lines) {
				return nil, fail(fmt.Sprintf("insertion after line %d is outside the file (%d lines) or before the previous hunk", want, len(lines)))
			}
			at = want
		} else {
			// Anchors: git's (a hunk with context stated at line 1 stays there) and
			// patch(1)'s without fuzz (shorter leading context: start of file; shorter
			// trailing: end). A hunk without context floats, as with --unidiff-zero.
			atStart := (h.OldStart == 1 && leading+trailing > 0) || leading < trailing
			at = findHunk(lines, old, want, pos, atStart, !atStart && trailing < leading)
			if at < 0 {
				return nil, fail(mismatch(lines, old, want, pos))
			}
		}
		for _, l := range lines[pos:at] {
			out.Write(l)
		}
		for i := range h.Lines {
			if l := &h.Lines[i]; l.Op != '-' {
				out.WriteString(l.Text)
				if !l.NoNewline {
					out.WriteByte('\n')
				}
			}
		}
		pos = at + len(old)
		offset = at - stated
	}
	for _, l := range lines[pos:] {
		out.Write(l)
	}
	return out.Bytes(), nil
}

// findHunk returns the line index at which old matches lines, searching outwards from
// want within [lo, len(lines)-len(old)], or -1.
func findHunk(lines [][]byte, old []*HunkLine, want, lo int, atStart, atEnd bool) int {
	hi := len(lines) - len(old)
	if hi < lo {
		return -1
	}
	matches := func(at int) bool {
		for j, l := range old {
			if !lineMatches(lines[at+j], l) {
				return false
			}
		}
		return true
	}
	switch {
	case atStart:
		if lo == 0 && matches(0) {
			return 0
		}
		return -1
	case atEnd:
		if matches(hi) {
			return hi
		}
		return -1
	}
	for d := 0; ; d++ {
		below, above := want-d, want+d
		if below < lo && above > hi {
			return -1
		}
		if below >= lo && below <= hi && matches(below) {
			return below
		}
		if d > 0 && above >= lo && above <= hi && matches(above) {
			return above
		}
	}
}

// mismatch describes why old does not match at want, for the error message.
func mismatch(lines [][]byte, old []*HunkLine, want, lo int) string {
	if want < lo {
		want = lo
	}
	if want+len(old) > len(lines) {
		return fmt.Sprintf("does not apply: the hunk needs %d lines from line %d, the file has %d lines", len(old), want+1, len(lines))
	}
	for j, l := range old {
		if !lineMatches(lines[want+j], l) {
			exp := l.Text
			if !l.NoNewline {
				exp += "\n"
			}
			return fmt.Sprintf("does not apply: context differs at line %d: expected %q, found %q (and no match elsewhere)", want+j+1, clip(exp), clip(string(lines[want+j])))
		}
	}
	return "does not apply: the match is anchored at the start or end of the file and is not there"
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}
