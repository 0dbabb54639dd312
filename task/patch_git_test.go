package task

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/fstree"
)

// Integration tests against the real git: our patches must be accepted by `git apply`,
// and git's patches must parse, re-format byte for byte and apply with our applier.

func requireGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed (apt-get install git)")
	}
}

func git(t *testing.T, dir string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com",
		"-c", "core.autocrlf=false", "-c", "core.quotepath=true", "-c", "diff.noprefix=false",
		"-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "LC_ALL=C")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return out
}

// hashTree reads every file and symbolic link below root outside .git.
func hashTree(t *testing.T, root string) map[string]string {
	t.Helper()
	m, err := fstree.Read(root, fstree.SkipNames(func(n string) bool { return n == ".git" }))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func sameTree(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	if d := fstree.Diff(got, want); d != nil {
		t.Fatalf("%s: trees differ at %v", what, d)
	}
}

// copyTree copies src to dst as a writable tree without .git and __pycache__.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	skip := fstree.SkipNames(func(n string) bool { return n == ".git" || n == "__pycache__" })
	if err := fstree.Copy(src, dst, fstree.Options{Writable: true, Skip: skip}); err != nil {
		t.Fatal(err)
	}
}

// realSources returns a directory of real third-party source files: Debian's simplejson
// package, or the Go standard library's bufio as a fallback.
func realSources(t *testing.T) string {
	t.Helper()
	if st, err := os.Stat("/usr/lib/python3/dist-packages/simplejson"); err == nil && st.IsDir() {
		return "/usr/lib/python3/dist-packages/simplejson"
	}
	return filepath.Join(goRoot(t), "src", "bufio")
}

// goRoot returns the GOROOT of the go command on PATH (the tests' fallback source of real
// third-party files), skipping t when there is none.
func goRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil || len(bytes.TrimSpace(out)) == 0 {
		t.Skipf("go env GOROOT: %v", err)
	}
	return string(bytes.TrimSpace(out))
}

// editLines rewrites a text deterministically: it modifies every 17th line, inserts a line
// after every 29th and deletes every 23rd.
func editLines(data []byte) []byte {
	var out bytes.Buffer
	for i, l := range splitLines(data) {
		n := i + 1
		switch {
		case n%23 == 0:
			continue
		case n%17 == 0:
			out.WriteString("# changed\n")
			out.Write(l)
		default:
			out.Write(l)
		}
		if n%29 == 0 {
			out.WriteString("inserted = 1\n")
		}
	}
	return out.Bytes()
}

// makeTrees builds an old tree (a git repository with one commit) from real sources and a
// new tree with every kind of change, and returns both.
func makeTrees(t *testing.T) (oldDir, newDir string) {
	t.Helper()
	base := t.TempDir()
	oldDir, newDir = filepath.Join(base, "old"), filepath.Join(base, "new")
	copyTree(t, realSources(t), filepath.Join(oldDir, "pkg"))
	write := func(dir, p, s string) {
		t.Helper()
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(oldDir, "nonl.txt", "first\nlast without newline")
	write(oldDir, "win.txt", "one\r\ntwo\r\nthree\r\nfour\r\n")
	write(oldDir, "bytes.bin.txt", "ok\n\xff\xfe not utf-8\n\xc3\x28\nend\n")
	write(oldDir, "becomes_empty.txt", "content\n")
	write(oldDir, "to delete.txt", "bye\n")
	write(oldDir, "empty_then_full.txt", "")
	write(oldDir, "script.sh", "#!/bin/sh\necho hi\n")
	git(t, oldDir, "init", "-q")
	git(t, oldDir, "add", "-A")
	git(t, oldDir, "commit", "-q", "-m", "old")

	copyTree(t, oldDir, newDir)
	entries, err := os.ReadDir(filepath.Join(newDir, "pkg"))
	if err != nil {
		t.Fatal(err)
	}
	edited := 0
	for i, e := range entries {
		if e.IsDir() || i%3 == 2 || !(strings.HasSuffix(e.Name(), ".py") || strings.HasSuffix(e.Name(), ".go")) {
			continue
		}
		p := filepath.Join(newDir, "pkg", e.Name())
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, editLines(data), 0o644); err != nil {
			t.Fatal(err)
		}
		edited++
	}
	if edited < 2 {
		t.Fatalf("only %d real source files to edit", edited)
	}
	write(newDir, "nonl.txt", "first\nlast without newline\nand more")
	write(newDir, "win.txt", "one\r\nTWO\r\nthree\r\nfour\r\nfive")
	write(newDir, "bytes.bin.txt", "ok\n\xff\xfd changed\n\xc3\x28\nend\n")
	write(newDir, "becomes_empty.txt", "")
	write(newDir, "empty_then_full.txt", "now\n")
	write(newDir, "sub dir/new file.py", "def f():\n    return 1")
	write(newDir, "né.txt", "unicode name\n")
	write(newDir, "new_empty.txt", "")
	if err := os.Remove(filepath.Join(newDir, "to delete.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(newDir, "script.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	return oldDir, newDir
}

func writePatch(t *testing.T, p *Patch) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "p.diff")
	if err := os.WriteFile(f, p.Format(), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

func TestDiffTreesAppliedByGit(t *testing.T) {
	requireGit(t)
	oldDir, newDir := makeTrees(t)
	p, err := DiffTrees(oldDir, newDir, DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	for _, f := range p.Files {
		kinds[fmt.Sprintf("created=%v deleted=%v", f.Created, f.Deleted)] = true
	}
	if len(kinds) != 3 {
		t.Fatalf("patch lacks a creation, deletion or modification: %v", kinds)
	}
	file := writePatch(t, p)

	// git applies our patch forward...
	work := t.TempDir()
	copyTree(t, oldDir, work)
	git(t, work, "init", "-q")
	git(t, work, "apply", "--check", file)
	git(t, work, "apply", file)
	sameTree(t, "git apply of DiffTrees", hashTree(t, work), hashTree(t, newDir))
	if st, err := os.Stat(filepath.Join(work, "script.sh")); err != nil || st.Mode()&0o100 == 0 {
		t.Fatalf("git did not apply the mode change of script.sh: %v", err)
	}
	// ...and backwards, both with -R and with our Reverse.
	git(t, work, "apply", "-R", "--check", file)
	git(t, work, "apply", "-R", file)
	sameTree(t, "git apply -R of DiffTrees", hashTree(t, work), hashTree(t, oldDir))
	work2 := t.TempDir()
	copyTree(t, newDir, work2)
	git(t, work2, "init", "-q")
	git(t, work2, "apply", writePatch(t, p.Reverse()))
	sameTree(t, "git apply of Reverse", hashTree(t, work2), hashTree(t, oldDir))

	// Our applier agrees.
	work3 := t.TempDir()
	copyTree(t, oldDir, work3)
	if _, err := p.ApplyDir(work3); err != nil {
		t.Fatal(err)
	}
	sameTree(t, "ApplyDir of DiffTrees", hashTree(t, work3), hashTree(t, newDir))
	if st, err := os.Stat(filepath.Join(work3, "script.sh")); err != nil || st.Mode()&0o100 == 0 {
		t.Fatalf("ApplyDir did not apply the mode change of script.sh: %v", err)
	}
}

func TestGitDiffParsedAndApplied(t *testing.T) {
	requireGit(t)
	oldDir, newDir := makeTrees(t)
	repo := t.TempDir()
	copyTree(t, oldDir, repo)
	git(t, repo, "init", "-q")
	git(t, repo, "add", "-A")
	git(t, repo, "commit", "-q", "-m", "old")
	// The work tree becomes newDir's (a file moved with few changes, so that -M reports a
	// rename with hunks; "to delete.txt" deleted).
	ents, err := os.ReadDir(repo)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Name() != ".git" {
			if err := os.RemoveAll(filepath.Join(repo, e.Name())); err != nil {
				t.Fatal(err)
			}
		}
	}
	copyTree(t, newDir, repo)
	if _, err := os.Lstat(filepath.Join(repo, "to delete.txt")); !os.IsNotExist(err) {
		t.Fatalf("to delete.txt is still in the new tree (%v)", err)
	}
	git(t, repo, "add", "-A")
	git(t, repo, "commit", "-q", "-m", "new")
	newTree := hashTree(t, repo)

	for _, args := range [][]string{
		{"diff", "--no-renames", "HEAD~1", "HEAD"},
		{"diff", "-M", "--full-index", "-U1", "HEAD~1", "HEAD"},
		{"diff", "--no-renames", "-U0", "HEAD~1", "HEAD"},
		{"format-patch", "--stdout", "--no-renames", "HEAD~1"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			out := git(t, repo, args...)
			p, err := ParsePatch(out)
			if err != nil {
				t.Fatal(err)
			}
			if args[0] == "diff" && !bytes.Equal(p.Format(), out) {
				t.Fatalf("Format is not byte-identical to git's output:\n%s", firstDifference(p.Format(), out))
			}
			work := t.TempDir()
			copyTree(t, oldDir, work)
			if _, err := p.ApplyDir(work); err != nil {
				t.Fatal(err)
			}
			sameTree(t, "ApplyDir of git diff", hashTree(t, work), newTree)
			if _, err := p.Reverse().ApplyDir(work); err != nil {
				t.Fatal(err)
			}
			sameTree(t, "ApplyDir of the reversed git diff", hashTree(t, work), hashTree(t, oldDir))
		})
	}
	// A rename detected by git is parsed as one.
	git(t, repo, "mv", "nonl.txt", "moved.txt")
	git(t, repo, "commit", "-q", "-m", "move")
	p, err := ParsePatch(git(t, repo, "diff", "-M", "HEAD~1", "HEAD"))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Files) != 1 || !p.Files[0].Renamed || p.Files[0].OldPath != "nonl.txt" || p.Files[0].NewPath != "moved.txt" || p.Files[0].Similarity != 100 {
		t.Fatalf("rename parsed as %+v", p.Files)
	}
	// A mailbox of two commits (diffstats, signatures and headers between the patches)
	// applies as one patch, the second commit's file patches after the first's.
	for _, rename := range []string{"--no-renames", "-M"} {
		mbox := git(t, repo, "format-patch", "--stdout", rename, "HEAD~2")
		if n := bytes.Count(mbox, []byte("\nFrom ")); n < 1 {
			t.Fatalf("format-patch gave %d mails", n+1)
		}
		p, err = ParsePatch(mbox)
		if err != nil {
			t.Fatal(err)
		}
		work := t.TempDir()
		copyTree(t, oldDir, work)
		if _, err := p.ApplyDir(work); err != nil {
			t.Fatal(err)
		}
		sameTree(t, "ApplyDir of a two-commit mailbox "+rename, hashTree(t, work), hashTree(t, repo))
	}
}

func firstDifference(a, b []byte) string {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := 0; i < len(al) && i < len(bl); i++ {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d: ours %q, git %q", i+1, al[i], bl[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d lines", len(al), len(bl))
}

// TestApplyDirWritesNothingOnError checks that unsafe paths and failing hunks leave the
// tree exactly as it was, including files outside it reachable through symbolic links.
func TestApplyDirWritesNothingOnError(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for p, s := range map[string]string{"a.txt": "1\n2\n3\n", "b.txt": "x\n", "dir/c.txt": "c\n"} {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(root, "linkdir")); err != nil {
		t.Skip("symbolic links unavailable:", err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(root, "linkfile")); err != nil {
		t.Fatal(err)
	}
	good := "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-1\n+one\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+new\n"
	tests := []struct {
		name  string
		patch string
		cause error
	}{
		{"failing last hunk", good + "--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-nope\n+y\n", nil},
		{"parent traversal", good + "--- /dev/null\n+++ b/../escape.txt\n@@ -0,0 +1 @@\n+x\n", ErrUnsafePath},
		{"absolute path", good + "--- a//etc/passwd\n+++ b//etc/passwd\n@@ -1 +1 @@\n-root\n+x\n", ErrUnsafePath},
		{"through a directory symlink", good + "--- /dev/null\n+++ b/linkdir/planted\n@@ -0,0 +1 @@\n+x\n", ErrUnsafePath},
		{"through a file symlink", good + "--- a/linkfile\n+++ b/linkfile\n@@ -1 +1 @@\n-a\n+b\n", ErrUnsafePath},
		{"creating below a file", good + "--- /dev/null\n+++ b/b.txt/x\n@@ -0,0 +1 @@\n+x\n", nil},
		{"deleting a directory", good + "--- a/dir\n+++ /dev/null\n@@ -1 +0,0 @@\n-c\n", nil},
		{"binary", good + "diff --git a/b.txt b/b.txt\nBinary files a/b.txt and b/b.txt differ\n", ErrBinaryPatch},
	}
	before, beforeOut := hashTree(t, root), hashTree(t, outside)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := ParsePatch([]byte(tc.patch))
			if err != nil {
				t.Fatal(err)
			}
			o, err := p.ApplyDir(root)
			var ae *ApplyError
			if !errors.As(err, &ae) || o != nil {
				t.Fatalf("got %v (%T), want *ApplyError", err, err)
			}
			if tc.cause != nil && !errors.Is(err, tc.cause) {
				t.Fatalf("%v does not wrap %v", err, tc.cause)
			}
			sameTree(t, "root after a failed apply", hashTree(t, root), before)
			sameTree(t, "outside after a failed apply", hashTree(t, outside), beforeOut)
		})
	}
	// The good part alone applies.
	p, _ := ParsePatch([]byte(good))
	if _, err := p.ApplyDir(root); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(root, "new.txt")); string(data) != "new\n" {
		t.Fatalf("new.txt = %q", data)
	}
}

func TestDiffOverlay(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "m.py"), []byte("a = 1\nb = 2\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "gone.py"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := Overlay{}
	o.Set("m.py", []byte("a = 1\nb = 3\n"))
	o.Set("pkg/new.py", []byte("n = 0"))
	o.Remove("gone.py")
	o.Remove("never-existed.py")
	o.Set("same.py", nil)
	p, err := DiffOverlay(root, o, DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range p.Files {
		got = append(got, fmt.Sprintf("%s c=%v d=%v %s/%s", f.Path(), f.Created, f.Deleted, f.OldMode, f.NewMode))
	}
	want := []string{"gone.py c=false d=true 100644/", "m.py c=false d=false 100755/100755", "pkg/new.py c=true d=false /100644", "same.py c=true d=false /100644"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("file patches:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	back, err := p.Apply(DirReader(root))
	if err != nil {
		t.Fatal(err)
	}
	delete(o, "never-existed.py")
	for _, k := range o.Paths() {
		if back[k].Delete != o[k].Delete || !bytes.Equal(back[k].Data, o[k].Data) {
			t.Errorf("%s: applying the diff gives %+v, overlay has %+v", k, back[k], o[k])
		}
	}
	if _, err := DiffOverlay(root, Overlay{"../x": {Data: []byte("x")}}, DiffOptions{}); !errors.Is(err, ErrUnsafePath) {
		t.Fatalf("unsafe overlay path: %v", err)
	}
}

func TestDiffTreesOptionsAndErrors(t *testing.T) {
	root := t.TempDir()
	for p, s := range map[string]string{"a.txt": "a\n", "skip/me.txt": "x\n", "d/b.bin": "\x00\x01"} {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// From the empty tree everything is created; Skip leaves out a directory.
	p, err := DiffTrees("", root, DiffOptions{Skip: func(p string) bool { return p == "skip" }})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range p.Files {
		got = append(got, fmt.Sprintf("%s created=%v binary=%v hunks=%d", f.Path(), f.Created, f.Binary, len(f.Hunks)))
	}
	want := "a.txt created=true binary=false hunks=1\nd/b.bin created=true binary=true hunks=0"
	if strings.Join(got, "\n") != want {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), want)
	}
	if !strings.Contains(p.String(), "Binary files /dev/null and b/d/b.bin differ\n") {
		t.Fatalf("binary file patch:\n%s", p.String())
	}
	// A symbolic link cannot be represented: an error, not a silent skip.
	if err := os.Symlink("a.txt", filepath.Join(root, "link")); err != nil {
		t.Skip("symbolic links unavailable:", err)
	}
	if _, err := DiffTrees("", root, DiffOptions{}); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("symlink: %v", err)
	}
	if _, err := DiffTrees(filepath.Join(root, "missing"), root, DiffOptions{}); err == nil || !strings.HasPrefix(err.Error(), "task: diff") {
		t.Fatalf("missing root: %v", err)
	}
	// Context: -U0 and the default 3.
	old, new := []byte("1\n2\n3\n4\n5\n6\n7\n8\n"), []byte("1\n2\n3\n4\nfive\n6\n7\n8\n")
	a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	for dir, data := range map[string][]byte{a: old, b: new} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "n.txt"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for ctx, header := range map[int]string{0: "@@ -2,7 +2,7 @@", -1: "@@ -5 +5 @@", 1: "@@ -4,3 +4,3 @@"} {
		p, err := DiffTrees(a, b, DiffOptions{Context: ctx})
		if err != nil || len(p.Files) != 1 || p.Files[0].Hunks[0].Header() != header {
			t.Errorf("Context %d: %v %s", ctx, err, p.String())
		}
	}
}

// gitApplies runs `git apply` of patch in dir and reports whether it succeeded.
func gitApplies(t *testing.T, dir, patch string, args ...string) bool {
	t.Helper()
	cmd := exec.Command("git", append(append([]string{"apply"}, args...), patch)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	return cmd.Run() == nil
}

// TestApplyOffsetsAgreeWithGit moves the context of every hunk of a real patch (lines
// prepended to the file and inserted between hunks) and checks that our applier and
// `git apply` agree file by file: both refuse (a hunk anchored at line 1) or both apply
// with the same result.
func TestApplyOffsetsAgreeWithGit(t *testing.T) {
	requireGit(t)
	oldDir, newDir := makeTrees(t)
	p, err := DiffTrees(oldDir, newDir, DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	applied, refused := 0, 0
	for _, fp := range p.Files {
		if fp.Created || fp.Deleted || fp.Binary || len(fp.Hunks) == 0 {
			continue
		}
		old, err := os.ReadFile(filepath.Join(oldDir, filepath.FromSlash(fp.OldPath)))
		if err != nil {
			t.Fatal(err)
		}
		lines := splitLines(old)
		var drifted bytes.Buffer
		drifted.WriteString("# drift 1\n# drift 2\n# drift 3\n")
		// Insert two lines in the unchanged gap after the first hunk, if any.
		gap := -1
		if len(fp.Hunks) > 1 {
			h0, h1 := fp.Hunks[0], fp.Hunks[1]
			gap = (h0.OldStart - 1 + h0.OldLines + h1.OldStart - 1) / 2
		}
		for i, l := range lines {
			if i == gap {
				drifted.WriteString("# drift between hunks\n# again\n")
			}
			drifted.Write(l)
		}
		ours, ourErr := fp.ApplyBytes(drifted.Bytes())

		dir := t.TempDir()
		target := filepath.Join(dir, filepath.FromSlash(fp.OldPath))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(target, drifted.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		one := &Patch{Files: []FilePatch{fp}}
		patchFile := filepath.Join(t.TempDir(), "one.diff")
		if err := os.WriteFile(patchFile, one.Format(), 0o644); err != nil {
			t.Fatal(err)
		}
		// A file patch without any context line (here: the diff of an empty file) is a
		// zero-context patch, which git applies only with --unidiff-zero.
		var args []string
		if noContext(fp) {
			args = append(args, "--unidiff-zero")
		}
		gitOK := gitApplies(t, dir, patchFile, args...)
		if gitOK != (ourErr == nil) {
			t.Errorf("%s: git apply ok=%v, ours err=%v", fp.Path(), gitOK, ourErr)
			continue
		}
		if !gitOK {
			refused++
			continue
		}
		applied++
		theirs, err := os.ReadFile(target)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(ours, theirs) {
			t.Errorf("%s: results differ from git apply", fp.Path())
		}
	}
	if applied < 2 {
		t.Fatalf("only %d file patches applied with offsets (%d refused by both)", applied, refused)
	}
	t.Logf("%d file patches applied with offsets by both, %d refused by both", applied, refused)
}

func noContext(fp FilePatch) bool {
	for _, h := range fp.Hunks {
		for _, l := range h.Lines {
			if l.Op == ' ' {
				return false
			}
		}
	}
	return true
}
