package artifact

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/faultline-dev/faultline/extract/mask"
	"github.com/faultline-dev/faultline/task"
)

// The file names of an instance directory.
const (
	ProblemStatementFile = "problem_statement.md"
	PatchFile            = "patch.diff"
	TestPatchFile        = "test_patch.diff"
	EnvPatchFile         = "env_patch.diff" // Level 2 only: creates the starting tree
	InstanceFile         = "instance.json"
)

// ErrBadSpec is wrapped by every error about an invalid Spec.
var ErrBadSpec = errors.New("artifact: bad instance spec")

// Spec is everything an instance is made of.
type Spec struct {
	Root       string // the original repository (read only)
	Repo       string // owner/name
	BaseCommit string
	Level      int    // 1: implement inside the masked repository; 2: from scratch
	TestFile   string // the F2P test file, a slash path relative to Root
	// Masked is the mask's overlay (mask.Result.Overlay): the masked source files. Level 1
	// only; a Level 2 instance has no repository to mask.
	Masked task.Overlay
	// Objects are the top objects whose interfaces the problem statement describes, in the
	// order given (typically sorted by the caller).
	Objects []mask.Target
	// Functions is the number of removed definitions (len(mask.Result.Removed)). Level 2
	// counts the definitions of the solution instead.
	Functions int
	// FailToPass are the F2P test ids in the original repository (Level 2 maps them to
	// the test file's place in its tree). PassToPass is ignored at Level 2: there is no
	// repository left to regress, so the instance's PASS_TO_PASS is empty.
	FailToPass []string
	PassToPass []string
	ImageName  string
	// RepoSettings is a JSON value stored as the instance's repo_settings string
	// (compacted); empty means {}.
	RepoSettings json.RawMessage
	// Summary is the task summary; empty means one generated from the objects.
	Summary string
	// ForbiddenURLs are listed in the NOTE block (e.g. the repository's upstream).
	ForbiddenURLs []string
	// Package renames the Python solution package of a Level 2 instance (e.g.
	// "agent_code"): its directory, the imports of the tests and the package's own
	// absolute imports are rewritten. Empty keeps the original name. It must be a Python
	// identifier; a Go solution keeps its module path, so Package must be empty for Go.
	Package string
}

// Options configure Build. The zero value works.
type Options struct {
	// Docstrings fills missing docstrings of the top objects; nil leaves them out (the
	// interface then shows the signature only).
	Docstrings DocstringGenerator
	// ReversePatch stores patch.diff as original → masked, the direction the FeatureBench
	// reference stored; the default is the gold direction, masked → original.
	ReversePatch bool
	// Context is the number of context lines of the patches (0: git's default of 3).
	Context int
}

// Artifacts is one built instance.
type Artifacts struct {
	// Instance is instance.json (and one line of instances.jsonl).
	Instance task.SWEInstance
	// ProblemStatement is problem_statement.md.
	ProblemStatement string
	// Patch is patch.diff, TestPatch test_patch.diff.
	Patch, TestPatch []byte
	// Overlay is a Level 1 instance's starting tree relative to Root: the masked files and
	// the deletion of the F2P test file (which TestPatch restores). Nil at Level 2.
	Overlay task.Overlay
	// Env is a Level 2 instance's tree (nil at Level 1): the starting tree, the tests and
	// the solution, relative to an empty directory. EnvPatch (env_patch.diff) creates
	// Env.Start, TestPatch creates Env.Tests and Patch creates Env.Solution.
	Env      *Environment
	EnvPatch []byte
	// Interfaces are the resolved top objects of the problem statement (at Level 2 with
	// the import paths of the renamed solution package).
	Interfaces []Interface
}

// Build makes the artifacts of one instance. The same spec and options give byte-identical
// artifacts (a docstring generator must be deterministic for that).
func Build(ctx context.Context, s Spec, opts Options) (*Artifacts, error) {
	if s.Level != 1 && s.Level != 2 {
		return nil, fmt.Errorf("%w: level %d is neither 1 nor 2", ErrBadSpec, s.Level)
	}
	if len(s.FailToPass) == 0 {
		return nil, fmt.Errorf("%w: no FAIL_TO_PASS tests", ErrBadSpec)
	}
	testFile, err := task.CleanRelPath(s.TestFile)
	if err != nil {
		return nil, fmt.Errorf("%w: test file: %w", ErrBadSpec, err)
	}
	if s.Level == 1 {
		if len(s.Masked) == 0 {
			return nil, fmt.Errorf("%w: the masked overlay is empty", ErrBadSpec)
		}
		if _, ok := s.Masked[testFile]; ok {
			return nil, fmt.Errorf("%w: the mask changes the F2P test file %s", ErrBadSpec, testFile)
		}
	}
	id, err := task.FeatureBenchID(s.Repo, s.BaseCommit, testFile, s.Level)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadSpec, err)
	}
	settings := []byte("{}")
	if len(bytes.TrimSpace(s.RepoSettings)) > 0 {
		var b bytes.Buffer
		if err := json.Compact(&b, s.RepoSettings); err != nil {
			return nil, fmt.Errorf("%w: repo settings: %w", ErrBadSpec, err)
		}
		settings = b.Bytes()
	}
	if s.Level == 2 {
		return buildLevel2(ctx, s, opts, testFile, id, string(settings))
	}
	dopts := task.DiffOptions{Context: opts.Context}
	forward, err := task.DiffOverlay(s.Root, s.Masked, dopts) // original → masked
	if err != nil {
		return nil, fmt.Errorf("artifact: %w", err)
	}
	if len(forward.Files) == 0 {
		return nil, fmt.Errorf("%w: the masked overlay changes nothing", ErrBadSpec)
	}
	gold := forward.Reverse()
	added, _ := gold.Stat()
	patch := gold
	if opts.ReversePatch {
		patch = forward
	}
	rmTest := task.Overlay{}
	rmTest.Remove(testFile)
	testRemoval, err := task.DiffOverlay(s.Root, rmTest, dopts)
	if err != nil {
		return nil, fmt.Errorf("artifact: %w", err)
	}
	if len(testRemoval.Files) == 0 {
		return nil, fmt.Errorf("%w: test file %s does not exist", ErrBadSpec, testFile)
	}
	testPatch := testRemoval.Reverse()

	ifaces, err := resolveInterfaces(ctx, s.Root, s.Objects, opts.Docstrings)
	if err != nil {
		return nil, err
	}
	a := &Artifacts{
		Patch:      patch.Format(),
		TestPatch:  testPatch.Format(),
		Overlay:    s.Masked.Merge(rmTest),
		Interfaces: ifaces,
	}
	a.ProblemStatement = problemStatement(s, testFile, ifaces, nil)
	if err := a.setInstance(s, id, string(settings), s.FailToPass, s.PassToPass, added, len(gold.Files), s.Functions, nil); err != nil {
		return nil, err
	}
	return a, nil
}

// setInstance fills a.Instance from the spec and a's patches and problem statement (set
// before), with the sorted F2P and P2P ids, the gold patch's added lines and files, the
// definition count and the Extra members, and validates it.
func (a *Artifacts) setInstance(s Spec, id, settings string, f2p, p2p []string, lines, files, fns int, extra map[string]json.RawMessage) error {
	nf2p, np2p := len(f2p), len(p2p)
	a.Instance = task.SWEInstance{
		InstanceID:       id,
		Repo:             s.Repo,
		BaseCommit:       s.BaseCommit,
		Patch:            string(a.Patch),
		TestPatch:        string(a.TestPatch),
		ProblemStatement: a.ProblemStatement,
		FailToPass:       sortedCopy(f2p),
		PassToPass:       sortedCopy(p2p),
		ImageName:        s.ImageName,
		RepoSettings:     settings,
		Lines:            &lines,
		Files:            &files,
		Functions:        &fns,
		F2PTestPoints:    &nf2p,
		P2PTestPoints:    &np2p,
		Extra:            extra,
	}
	if err := a.Instance.Validate(); err != nil {
		return fmt.Errorf("artifact: %w", err)
	}
	return nil
}

func sortedCopy(s []string) task.TestList {
	out := append(task.TestList{}, s...)
	sort.Strings(out)
	return out
}

// InstanceJSON returns instance.json's contents: the instance with sorted keys, indented by
// two spaces, with a final newline.
func (a *Artifacts) InstanceJSON() ([]byte, error) {
	raw, err := task.EncodeJSON(a.Instance)
	if err != nil {
		return nil, fmt.Errorf("artifact: %w", err)
	}
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return nil, fmt.Errorf("artifact: %w", err)
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// WriteDir writes the instance directory dir/<instance_id> (created, with parents) and
// returns its path: problem_statement.md, patch.diff, test_patch.diff and instance.json,
// and at Level 2 env_patch.diff (empty when the starting tree is).
func (a *Artifacts) WriteDir(dir string) (string, error) {
	out := filepath.Join(dir, a.Instance.InstanceID)
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", fmt.Errorf("artifact: %w", err)
	}
	inst, err := a.InstanceJSON()
	if err != nil {
		return "", err
	}
	for _, f := range []struct {
		name string
		data []byte
	}{
		{ProblemStatementFile, []byte(a.ProblemStatement)},
		{PatchFile, a.Patch},
		{TestPatchFile, a.TestPatch},
		{InstanceFile, inst},
		{EnvPatchFile, a.EnvPatch},
	} {
		if f.name == EnvPatchFile && a.Env == nil {
			continue
		}
		if err := os.WriteFile(filepath.Join(out, f.name), f.data, 0o644); err != nil {
			return "", fmt.Errorf("artifact: %w", err)
		}
	}
	return out, nil
}

// defaultSummary names what to implement.
func defaultSummary(s Spec, testFile string, ifaces []Interface) string {
	names := make([]string, len(ifaces))
	for i, f := range ifaces {
		names[i] = "`" + f.Name + "`"
	}
	what := "the removed functionality"
	if len(names) > 0 {
		what = strings.Join(names, ", ")
	}
	return fmt.Sprintf("Implement %s of the %s repository so that the tests in `%s` pass.", what, s.Repo, testFile)
}
