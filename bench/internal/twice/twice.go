// Package twice runs a faultline program two times on the same repository with the same
// seed and compares what the two runs wrote byte for byte. The runs differ in everything
// that must not matter: each has its own TMPDIR (at paths of different lengths), its own
// copy of the repository at its own path, its own working directory and its own -jobs.
package twice

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/acceptance"
	"github.com/faultline-dev/faultline/internal/fstree"
)

// Skip skips t unless FAULTLINE_ACCEPTANCE is set (CI sets it): these are long runs on
// real repositories.
func Skip(t *testing.T) {
	t.Helper()
	acceptance.Skip(t, "an acceptance run on real repositories")
}

// SkipUnlessFull skips t unless FAULTLINE_ACCEPTANCE=full: t repeats, on another repository,
// a check the acceptance set CI runs already makes (see package acceptance).
func SkipUnlessFull(t *testing.T) {
	t.Helper()
	acceptance.SkipUnlessFull(t, "an acceptance run on real repositories")
}

// Build compiles the program at the import path pkg into a temporary directory.
func Build(t *testing.T, pkg string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), filepath.Base(pkg))
	cmd := exec.Command("go", "build", "-o", bin, pkg)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin
}

// Run is one run's setting.
type Run struct {
	Repo string // the private copy of the repository
	Out  string // a fresh directory for the outputs
	Jobs string // the -jobs value
}

// Twice copies src (to sub inside each copy's root, "" for the root itself) into two
// private roots at paths of different lengths, runs bin in each with the args that
// args(run) returns (plus -cache with an empty directory of its own), and requires both
// runs to exit 0 and every file of their Out directories to be byte-identical. It returns the files of the first run (slash path →
// contents) and its stderr.
func Twice(t *testing.T, bin, src, sub string, env []string, args func(r Run) []string) (map[string][]byte, string) {
	t.Helper()
	var trees []map[string][]byte
	var firstErr string
	for i, jobs := range []string{"1", "2"} {
		base := t.TempDir()
		deep := filepath.Join(base, strings.Repeat("d", 1+7*i))
		root := filepath.Join(deep, "repo")
		if err := fstree.CopySubject(src, filepath.Join(root, sub)); err != nil {
			t.Fatal(err)
		}
		tmp := filepath.Join(deep, "tmp"+strings.Repeat("x", 5*i))
		out := filepath.Join(deep, "out")
		for _, d := range []string{tmp, out} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		// Each run gets its own empty result cache (the programs' -cache, on by default):
		// the second run must validate everything again, not read the first one's reports.
		argv := append(args(Run{Repo: root, Out: out, Jobs: jobs}), "-cache", filepath.Join(deep, "results"))
		cmd := exec.Command(bin, argv...)
		cmd.Dir = deep
		cmd.Env = append(append(os.Environ(), "TMPDIR="+tmp), env...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			if strings.Contains(stderr.String(), "baseline run 1: untrusted") {
				// The clean repository, before any corruption, cannot have forged anything:
				// the runner's cross-check is wrong about this suite. Not what this test
				// checks; it asserts again once the runner trusts the clean suite.
				t.Skipf("the runner marks the clean test suite untrusted (a runner defect):\n%s", lastLines(stderr.String(), 4))
			}
			t.Fatalf("run %d (-jobs %s): %v\n%s", i+1, jobs, err, stderr.String())
		}
		if ents, _ := os.ReadDir(tmp); len(ents) > 0 {
			t.Errorf("run %d left %d entries in TMPDIR", i+1, len(ents))
		}
		trees = append(trees, files(t, out))
		if i == 0 {
			firstErr = stderr.String()
		}
		t.Logf("run %d (-jobs %s): %s", i+1, jobs, lastLines(stderr.String(), 3))
	}
	a, b := trees[0], trees[1]
	if len(a) == 0 {
		t.Fatal("the first run wrote nothing")
	}
	for _, p := range sortedKeys(a, b) {
		x, okA := a[p]
		y, okB := b[p]
		switch {
		case !okA || !okB:
			t.Errorf("%s is written by one run only", p)
		case !bytes.Equal(x, y):
			t.Errorf("%s differs between the runs: %s", p, firstDifference(x, y))
		}
	}
	return a, firstErr
}

func files(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sortedKeys(ms ...map[string][]byte) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range ms {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	sort.Strings(out)
	return out
}

// firstDifference shows the first line where x and y differ, around the first byte that
// differs.
func firstDifference(x, y []byte) string {
	xl, yl := strings.Split(string(x), "\n"), strings.Split(string(y), "\n")
	for i := 0; i < len(xl) && i < len(yl); i++ {
		if xl[i] == yl[i] {
			continue
		}
		j := 0
		for j < len(xl[i]) && j < len(yl[i]) && xl[i][j] == yl[i][j] {
			j++
		}
		return "line " + strconv.Itoa(i+1) + ", byte " + strconv.Itoa(j+1) + ":\n  …" + around(xl[i], j) + "…\n  …" + around(yl[i], j) + "…"
	}
	return "one is a prefix of the other"
}

func around(s string, j int) string {
	return s[max(0, j-80):min(len(s), j+80)]
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
