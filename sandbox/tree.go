package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/faultline-dev/faultline/internal/fstree"
	"github.com/faultline-dev/faultline/task"
	"github.com/faultline-dev/faultline/task/repo"
)

// copyTree copies the tree at src into dst: the sandbox's snapshot of a repository. Regular
// files are copied byte for byte (never hard-linked: a test running as root could write
// through a link into the user's checkout) with their permission bits, symbolic links are
// recreated as they are, and the directories repo.SkipSnapshotDir names are left out.
func copyTree(src, dst string) error {
	return fstree.Copy(src, dst, fstree.Options{Links: true, Skip: fstree.SkipNames(repo.SkipSnapshotDir)})
}

// forceRemoveAll removes p even when a test left directories without write permission.
func forceRemoveAll(p string) error {
	if err := os.RemoveAll(p); err == nil {
		return nil
	}
	_ = filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(q, 0o700)
		}
		return nil
	})
	return os.RemoveAll(p)
}

// fileSig identifies a file version cheaply; its hash is recomputed only when it changes.
type fileSig struct {
	size  int64
	mtime time.Time
	mode  fs.FileMode
}

type fileSum struct {
	sig fileSig
	sum [32]byte
}

// TreeHasher hashes repository trees with an overlay applied. It remembers each file's hash
// under its (path, size, mtime, mode), so rehashing an unchanged tree costs one directory
// walk and the overlaid files. It is safe for concurrent use.
type TreeHasher struct {
	mu    sync.Mutex
	roots map[string]map[string]fileSum
}

// NewTreeHasher returns an empty hasher.
func NewTreeHasher() *TreeHasher { return &TreeHasher{roots: map[string]map[string]fileSum{}} }

// Hash returns a hex SHA-256 over every file of root (resolved through symbolic links) (the entries copyTree copies: relative
// path, kind, permission bits, and content or link target) after overlay.
func (h *TreeHasher) Hash(root string, overlay task.Overlay) (string, error) {
	if err := overlay.Validate(); err != nil {
		return "", fmt.Errorf("sandbox: %w", err)
	}
	root, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", fmt.Errorf("sandbox: hashing: %w", err)
	}
	h.mu.Lock()
	old := h.roots[root]
	h.mu.Unlock()
	cur := make(map[string]fileSum, len(old))
	type entry struct {
		path string
		kind byte
		mode fs.FileMode
		sum  [32]byte
	}
	var entries []entry
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		if rel == "." {
			return nil
		}
		if d.IsDir() && repo.SkipSnapshotDir(d.Name()) {
			return filepath.SkipDir
		}
		rel = filepath.ToSlash(rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch t := d.Type(); {
		case t.IsDir():
			entries = append(entries, entry{path: rel, kind: 'd', mode: info.Mode().Perm()})
		case t&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			entries = append(entries, entry{path: rel, kind: 'l', sum: sha256.Sum256([]byte(link))})
		case t.IsRegular():
			sig := fileSig{size: info.Size(), mtime: info.ModTime(), mode: info.Mode()}
			fsum, ok := old[rel]
			if !ok || fsum.sig != sig {
				sum, err := hashFile(p)
				if err != nil {
					return err
				}
				fsum = fileSum{sig: sig, sum: sum}
			}
			cur[rel] = fsum
			entries = append(entries, entry{path: rel, kind: 'f', mode: info.Mode().Perm(), sum: fsum.sum})
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("sandbox: hashing %s: %w", root, err)
	}
	h.mu.Lock()
	h.roots[root] = cur
	h.mu.Unlock()

	byPath := make(map[string]int, len(entries))
	for i, e := range entries {
		byPath[e.path] = i
	}
	for _, p := range overlay.Paths() {
		ch := overlay[p]
		c, _ := task.CleanRelPath(p)
		i, ok := byPath[c]
		if ch.Delete {
			if ok {
				entries[i].kind = 0
			}
			continue
		}
		e := entry{path: c, kind: 'f', mode: 0o644, sum: sha256.Sum256(ch.Data)}
		if ok {
			if entries[i].kind == 'f' {
				e.mode = entries[i].mode
			}
			entries[i] = e
		} else {
			entries = append(entries, e)
			byPath[c] = len(entries) - 1
		}
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].path < entries[j].path })
	hh := sha256.New()
	for _, e := range entries {
		if e.kind == 0 {
			continue
		}
		fmt.Fprintf(hh, "%c %o %s\x00", e.kind, e.mode, e.path)
		hh.Write(e.sum[:])
	}
	return hex.EncodeToString(hh.Sum(nil)), nil
}

func hashFile(p string) ([32]byte, error) {
	var sum [32]byte
	f, err := os.Open(p)
	if err != nil {
		return sum, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return sum, err
	}
	copy(sum[:], h.Sum(nil))
	return sum, nil
}

var errNotDir = errors.New("not a directory")
