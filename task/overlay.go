package task

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// ErrUnsafePath is wrapped by every error about a path that would escape its root: an
// absolute path, a `..` component, or a path through a symbolic link.
var ErrUnsafePath = errors.New("path escapes the root")

// Change is the new state of one file in an overlay: new contents, or deletion.
type Change struct {
	Data   []byte
	Delete bool
}

// Overlay maps slash paths relative to a repository root to their changed state. It is how
// every producer (corruptions, masks, composed bugs, agent patches) describes a program
// without touching the user's checkout.
type Overlay map[string]Change

// Set records new contents for p.
func (o Overlay) Set(p string, data []byte) { o[p] = Change{Data: data} }

// Remove records the deletion of p.
func (o Overlay) Remove(p string) { o[p] = Change{Delete: true} }

// Paths returns the overlay's paths in sorted order.
func (o Overlay) Paths() []string {
	ps := make([]string, 0, len(o))
	for p := range o {
		ps = append(ps, p)
	}
	sort.Strings(ps)
	return ps
}

// Clone returns a copy of the overlay that shares no maps (file contents are shared, and
// callers must not modify them).
func (o Overlay) Clone() Overlay {
	c := make(Overlay, len(o))
	for p, ch := range o {
		c[p] = ch
	}
	return c
}

// Merge returns a new overlay holding o's changes with other's on top.
func (o Overlay) Merge(other Overlay) Overlay {
	c := o.Clone()
	for p, ch := range other {
		c[p] = ch
	}
	return c
}

// Validate checks every path with CleanRelPath.
func (o Overlay) Validate() error {
	for _, p := range o.Paths() {
		if _, err := CleanRelPath(p); err != nil {
			return err
		}
	}
	return nil
}

// WriteTo applies the overlay to the directory dir: changed files are written (replacing
// any hard link or symlink with a fresh regular file, parents created), deleted files are
// removed. It refuses any path that escapes dir, including through a symbolic link inside
// dir, and validates every path before writing anything.
func (o Overlay) WriteTo(dir string) error {
	paths := o.Paths()
	targets := make([]string, len(paths))
	for i, p := range paths {
		t, err := SafeJoin(dir, p)
		if err != nil {
			return err
		}
		targets[i] = t
	}
	for i, p := range paths {
		ch, t := o[p], targets[i]
		if ch.Delete {
			if err := os.Remove(t); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("task: overlay: %w", err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(t), 0o755); err != nil {
			return fmt.Errorf("task: overlay: %w", err)
		}
		mode := fs.FileMode(0o644)
		if st, err := os.Lstat(t); err == nil {
			if st.Mode().IsRegular() {
				mode = st.Mode().Perm()
			}
			// Break hard links and symlinks: the copy may share inodes with the original.
			if err := os.Remove(t); err != nil {
				return fmt.Errorf("task: overlay: %w", err)
			}
		}
		if err := os.WriteFile(t, ch.Data, mode); err != nil {
			return fmt.Errorf("task: overlay: %w", err)
		}
	}
	return nil
}

// CleanRelPath checks that p is a relative slash path that stays inside its root and
// returns it cleaned. Absolute paths, `..` components that leave the root, empty paths,
// NUL bytes and backslashes are refused with an error wrapping ErrUnsafePath.
func CleanRelPath(p string) (string, error) {
	if p == "" || strings.ContainsRune(p, 0) || strings.Contains(p, `\`) {
		return "", fmt.Errorf("task: %q: %w", p, ErrUnsafePath)
	}
	if path.IsAbs(p) || filepath.IsAbs(p) || filepath.VolumeName(p) != "" {
		return "", fmt.Errorf("task: %q is absolute: %w", p, ErrUnsafePath)
	}
	c := path.Clean(p)
	if c == "." || c == ".." || strings.HasPrefix(c, "../") {
		return "", fmt.Errorf("task: %q: %w", p, ErrUnsafePath)
	}
	return c, nil
}

// SafeJoin joins root and the relative slash path p, refusing paths that escape root
// lexically or through a symbolic link at any existing component below root (the final
// component may be a symlink only if it is about to be replaced, so it is checked too:
// writing through it would write outside). The result is a native path.
func SafeJoin(root, p string) (string, error) {
	c, err := CleanRelPath(p)
	if err != nil {
		return "", err
	}
	cur := root
	for _, part := range strings.Split(c, "/") {
		cur = filepath.Join(cur, part)
		st, err := os.Lstat(cur)
		if errors.Is(err, fs.ErrNotExist) {
			break // nothing below can be a link yet
		}
		if err != nil {
			return "", fmt.Errorf("task: %s: %w", p, err)
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			return "", fmt.Errorf("task: %s: passes through symbolic link %s: %w", p, cur, ErrUnsafePath)
		}
	}
	return filepath.Join(root, filepath.FromSlash(c)), nil
}
