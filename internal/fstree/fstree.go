// Package fstree is faultline's one way to copy, write and read directory trees: the
// sandbox's private snapshot of a repository, the writable copies of real test subjects
// (the module cache and Debian's packages are read-only) that the tests and the bench
// programs work on, and the small trees the tests write and compare.
//
// Copies are byte for byte, never hard links: a test running as root could otherwise
// write through a link into the source. What differs between callers is an Options value,
// not another walk.
package fstree

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// Options say what a copy leaves out and how it treats modes and links. The zero value
// copies everything but special files (sockets, fifos, devices), keeps permission bits,
// and leaves symbolic links out.
type Options struct {
	// Skip, when set, reports whether the entry at rel (slash-separated, relative to the
	// source root; never ".") is left out; for a directory, with all below it.
	Skip func(rel string, d fs.DirEntry) bool
	// Writable makes every copied file and directory writable by its owner (mode | 0o600
	// for files, | 0o700 for directories): copies of read-only sources stay editable and
	// removable. Directories are always at least 0o700 so the copy can be filled.
	Writable bool
	// Links recreates symbolic links as they are (their targets are not followed or
	// checked). Without it they are left out: a link could point back into the source.
	Links bool
	// Strict makes an entry Copy would leave out for its type (a symbolic link without
	// Links, a socket, fifo or device) an error naming it: for copies of trees the program
	// wrote itself, where such an entry means something else has been there.
	Strict bool
}

// SkipNames returns an Options.Skip that leaves out the directories whose base name
// skipDir accepts (such as repo.SkipSnapshotDir).
func SkipNames(skipDir func(name string) bool) func(string, fs.DirEntry) bool {
	return func(_ string, d fs.DirEntry) bool { return d.IsDir() && skipDir(d.Name()) }
}

// PyCache is an Options.Skip that leaves out __pycache__ directories: byte code of
// another interpreter run, which a copy should not carry over.
func PyCache(_ string, d fs.DirEntry) bool { return d.IsDir() && d.Name() == "__pycache__" }

// CopySubject makes the writable copy of a real test subject that the tests and the bench
// programs work on (the module cache and Debian's packages are read-only): Copy with
// Writable, without __pycache__ directories and without symbolic links.
func CopySubject(src, dst string) error {
	return Copy(src, dst, Options{Writable: true, Skip: PyCache})
}

// Copy copies the tree at src to dst. dst itself may exist (an empty directory, such as a
// test's temporary one); nothing below it may, so a copy never overwrites a file.
func Copy(src, dst string, o Options) error {
	info, err := os.Stat(src)
	if err != nil {
		return err
	}
	if !info.IsDir() {
		return fmt.Errorf("copy %s: not a directory", src)
	}
	if err := os.MkdirAll(dst, dirMode(info.Mode().Perm())); err != nil {
		return err
	}
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == src {
			return nil
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if o.Skip != nil && o.Skip(filepath.ToSlash(rel), d) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		target := filepath.Join(dst, rel)
		switch t := d.Type(); {
		case t.IsDir():
			info, err := d.Info()
			if err != nil {
				return err
			}
			return os.Mkdir(target, dirMode(info.Mode().Perm()))
		case t&fs.ModeSymlink != 0 && o.Links:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		case t.IsRegular():
			info, err := d.Info()
			if err != nil {
				return err
			}
			mode := info.Mode().Perm()
			if o.Writable {
				mode |= 0o600
			}
			return CopyFile(p, target, mode)
		case o.Strict:
			return fmt.Errorf("copy %s: %s is not a regular file or a directory", src, rel)
		default:
			return nil
		}
	})
}

func dirMode(m fs.FileMode) fs.FileMode { return m | 0o700 }

// CopyFile copies the regular file src to dst, which must not exist, with mode.
func CopyFile(src, dst string, mode fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	// The umask may have narrowed the mode given to OpenFile.
	return os.Chmod(dst, mode)
}

// Write writes files (slash path relative to root → contents) below root with mode 0o644,
// creating directories as needed.
func Write(root string, files map[string]string) error {
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// LinkPrefix starts the value Read gives a symbolic link: LinkPrefix + its target.
const LinkPrefix = "symlink:"

// Read returns the regular files below root by slash path relative to root, with their
// contents, and the symbolic links with LinkPrefix + target; directories and special
// files are not entries. skip, when set, leaves entries out as Options.Skip does.
func Read(root string, skip func(rel string, d fs.DirEntry) bool) (map[string]string, error) {
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == root {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if skip != nil && skip(rel, d) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		switch t := d.Type(); {
		case t&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			out[rel] = LinkPrefix + link
		case t.IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = string(b)
		}
		return nil
	})
	return out, err
}

// Diff lists the paths at which two results of Read differ, sorted, with " (missing)" or
// " (extra)" where one side lacks the path; nil when they are equal.
func Diff(got, want map[string]string) []string {
	var d []string
	for p, w := range want {
		g, ok := got[p]
		switch {
		case !ok:
			d = append(d, p+" (missing)")
		case g != w:
			d = append(d, p)
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			d = append(d, p+" (extra)")
		}
	}
	slices.Sort(d)
	return d
}
