// Package repo holds the rules about repositories that every faultline package shares: what
// a test file is, which directories are not source, what is binary, how a go.mod reads, where
// a project's root is when a user points at a directory inside it, and where it came from
// (git provenance). One rule per fact: callgraph, corrupt, extract, sandbox and the programs
// call these instead of keeping copies.
//
// Terms:
//
//   - A test path is a file the test framework owns rather than the code under test: Go
//     *_test.go; Python test_*.py, *_test.py and conftest.py; JavaScript/TypeScript
//     *.test.* and *.spec.*; and any file below a directory named test, tests, testing or
//     __tests__.
//   - A non-source directory is one an analysis never enters: version control and tool
//     caches, hidden directories (a leading dot), vendored and installed dependencies
//     (vendor, node_modules, site-packages, virtual environments) and Go testdata.
//   - A snapshot skip is a directory left out of a private copy of a repository and of its
//     content hash: version-control metadata and the caches tests regenerate. Everything
//     else is copied, so a test sees the tree as the user has it.
//   - A binary file has a NUL byte in its first 8000 bytes (git's rule).
//
// Root discovery (Discover) is described on Project.
package repo

import (
	"io"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/faultline-dev/faultline/task"
)

// testDirs are directory names whose files are all test paths.
var testDirs = map[string]bool{"test": true, "tests": true, "testing": true, "__tests__": true}

// IsTestPath reports whether the slash path p (relative to a project root) is a test path
// (see the package doc).
func IsTestPath(p string) bool {
	dir, base := path.Split(p)
	for _, seg := range strings.Split(strings.TrimSuffix(dir, "/"), "/") {
		if testDirs[seg] {
			return true
		}
	}
	return IsTestFileName(base)
}

// IsTestFileName reports whether a file name (no directory) names a test file: Go
// *_test.go; Python test_*.py, *_test.py, conftest.py; JavaScript/TypeScript *.test.* and
// *.spec.*.
func IsTestFileName(base string) bool {
	switch {
	case strings.HasSuffix(base, "_test.go"):
		return true
	case strings.HasSuffix(base, ".py"):
		stem := strings.TrimSuffix(base, ".py")
		return strings.HasPrefix(stem, "test_") || strings.HasSuffix(stem, "_test") || stem == "conftest"
	}
	parts := strings.Split(base, ".")
	if len(parts) >= 3 {
		switch parts[len(parts)-2] {
		case "test", "spec":
			return true
		}
	}
	return false
}

// nonSourceDirs are directory names an analysis never enters (besides hidden ones).
var nonSourceDirs = map[string]bool{
	"vendor": true, "node_modules": true, "__pycache__": true, "site-packages": true,
	"dist-packages": true, "testdata": true, "CVS": true, "_darcs": true,
}

// SkipSourceDir reports whether an analysis leaves out the directory named name (see the
// package doc). The root of a walk is never skipped by its name: callers test only the
// directories below it. Virtual environments are recognised by content (IsVirtualEnv), not
// by name.
func SkipSourceDir(name string) bool {
	return strings.HasPrefix(name, ".") || nonSourceDirs[name]
}

// NonSourceDirNames returns the directory names SkipSourceDir leaves out besides hidden
// ones, sorted (for rules written in another language, such as a script run in a sandbox).
func NonSourceDirNames() []string {
	out := make([]string, 0, len(nonSourceDirs))
	for n := range nonSourceDirs {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// IsVirtualEnv reports whether the directory dir is a Python virtual environment (it has a
// pyvenv.cfg), which an analysis leaves out whatever its name.
func IsVirtualEnv(dir string) bool {
	st, err := os.Stat(dir + string(os.PathSeparator) + "pyvenv.cfg")
	return err == nil && st.Mode().IsRegular()
}

// SkipSnapshotDir reports whether a private copy of a repository (and its content hash)
// leaves out the directory named name: version-control metadata (.git, .hg, .svn) and
// regenerated caches (__pycache__, .pytest_cache).
func SkipSnapshotDir(name string) bool {
	switch name {
	case ".git", ".hg", ".svn", "__pycache__", ".pytest_cache":
		return true
	}
	return false
}

// IsBinaryFile reports whether the file at p is binary by task.IsBinary's rule, reading at
// most its first task.BinaryPrefix bytes.
func IsBinaryFile(p string) (bool, error) {
	f, err := os.Open(p)
	if err != nil {
		return false, err
	}
	defer f.Close()
	buf := make([]byte, task.BinaryPrefix)
	n, err := io.ReadFull(f, buf)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return false, err
	}
	return task.IsBinary(buf[:n]), nil
}
