package mask

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/faultline-dev/faultline/callgraph"
	"github.com/faultline-dev/faultline/callgraph/python"
	"github.com/faultline-dev/faultline/task"
	"github.com/faultline-dev/faultline/task/repo"
)

// ReasonUnsupported protects a target in a file that is neither Python nor Go.
const ReasonUnsupported = "unsupported language"

// ErrNotDir is wrapped by the error for a root that is not a directory.
var ErrNotDir = errors.New("mask: root is not a directory")

// Options configure Mask. The zero value works.
type Options struct {
	// Keep lists definitions that must stay (the objects the P2P tests or the collection
	// step need, Go API used by the P2P tests, objects executed at import time). A kept
	// target that is also asked to be removed is reported as protected with ReasonKept.
	Keep []Target
	// IsTest reports whether a slash path is a test file. Test files are never rewritten:
	// their imports of removed names stay (the F2P test file is restored by the test patch,
	// and a P2P file that imports a removed name is a bad P2P choice the collection check
	// reveals). Default: repo.IsTestPath, the project's one test-file rule.
	IsTest func(path string) bool
	// Python is the front end that finds Python definitions and their spans. Default:
	// python.New with zero options.
	Python callgraph.Language
}

// Result is a masked tree: the overlay to apply on the repository and what was done. Its
// JSON form is the report without the overlay.
type Result struct {
	// Overlay holds the new contents of every changed file (not part of the JSON form).
	Overlay task.Overlay `json:"-"`
	// Removed lists the removed definitions, sorted by file and line.
	Removed []Removal `json:"removed"`
	// Protected lists the targets that were kept and why, sorted by target.
	Protected []Protection `json:"protected,omitempty"`
	// Imports lists the import statements rewritten or dropped, sorted by file and line.
	Imports []ImportEdit `json:"imports,omitempty"`
	// Runs is the number of collection runs MaskUntilCollects made (0 for Mask).
	Runs int `json:"runs,omitempty"`
}

// RemovedLines is the total number of lines the removals deleted (definitions with their
// decorators and attached comments; blank lines and rewritten imports are not counted).
func (r *Result) RemovedLines() int {
	n := 0
	for _, rm := range r.Removed {
		n += rm.Lines()
	}
	return n
}

// Files returns the sorted paths of the files that lost at least one definition.
func (r *Result) Files() []string {
	var out []string
	for _, rm := range r.Removed {
		if len(out) == 0 || out[len(out)-1] != rm.Target.File {
			out = append(out, rm.Target.File)
		}
	}
	return out
}

// Mask removes the targets from the repository at root (which it only reads) and returns
// the overlay of masked files. Python and Go targets may be mixed; targets in other files
// are protected with ReasonUnsupported. See the package documentation for the rules.
func Mask(ctx context.Context, root string, targets []Target, opts Options) (*Result, error) {
	st, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("mask: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%w: %s", ErrNotDir, root)
	}
	if opts.IsTest == nil {
		opts.IsTest = repo.IsTestPath
	}
	if opts.Python == nil {
		opts.Python = python.New(python.Options{})
	}
	res := &Result{Overlay: task.Overlay{}}
	keep := map[Target]bool{}
	for _, k := range opts.Keep {
		keep[k] = true
	}
	var py, gol []Target
	seen := map[Target]bool{}
	for _, t := range targets {
		c, err := task.CleanRelPath(t.File)
		if err != nil {
			return nil, fmt.Errorf("mask: target %s: %w", t, err)
		}
		t.File = c
		if seen[t] {
			continue
		}
		seen[t] = true
		switch {
		case keptBy(keep, t):
			res.Protected = append(res.Protected, Protection{t, ReasonKept})
		case strings.HasSuffix(t.File, ".py"):
			py = append(py, t)
		case strings.HasSuffix(t.File, ".go"):
			gol = append(gol, t)
		default:
			res.Protected = append(res.Protected, Protection{t, ReasonUnsupported})
		}
	}
	sortTargets(py)
	sortTargets(gol)
	if len(py) > 0 {
		if err := maskPython(ctx, root, py, opts, res); err != nil {
			return nil, err
		}
	}
	if len(gol) > 0 {
		if err := maskGo(ctx, root, gol, res); err != nil {
			return nil, err
		}
	}
	sort.Slice(res.Removed, func(i, j int) bool {
		a, b := res.Removed[i], res.Removed[j]
		if a.Target.File != b.Target.File {
			return a.Target.File < b.Target.File
		}
		return a.StartLine < b.StartLine
	})
	sort.SliceStable(res.Protected, func(i, j int) bool { return less(res.Protected[i].Target, res.Protected[j].Target) })
	sort.Slice(res.Imports, func(i, j int) bool {
		a, b := res.Imports[i], res.Imports[j]
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Line < b.Line
	})
	return res, nil
}

// keptBy reports whether t is in keep, either exactly or by file and name when either side
// has no line.
func keptBy(keep map[Target]bool, t Target) bool {
	if keep[t] || keep[Target{File: t.File, Name: t.Name}] {
		return true
	}
	if t.Line == 0 {
		for k := range keep {
			if k.File == t.File && k.Name == t.Name {
				return true
			}
		}
	}
	return false
}

// walkFiles lists the regular files below root with the given suffix as sorted slash
// paths, skipping the directories task/repo.SkipSourceDir leaves out (hidden ones,
// __pycache__, node_modules, vendor, testdata, site-packages, virtual environments ...).
func walkFiles(ctx context.Context, root, suffix string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (repo.SkipSourceDir(name) || repo.IsVirtualEnv(p)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || !strings.HasSuffix(name, suffix) {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("mask: walk %s: %w", root, err)
	}
	sort.Strings(out)
	return out, nil
}

func readRel(root, rel string) ([]byte, error) {
	p, err := task.SafeJoin(root, rel)
	if err != nil {
		return nil, fmt.Errorf("mask: %w", err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("mask: %w", err)
	}
	return b, nil
}
