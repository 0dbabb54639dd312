package artifact

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/faultline-dev/faultline/callgraph"
	"github.com/faultline-dev/faultline/task"
	"github.com/faultline-dev/faultline/task/repo"
)

// CheckPackageName reports, as an error wrapping ErrBadSpec, a name a Python solution
// package cannot be renamed to: one that is not an ASCII identifier or is a keyword.
func CheckPackageName(name string) error {
	if !isIdentifier(name) {
		return fmt.Errorf("%w: package name %q is not a Python identifier", ErrBadSpec, name)
	}
	return nil
}

// Level2 builds the environment of a Level 2 instance of the test file without the rest
// of the artifacts (Build calls it): see Environment. pkg renames a Python solution
// package ("" keeps its name).
func Level2(root, testFile, pkg string, failToPass []string) (*Environment, error) {
	testFile, err := task.CleanRelPath(testFile)
	if err != nil {
		return nil, fmt.Errorf("%w: test file: %w", ErrBadSpec, err)
	}
	if pkg != "" {
		if err := CheckPackageName(pkg); err != nil {
			return nil, err
		}
	}
	switch {
	case strings.HasSuffix(testFile, "_test.go"):
		if pkg != "" {
			return nil, fmt.Errorf("%w: a Go solution keeps its module path; cannot rename it to %s", ErrBadSpec, pkg)
		}
		return goLevel2(root, testFile, failToPass)
	case strings.HasSuffix(testFile, ".py"):
		return pyLevel2(root, testFile, pkg, failToPass)
	}
	return nil, fmt.Errorf("%w: test file %s is neither a Python nor a Go test file", ErrBadSpec, testFile)
}

func buildLevel2(ctx context.Context, s Spec, opts Options, testFile, id, settings string) (*Artifacts, error) {
	if opts.ReversePatch {
		return nil, fmt.Errorf("%w: ReversePatch applies to Level 1 only (the Level 2 gold patch creates the solution)", ErrBadSpec)
	}
	env, err := Level2(s.Root, testFile, s.Package, s.FailToPass)
	if err != nil {
		return nil, err
	}
	ifaces, err := resolveInterfaces(ctx, s.Root, s.Objects, opts.Docstrings)
	if err != nil {
		return nil, err
	}
	for i := range ifaces {
		in := &ifaces[i]
		if in.Language == "python" && env.From != "" {
			in.ImportPath = renameModule(in.ImportPath, env.From, env.To)
			top, _, _ := strings.Cut(in.Name, ".")
			in.Import = "from " + in.ImportPath + " import " + top
		}
	}
	dopts := task.DiffOptions{Context: opts.Context}
	gold, err := creationPatch(env.Solution, dopts)
	if err != nil {
		return nil, err
	}
	tests, err := creationPatch(env.Tests, dopts)
	if err != nil {
		return nil, err
	}
	start, err := creationPatch(env.Start, dopts)
	if err != nil {
		return nil, err
	}
	fns, err := countDefinitions(ctx, env.Solution)
	if err != nil {
		return nil, err
	}
	a := &Artifacts{
		Patch:      gold.Format(),
		TestPatch:  tests.Format(),
		EnvPatch:   start.Format(),
		Env:        env,
		Interfaces: ifaces,
	}
	a.ProblemStatement = problemStatement(s, testFile, ifaces, env)
	added, _ := gold.Stat()
	envPatch, err := json.Marshal(string(a.EnvPatch))
	if err != nil {
		return nil, fmt.Errorf("artifact: %w", err)
	}
	pkgs, err := json.Marshal(env.Packages)
	if err != nil {
		return nil, fmt.Errorf("artifact: %w", err)
	}
	tf, err := json.Marshal(env.TestFile)
	if err != nil {
		return nil, fmt.Errorf("artifact: %w", err)
	}
	// No PASS_TO_PASS: there is no repository left to regress.
	extra := map[string]json.RawMessage{"env_patch": envPatch, "solution_packages": pkgs, "test_file": tf}
	if err := a.setInstance(s, id, settings, env.FailToPass, nil, added, len(gold.Files), fns, extra); err != nil {
		return nil, err
	}
	return a, nil
}

// creationPatch returns the patch that creates the files of o in an empty directory.
func creationPatch(o task.Overlay, dopts task.DiffOptions) (*task.Patch, error) {
	empty, err := os.MkdirTemp("", "faultline-empty-")
	if err != nil {
		return nil, fmt.Errorf("artifact: %w", err)
	}
	defer os.RemoveAll(empty)
	p, err := task.DiffOverlay(empty, o, dopts)
	if err != nil {
		return nil, fmt.Errorf("artifact: %w", err)
	}
	return p, nil
}

// countDefinitions counts the functions, methods and classes of the solution's sources.
func countDefinitions(ctx context.Context, o task.Overlay) (int, error) {
	byLang := map[string][]callgraph.SourceFile{}
	for _, p := range o.Paths() {
		if l := langOf(p); l != "" && !strings.HasSuffix(p, "_test.go") {
			byLang[l] = append(byLang[l], callgraph.SourceFile{Path: p, Src: o[p].Data})
		}
	}
	defs, err := definitions(ctx, byLang, false)
	if err != nil {
		return 0, fmt.Errorf("artifact: level 2 solution: %w", err)
	}
	return len(defs), nil
}

// level2Layout writes the Level 2 part of the problem statement: where the solution goes
// and what the tests import. root is the original repository, whose go.mod env.Start holds.
func level2Layout(env *Environment, root string) string {
	var b strings.Builder
	quote := func(ss []string) string {
		q := make([]string, len(ss))
		for i, s := range ss {
			q[i] = "`" + s + "`"
		}
		return strings.Join(q, ", ")
	}
	b.WriteString("## Layout\n\n")
	if env.Kind == task.GoTest {
		mod := repo.ReadGoMod(filepath.Join(root, "go.mod")).Path
		fmt.Fprintf(&b, "- The working directory is the Go module `%s` (its `go.mod` is given). Write %s there, in %s of the module.\n",
			mod, quote(env.Packages), map[bool]string{false: "its directory", true: "their directories"}[len(env.Packages) > 1])
	} else {
		var dirs []string
		for _, p := range env.Packages {
			dirs = append(dirs, p+"/")
		}
		fmt.Fprintf(&b, "- Write the package %s in the working directory (as %s); the tests run there with `python -m pytest`.\n",
			quote(env.Packages), quote(dirs))
	}
	if len(env.Imports) > 0 {
		fmt.Fprintf(&b, "- The tests import: %s.\n", quote(env.Imports))
	}
	fmt.Fprintf(&b, "- The tests are added as `%s`", env.TestFile)
	if n := len(env.Tests) - 1; n > 0 {
		fmt.Fprintf(&b, " with %d supporting file(s) (%s)", n, quote(otherPaths(env.Tests, env.TestFile)))
	}
	b.WriteString("; do not create files at those paths.\n")
	return b.String()
}

func otherPaths(o task.Overlay, skip string) []string {
	var out []string
	for _, p := range o.Paths() {
		if p != skip {
			out = append(out, p)
		}
	}
	return out
}

// level2Summary names what to implement without naming the repository.
func level2Summary(env *Environment, ifaces []Interface) string {
	names := make([]string, len(ifaces))
	for i, f := range ifaces {
		names[i] = "`" + f.Name + "`"
	}
	what := "the package's functionality"
	if len(names) > 0 {
		what = strings.Join(names, ", ")
	}
	return fmt.Sprintf("Implement %s so that the tests in `%s` pass.", what, env.TestFile)
}
