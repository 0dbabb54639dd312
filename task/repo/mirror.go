package repo

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/faultline-dev/faultline/task"
)

// A mirror is a git repository, separate from the user's, that holds a benchmark's repository
// states as commits so that SWE-bench-style harnesses can check them out: one commit with the
// project as it was analysed (the base), and for each task a commit whose tree is the base
// with the task's overlay applied (the corrupted or masked state), on a branch and a tag named
// after the task — the way SWE-smith publishes its bugs. An instance's base_commit is then
// its task commit, where its patch (the gold fix) applies.
//
// Commits are made with fixed author, committer and dates, so the same inputs give the same
// commit ids on any machine and in any run. The user's repository is only read.

// MirrorTask is one task state to write.
type MirrorTask struct {
	// Name names the branch and tag (refs/heads/task/NAME, refs/tags/task/NAME): letters,
	// digits and . _ - only (an instance id qualifies).
	Name string
	// Changes is the task's overlay on the base tree.
	Changes task.Overlay
	// Message is the commit message (default "task NAME").
	Message string
}

// MirrorOptions configure WriteMirror. The zero value works.
type MirrorOptions struct {
	// Include, when set, decides which slash paths of the root belong to the base tree
	// (Project.Contains is one); snapshot directories (SkipSnapshotDir) are always left out.
	Include func(rel string) bool
	// Message is the base commit's message (default: "base: ROOT").
	Message string
	// Branch is the base branch (default "base").
	Branch string
}

// Mirrored is what WriteMirror wrote.
type Mirrored struct {
	// Dir is the mirror repository (bare).
	Dir string
	// Base is the base commit id.
	Base string
	// Tasks maps a task name to its commit id.
	Tasks map[string]string
}

var mirrorNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// SafeName returns s as a name WriteMirror accepts for a task or branch: every byte other
// than an ASCII letter, digit, '.', '_' or '-' becomes '_', a run of dots is broken up
// ("a..b" becomes "a._b"), a first byte that is not a letter or digit is preceded by "x",
// and ".lock" at the end becomes "_lock". Names already accepted are returned unchanged;
// different inputs can give the same name, so a caller that needs distinct names must
// keep its inputs distinct in the characters kept (ids are).
func SafeName(s string) string {
	b := []byte(s)
	for i, ch := range b {
		if !(ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '.' || ch == '_' || ch == '-') {
			b[i] = '_'
		}
	}
	out := string(b)
	for strings.Contains(out, "..") {
		out = strings.ReplaceAll(out, "..", "._")
	}
	if out == "" || !(out[0] >= 'a' && out[0] <= 'z' || out[0] >= 'A' && out[0] <= 'Z' || out[0] >= '0' && out[0] <= '9') {
		out = "x" + out
	}
	if strings.HasSuffix(out, ".lock") {
		out = strings.TrimSuffix(out, ".lock") + "_lock"
	}
	return out
}

// DefaultName is a repository's owner/name when the user names none, by the first rule
// that applies:
//   - the git remote origin's owner/name (remote, as Git reports it);
//   - for a Go module (module is its path, "" for other languages) whose path names a
//     repository of a host where a repository is always OWNER/NAME (github.com,
//     bitbucket.org, codeberg.org, and gitlab.com without subgroups), that OWNER/NAME:
//     github.com/hashicorp/golang-lru/v2, copied from the module cache, is
//     hashicorp/golang-lru;
//   - "local/" and the base name of dir, the directory the user gave.
//
// Each side is made safe by SafeName, so the name can go into instance ids and mirror refs:
// a directory such as xid@v1.6.0 outside a module becomes local/xid_v1.6.0. breakpoint and
// featurebench take it for their records' and instances' repo.
func DefaultName(remote, module, dir string) string {
	if owner, name, ok := strings.Cut(remote, "/"); ok && owner != "" && name != "" {
		return SafeName(owner) + "/" + SafeName(name)
	}
	if owner, name, ok := moduleRepo(module); ok {
		return SafeName(owner) + "/" + SafeName(name)
	}
	return "local/" + SafeName(filepath.Base(dir))
}

// moduleRepo returns the OWNER and NAME of the repository a Go module path names on a host
// whose repositories are exactly OWNER/NAME (a module in a subdirectory, or with a major
// version suffix, belongs to that repository too). gitlab.com counts only when the path has
// no more elements, as subgroups make gitlab.com/a/b/c ambiguous.
func moduleRepo(module string) (owner, name string, ok bool) {
	parts := strings.Split(module, "/")
	if len(parts) < 3 || parts[1] == "" || parts[2] == "" {
		return "", "", false
	}
	switch parts[0] {
	case "github.com", "bitbucket.org", "codeberg.org":
	case "gitlab.com":
		rest := parts[3:]
		if len(rest) == 1 && isMajorSuffix(rest[0]) {
			rest = nil
		}
		if len(rest) > 0 {
			return "", "", false
		}
	default:
		return "", "", false
	}
	return parts[1], strings.TrimSuffix(parts[2], ".git"), true
}

// isMajorSuffix reports whether a module path element is a major version suffix (v2, v3, …).
func isMajorSuffix(s string) bool {
	if len(s) < 2 || s[0] != 'v' || s[1] == '0' {
		return false
	}
	for _, c := range s[1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != "v1"
}

// mirrorSignature is the fixed identity of every mirror commit (the epoch, UTC).
const mirrorSignature = "faultline <faultline@localhost> 0 +0000"

// WriteMirror writes the base tree of root and the task states into the bare git repository
// dir (created when absent; an existing mirror gets its base branch and the named task refs
// replaced). It runs `git fast-import` once. Tasks with invalid names, duplicate names or an
// overlay that does not validate are refused before anything is written.
func WriteMirror(ctx context.Context, dir, root string, tasks []MirrorTask, opts MirrorOptions) (*Mirrored, error) {
	if opts.Branch == "" {
		opts.Branch = "base"
	}
	if !mirrorNameRE.MatchString(opts.Branch) {
		return nil, fmt.Errorf("repo: mirror: bad branch name %q", opts.Branch)
	}
	seen := map[string]bool{}
	for _, t := range tasks {
		if !mirrorNameRE.MatchString(t.Name) || strings.Contains(t.Name, "..") || strings.HasSuffix(t.Name, ".lock") {
			return nil, fmt.Errorf("repo: mirror: bad task name %q (letters, digits and . _ - only)", t.Name)
		}
		if seen[t.Name] {
			return nil, fmt.Errorf("repo: mirror: task %q given twice", t.Name)
		}
		seen[t.Name] = true
		if err := t.Changes.Validate(); err != nil {
			return nil, fmt.Errorf("repo: mirror: task %s: %w", t.Name, err)
		}
	}
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("repo: mirror: %w", err)
	}
	files, err := snapshotFiles(absRoot, opts.Include)
	if err != nil {
		return nil, err
	}
	if opts.Message == "" {
		opts.Message = "base: " + filepath.Base(absRoot)
	}
	if err := initBare(ctx, dir); err != nil {
		return nil, err
	}
	marks, err := os.CreateTemp("", "faultline-marks-")
	if err != nil {
		return nil, fmt.Errorf("repo: mirror: %w", err)
	}
	marks.Close()
	defer os.Remove(marks.Name())

	// The stream is written by a goroutine while fast-import reads it.
	cmd := exec.CommandContext(ctx, "git", "--git-dir="+dir, "fast-import", "--quiet", "--force", "--done", "--export-marks="+marks.Name())
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("repo: mirror: %w", err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("repo: mirror: git fast-import: %w", err)
	}
	werr := make(chan error, 1)
	go func() {
		w := bufio.NewWriterSize(stdin, 1<<20)
		err := writeMirrorStream(w, absRoot, files, tasks, opts)
		if err == nil {
			err = w.Flush()
		}
		stdin.Close()
		werr <- err
	}()
	runErr := cmd.Wait()
	if err := <-werr; err != nil && runErr == nil {
		return nil, err
	}
	if runErr != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("repo: mirror: git fast-import: %w: %s", runErr, strings.TrimSpace(stderr.String()))
	}
	ids, err := readMarks(marks.Name())
	if err != nil {
		return nil, err
	}
	// HEAD names the base branch, so that a clone checks it out (git init's default branch
	// may not exist in the mirror).
	if out, err := exec.CommandContext(ctx, "git", "--git-dir", dir, "symbolic-ref", "HEAD", "refs/heads/"+opts.Branch).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("repo: mirror: setting HEAD: %w: %s", err, strings.TrimSpace(string(out)))
	}
	m := &Mirrored{Dir: dir, Base: ids[baseMark], Tasks: map[string]string{}}
	for i, t := range tasks {
		m.Tasks[t.Name] = ids[taskMark(i)]
	}
	return m, nil
}

// snapFile is one file of the base tree.
type snapFile struct {
	rel  string
	mode string // fast-import mode: 100644, 100755, 120000
}

// snapshotFiles lists the regular files and symbolic links below root (sorted by path),
// leaving out snapshot directories and what include rejects.
func snapshotFiles(root string, include func(string) bool) ([]snapFile, error) {
	var out []snapFile
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && SkipSnapshotDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if include != nil && !include(rel) {
			return nil
		}
		switch t := d.Type(); {
		case t&fs.ModeSymlink != 0:
			out = append(out, snapFile{rel, "120000"})
		case t.IsRegular():
			info, err := d.Info()
			if err != nil {
				return err
			}
			mode := "100644"
			if info.Mode().Perm()&0o111 != 0 {
				mode = "100755"
			}
			out = append(out, snapFile{rel, mode})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("repo: mirror: reading %s: %w", root, err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].rel < out[j].rel })
	return out, nil
}

func initBare(ctx context.Context, dir string) error {
	if st, err := os.Stat(filepath.Join(dir, "HEAD")); err == nil && st.Mode().IsRegular() {
		return nil
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return fmt.Errorf("repo: mirror: %s exists and is not a bare git repository", dir)
	}
	out, err := exec.CommandContext(ctx, "git", "init", "--quiet", "--bare", dir).CombinedOutput()
	if err != nil {
		return fmt.Errorf("repo: mirror: git init: %w: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

const baseMark = 1

func taskMark(i int) int { return 2 + i }

// fastImportPath quotes a path for a fast-import M/D line when it needs it.
func fastImportPath(p string) string {
	if strings.ContainsAny(p, "\"\\\n") || strings.HasPrefix(p, " ") || strings.HasSuffix(p, " ") {
		return strconv.Quote(p)
	}
	return p
}

func writeData(w *bufio.Writer, data []byte) error {
	if _, err := fmt.Fprintf(w, "data %d\n", len(data)); err != nil {
		return err
	}
	if _, err := w.Write(data); err != nil {
		return err
	}
	_, err := w.WriteString("\n")
	return err
}

func writeMirrorStream(w *bufio.Writer, root string, files []snapFile, tasks []MirrorTask, opts MirrorOptions) error {
	head := func(ref string, mark int, msg string) error {
		if _, err := fmt.Fprintf(w, "commit %s\nmark :%d\nauthor %s\ncommitter %s\n", ref, mark, mirrorSignature, mirrorSignature); err != nil {
			return err
		}
		return writeData(w, []byte(msg))
	}
	inline := func(mode, rel string, data []byte) error {
		if _, err := fmt.Fprintf(w, "M %s inline %s\n", mode, fastImportPath(rel)); err != nil {
			return err
		}
		return writeData(w, data)
	}
	// The base commit has no parent: the mirror's history starts at the analysed state.
	if _, err := fmt.Fprintf(w, "reset refs/heads/%s\n", opts.Branch); err != nil {
		return err
	}
	if err := head("refs/heads/"+opts.Branch, baseMark, opts.Message); err != nil {
		return err
	}
	modes := make(map[string]string, len(files))
	for _, f := range files {
		p := filepath.Join(root, filepath.FromSlash(f.rel))
		var data []byte
		var err error
		if f.mode == "120000" {
			var target string
			target, err = os.Readlink(p)
			data = []byte(target)
		} else {
			data, err = os.ReadFile(p)
		}
		if err != nil {
			return fmt.Errorf("repo: mirror: %w", err)
		}
		modes[f.rel] = f.mode
		if err := inline(f.mode, f.rel, data); err != nil {
			return err
		}
	}
	for i, t := range tasks {
		msg := t.Message
		if msg == "" {
			msg = "task " + t.Name
		}
		ref := "refs/heads/task/" + t.Name
		if _, err := fmt.Fprintf(w, "reset %s\n", ref); err != nil {
			return err
		}
		if err := head(ref, taskMark(i), msg); err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "from :%d\n", baseMark); err != nil {
			return err
		}
		for _, p := range t.Changes.Paths() {
			c := t.Changes[p]
			if c.Delete {
				if _, err := fmt.Fprintf(w, "D %s\n", fastImportPath(p)); err != nil {
					return err
				}
				continue
			}
			mode := modes[p]
			if mode == "" || mode == "120000" {
				mode = "100644"
			}
			if err := inline(mode, p, c.Data); err != nil {
				return err
			}
		}
		if _, err := fmt.Fprintf(w, "reset refs/tags/task/%s\nfrom :%d\n\n", t.Name, taskMark(i)); err != nil {
			return err
		}
	}
	_, err := w.WriteString("done\n")
	return err
}

func readMarks(p string) (map[int]string, error) {
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("repo: mirror: marks: %w", err)
	}
	ids := map[int]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		mark, id, ok := strings.Cut(line, " ")
		if !ok || !strings.HasPrefix(mark, ":") {
			continue
		}
		n, err := strconv.Atoi(mark[1:])
		if err != nil {
			continue
		}
		ids[n] = id
	}
	if ids[baseMark] == "" {
		return nil, errors.New("repo: mirror: git fast-import reported no base commit")
	}
	return ids, nil
}
