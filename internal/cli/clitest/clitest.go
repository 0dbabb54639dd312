// Package clitest checks the programs' side of the internal/cli convention from outside,
// as a user sees it: a built binary is started with a fresh TMPDIR, interrupted mid-run,
// and must exit with 128+signal, leave TMPDIR empty and leave its input repository as it
// was.
package clitest

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Build compiles the package in dir (e.g. ".") to a binary in a temporary directory and
// returns its path.
func Build(t testing.TB, dir string) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH")
	}
	bin := filepath.Join(t.TempDir(), "prog")
	cmd := exec.Command("go", "build", "-o", bin, dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", dir, err, out)
	}
	return bin
}

// HashTree returns a digest of every file under root (paths, modes and contents).
func HashTree(t testing.TB, root string) string {
	t.Helper()
	h := sha256.New()
	var paths []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		paths = append(paths, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(paths)
	for _, p := range paths {
		st, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, p)
		io.WriteString(h, rel+"\x00"+st.Mode().String()+"\x00")
		if st.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			h.Write(b)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Interrupt starts bin with args and a fresh TMPDIR (plus env), waits until its stderr
// has a line containing ready, sends sig, and checks that the program exits with 128+sig
// within a minute, that TMPDIR is empty afterwards, and that repo (when not "") hashes the
// same as before. It returns the program's stderr.
func Interrupt(t *testing.T, bin string, args []string, env []string, ready string, sig syscall.Signal, repo string) string {
	t.Helper()
	var before string
	if repo != "" {
		before = HashTree(t, repo)
	}
	tmp := TempDir(t)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(append(os.Environ(), "TMPDIR="+tmp), env...)
	cmd.Dir = t.TempDir()
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var stderr strings.Builder
	seen := make(chan struct{})
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		sc := bufio.NewScanner(pipe)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		once := sync.Once{}
		for sc.Scan() {
			mu.Lock()
			stderr.WriteString(sc.Text() + "\n")
			mu.Unlock()
			if strings.Contains(sc.Text(), ready) {
				once.Do(func() { close(seen) })
			}
		}
	}()
	select {
	case <-seen:
	case <-copied:
		cmd.Wait()
		t.Fatalf("the program ended (exit %d) before printing a line with %q:\n%s", cmd.ProcessState.ExitCode(), ready, stderr.String())
	case <-time.After(3 * time.Minute):
		cmd.Process.Kill()
		<-copied
		cmd.Wait()
		t.Fatalf("no stderr line with %q within 3 minutes:\n%s", ready, stderr.String())
	}
	// The check below means something only if the program's private files are in TMPDIR:
	// wait (a little) for them to appear before the signal.
	for wait := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if ents, _ := os.ReadDir(tmp); len(ents) > 0 {
			break
		}
		if time.Now().After(wait) {
			t.Errorf("nothing in TMPDIR within 10 s of %q: an empty TMPDIR after the interrupt would prove nothing", ready)
			break
		}
	}
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		<-copied
		done <- cmd.Wait()
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		<-done
		t.Fatalf("still running a minute after %v:\n%s", sig, stderr.String())
	}
	mu.Lock()
	text := stderr.String()
	mu.Unlock()
	if code := cmd.ProcessState.ExitCode(); code != 128+int(sig) {
		t.Errorf("exit status %d after %v, want %d:\n%s", code, sig, 128+int(sig), text)
	}
	var left []string
	filepath.WalkDir(tmp, func(p string, d fs.DirEntry, err error) error {
		if p != tmp {
			left = append(left, strings.TrimPrefix(p, tmp+"/"))
		}
		return nil
	})
	if len(left) > 0 {
		if len(left) > 10 {
			left = append(left[:10], "…")
		}
		t.Errorf("TMPDIR holds %d entries after the interrupt: %v", len(left), left)
	}
	if repo != "" && HashTree(t, repo) != before {
		t.Errorf("the repository %s changed", repo)
	}
	return text
}

// Finish runs bin with args and a fresh TMPDIR (plus env) to its end and checks that it
// exits with want and leaves TMPDIR empty. It returns stdout and stderr.
func Finish(t *testing.T, bin string, args, env []string, want int) (string, string) {
	t.Helper()
	tmp := TempDir(t)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(append(os.Environ(), "TMPDIR="+tmp), env...)
	cmd.Dir = t.TempDir()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != want {
		t.Errorf("exit status %d, want %d:\n%s", code, want, stderr.String())
	}
	if ents, _ := os.ReadDir(tmp); len(ents) > 0 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("TMPDIR holds %v after a normal end", names)
	}
	return stdout.String(), stderr.String()
}

// TempDir returns a fresh directory for a program's TMPDIR that the sandbox's unprivileged
// run uid can reach. t.TempDir's parent is private (0700); a sandbox given such a TMPDIR puts
// its slots elsewhere (with a note), and a check that TMPDIR is left empty would then prove
// nothing.
func TempDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// CancelAfter is a stderr for a program run in-process that calls Cancel once the output
// holds Marker K times (K ≤ 1: once): the test's way to interrupt a run at a known point,
// e.g. after k validated candidates, and then start it again.
type CancelAfter struct {
	Marker string
	K      int
	Cancel func()

	mu  sync.Mutex
	buf bytes.Buffer
}

// Write records p and cancels when the marker count is reached.
func (w *CancelAfter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if strings.Count(w.buf.String(), w.Marker) >= max(w.K, 1) {
		w.Cancel()
	}
	return len(p), nil
}

// String returns what was written.
func (w *CancelAfter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}
