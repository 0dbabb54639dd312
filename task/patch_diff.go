package task

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/faultline-dev/faultline/internal/difflib"
)

// DiffOptions configures DiffTrees and DiffOverlay. The zero value gives git's defaults.
type DiffOptions struct {
	// Context is the number of unchanged lines around each change: 0 means git's default
	// of 3; a negative value means none (`git diff -U0`).
	Context int
	// Skip, when non-nil, leaves out the slash paths (files or directories, relative to
	// the roots) for which it returns true. DiffTrees always skips ".git".
	Skip func(path string) bool
}

func (o DiffOptions) context() int {
	switch {
	case o.Context == 0:
		return 3
	case o.Context < 0:
		return 0
	}
	return o.Context
}

// DiffText compares two versions of a file and returns a file patch with context lines
// of context around each change (negative means 0). The lines are split after each "\n"
// and keep everything else, so a "\r" of a CRLF line is content and a last line without
// "\n" is marked NoNewline. The alignment is Python difflib's (SequenceMatcher with
// autojunk, grouped opcodes): the hunks are exactly those of
// difflib.unified_diff(old, new, n=context) on the same lines, written as git writes a
// missing final newline. Identical inputs give a file patch without hunks.
//
// OldPath is oldName and NewPath newName; when they differ the file patch is marked
// Renamed. DiffText does not know whether a side is absent: set Created or Deleted (and
// the modes) on the result for that, or use DiffTrees / DiffOverlay, which do.
func DiffText(oldName, newName string, old, new []byte, context int) FilePatch {
	fp := FilePatch{OldPath: oldName, NewPath: newName, Renamed: oldName != newName}
	fp.Hunks = diffHunks(old, new, max(context, 0))
	return fp
}

// DiffBytes is DiffText for a modified file, formatted: the git-style patch text that
// turns old into new at path name (empty when they are equal).
func DiffBytes(name string, old, new []byte, context int) []byte {
	fp := DiffText(name, name, old, new, context)
	if len(fp.Hunks) == 0 {
		return nil
	}
	return fp.Format()
}

// lineStrings splits data into lines that keep their "\n".
func lineStrings(data []byte) []string {
	raw := splitLines(data)
	s := make([]string, len(raw))
	for i, l := range raw {
		s[i] = string(l)
	}
	return s
}

func toHunkLine(op byte, line string) HunkLine {
	if n := len(line); n > 0 && line[n-1] == '\n' {
		return HunkLine{Op: op, Text: line[:n-1]}
	}
	return HunkLine{Op: op, Text: line, NoNewline: true}
}

func diffHunks(old, new []byte, context int) []Hunk {
	if bytes.Equal(old, new) {
		return nil
	}
	a, b := lineStrings(old), lineStrings(new)
	groups := difflib.NewMatcher(a, b).GroupedOpCodes(context)
	hunks := make([]Hunk, 0, len(groups))
	for _, g := range groups {
		first, last := g[0], g[len(g)-1]
		h := Hunk{
			OldStart: first.I1 + 1, OldLines: last.I2 - first.I1,
			NewStart: first.J1 + 1, NewLines: last.J2 - first.J1,
		}
		if h.OldLines == 0 {
			h.OldStart--
		}
		if h.NewLines == 0 {
			h.NewStart--
		}
		for _, op := range g {
			if op.Tag == 'e' {
				for _, l := range a[op.I1:op.I2] {
					h.Lines = append(h.Lines, toHunkLine(' ', l))
				}
				continue
			}
			for _, l := range a[op.I1:op.I2] {
				h.Lines = append(h.Lines, toHunkLine('-', l))
			}
			for _, l := range b[op.J1:op.J2] {
				h.Lines = append(h.Lines, toHunkLine('+', l))
			}
		}
		hunks = append(hunks, h)
	}
	return hunks
}

// blobHash returns git's abbreviated blob name of data (the first 7 hex digits of the
// SHA-1 of "blob <len>\x00<data>"), as `git diff` prints in index lines.
func blobHash(data []byte) string {
	h := sha1.New()
	h.Write([]byte("blob " + strconv.Itoa(len(data)) + "\x00"))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))[:7]
}

const nullHash = "0000000"

// BinaryPrefix is how much of a file the binary rule looks at (git's buffer size).
const BinaryPrefix = 8000

// IsBinary reports whether data is binary by git's rule: a NUL byte in its first
// BinaryPrefix bytes. Binary files get no line diff. It is the project's one binary rule
// (task/repo.IsBinaryFile applies it to a file).
func IsBinary(data []byte) bool {
	return bytes.IndexByte(data[:min(len(data), BinaryPrefix)], 0) >= 0
}

// side is one version of a file for diffing.
type side struct {
	exists bool
	data   []byte
	mode   string
}

func diffFile(path string, a, b side, context int) (FilePatch, bool) {
	fp := FilePatch{OldPath: path, NewPath: path}
	switch {
	case !a.exists && !b.exists:
		return fp, false
	case !a.exists:
		fp.Created, fp.NewMode = true, b.mode
		fp.OldHash, fp.NewHash = nullHash, blobHash(b.data)
	case !b.exists:
		fp.Deleted, fp.OldMode = true, a.mode
		fp.OldHash, fp.NewHash = blobHash(a.data), nullHash
	default:
		if bytes.Equal(a.data, b.data) && a.mode == b.mode {
			return fp, false
		}
		fp.OldMode, fp.NewMode = a.mode, b.mode
		if !bytes.Equal(a.data, b.data) {
			fp.OldHash, fp.NewHash = blobHash(a.data), blobHash(b.data)
		}
	}
	if IsBinary(a.data) || IsBinary(b.data) {
		fp.Binary = true
		return fp, true
	}
	fp.Hunks = diffHunks(a.data, b.data, context)
	return fp, true
}

func fileMode(m fs.FileMode) string {
	if m&0o111 != 0 {
		return "100755"
	}
	return "100644"
}

// readTree returns the regular files below root by slash path. Symbolic links and other
// non-regular files are errors: a patch of them could not be applied through an Overlay.
func readTree(root string, skip func(string) bool) (map[string]side, error) {
	files := map[string]side{}
	if root == "" {
		return files, nil
	}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if rel == "." {
			return nil
		}
		if d.IsDir() {
			if d.Name() == ".git" || (skip != nil && skip(rel)) {
				return filepath.SkipDir
			}
			return nil
		}
		if skip != nil && skip(rel) {
			return nil
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("task: diff: %s is not a regular file (%v)", p, d.Type())
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files[rel] = side{exists: true, data: data, mode: fileMode(info.Mode())}
		return nil
	})
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("task: diff: %w", err)
		}
		return nil, err
	}
	return files, nil
}

// DiffTrees compares the regular files below two directories and returns the patch that
// turns oldRoot into newRoot, one file patch per changed, created or deleted file, in path
// order (git's order). An empty root stands for an empty tree. ".git" directories are
// skipped; a symbolic link or other non-regular file is an error. Files with a NUL byte in
// their first 8000 bytes are binary (git's rule) and get a Binary file patch. Renames are
// not detected (a rename is a deletion and a creation). Modes are 100755 for files with
// an execute bit, else 100644; index lines carry git's abbreviated blob names.
func DiffTrees(oldRoot, newRoot string, opts DiffOptions) (*Patch, error) {
	a, err := readTree(oldRoot, opts.Skip)
	if err != nil {
		return nil, err
	}
	b, err := readTree(newRoot, opts.Skip)
	if err != nil {
		return nil, err
	}
	paths := make([]string, 0, len(a)+len(b))
	for p := range a {
		paths = append(paths, p)
	}
	for p := range b {
		if _, ok := a[p]; !ok {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	patch := &Patch{}
	for _, p := range paths {
		if fp, changed := diffFile(p, a[p], b[p], opts.context()); changed {
			patch.Files = append(patch.Files, fp)
		}
	}
	return patch, nil
}

// DiffOverlay returns the patch that turns the tree at root into the tree with o applied:
// one file patch per overlay path whose state differs, in path order. Paths are checked
// with SafeJoin before anything is read (no reads outside root, none through symbolic
// links). Deleting a missing file is not a change. Modes of existing files are kept;
// created files get 100644.
func DiffOverlay(root string, o Overlay, opts DiffOptions) (*Patch, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	patch := &Patch{}
	for _, p := range o.Paths() {
		t, err := SafeJoin(root, p)
		if err != nil {
			return nil, err
		}
		var a side
		if st, err := os.Stat(t); err == nil {
			if !st.Mode().IsRegular() {
				return nil, fmt.Errorf("task: diff: %s is not a regular file", p)
			}
			data, err := os.ReadFile(t)
			if err != nil {
				return nil, fmt.Errorf("task: diff: %w", err)
			}
			a = side{exists: true, data: data, mode: fileMode(st.Mode())}
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("task: diff: %w", err)
		}
		c, _ := CleanRelPath(p)
		b := side{}
		if ch := o[p]; !ch.Delete {
			b = side{exists: true, data: ch.Data, mode: a.mode}
			if !a.exists {
				b.mode = "100644"
			}
		}
		if fp, changed := diffFile(c, a, b, opts.context()); changed {
			patch.Files = append(patch.Files, fp)
		}
	}
	return patch, nil
}
