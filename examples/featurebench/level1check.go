package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/faultline-dev/faultline/extract"
	"github.com/faultline-dev/faultline/sandbox"
	"github.com/faultline-dev/faultline/task"
)

// level1Repo is the repository -check verifies Level 1 instances in: the project found for
// -repo, prepared and checked as a build prepares it (intake), and its runner.
type level1Repo struct {
	prep  *sandbox.Prepared
	local *sandbox.Local
	r     task.Runner
}

func (l *level1Repo) close() {
	l.local.Close()
	l.prep.Close()
}

// check re-verifies a Level 1 instance in the repository, as the build verified it
// (extract.Verify): the masked state is the repository with the instance's patch reversed
// (the gold patch takes the masked tree back to the repository, so the repository must be
// the one the instance was made from: a patch that does not reverse cleanly, or a test
// file other than the test patch's, rejects the instance); on it the F2P test file's
// tests fail and the P2P tests pass without that file; on the repository both pass, and
// the tests that pass are exactly the instance's FAIL_TO_PASS and PASS_TO_PASS. It returns
// why the instance is rejected (empty when it holds); the error is for a runner that could
// not be used.
func (l *level1Repo) check(ctx context.Context, inst task.SWEInstance) (string, error) {
	root := l.prep.Root
	gold, err := task.ParsePatch([]byte(inst.Patch))
	if err != nil {
		return fmt.Sprintf("patch: %v", err), nil
	}
	mask, err := gold.Reverse().Apply(task.DirReader(root))
	if err != nil {
		return fmt.Sprintf("the repository is not the one the instance was made from: its patch does not reverse there: %v", err), nil
	}
	testFile, reason, err := level1TestFile(inst, root)
	if reason != "" || err != nil {
		return reason, err
	}
	kind := l.prep.Kind
	var f2p task.Selection
	var p2p []task.Selection
	if kind == task.GoTest {
		f2p = task.Selection{IDs: slices.Clone([]string(inst.FailToPass))}
		if len(inst.PassToPass) > 0 {
			p2p = []task.Selection{{IDs: slices.Clone([]string(inst.PassToPass))}}
		}
	} else {
		// A Python build selects whole files, the F2P file and each P2P file apart.
		f2p = task.Selection{Files: []string{testFile}}
		var files []string
		for _, id := range inst.PassToPass {
			f, _, _ := strings.Cut(id, "::")
			files = append(files, f)
		}
		slices.Sort(files)
		for _, f := range slices.Compact(files) {
			p2p = append(p2p, task.Selection{Files: []string{f}})
		}
	}
	base := task.RunRequest{Root: root, Kind: kind, Args: slices.Clone(l.prep.Args)}
	v, err := extract.Verify(ctx, l.r, extract.VerifyRequest{Base: base, Mask: mask, F2P: f2p, P2P: p2p,
		F2PFile: testFile, BuildFailureFails: kind == task.GoTest})
	if err != nil {
		return "", err
	}
	if !v.Accepted {
		return v.Reason, nil
	}
	if d := listDiff(v.F2PTests, inst.FailToPass); d != "" {
		return "FAIL_TO_PASS differs from the passing F2P tests: " + d, nil
	}
	if d := listDiff(v.P2PTests, inst.PassToPass); d != "" {
		return "PASS_TO_PASS differs from the passing P2P tests: " + d, nil
	}
	return "", nil
}

// level1TestFile returns the F2P test file a Level 1 instance's test patch creates, after
// checking that the repository holds it with those contents. A reason is returned for an
// instance that does not fit the repository.
func level1TestFile(inst task.SWEInstance, root string) (file, reason string, err error) {
	tp, err := task.ParsePatch([]byte(inst.TestPatch))
	if err != nil {
		return "", fmt.Sprintf("test_patch: %v", err), nil
	}
	if len(tp.Files) != 1 || !tp.Files[0].Created {
		return "", fmt.Sprintf("test_patch: want the creation of one test file, have %d file patches", len(tp.Files)), nil
	}
	ov, err := tp.Apply(func(string) ([]byte, error) { return nil, fs.ErrNotExist })
	if err != nil {
		return "", fmt.Sprintf("test_patch: %v", err), nil
	}
	if file, err = task.CleanRelPath(tp.Files[0].NewPath); err != nil {
		return "", fmt.Sprintf("test_patch: %v", err), nil
	}
	want := ov[file].Data
	p, err := task.SafeJoin(root, file)
	if err != nil {
		return "", fmt.Sprintf("test_patch: %v", err), nil
	}
	have, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Sprintf("the repository is not the one the instance was made from: it has no %s", file), nil
	}
	if err != nil {
		return "", "", err
	}
	if string(have) != string(want) {
		return "", fmt.Sprintf("the repository is not the one the instance was made from: its %s is not the test patch's", file), nil
	}
	return file, "", nil
}

// listDiff says how two sets of test ids differ (empty when equal): the counts and the
// first id of each side that the other lacks.
func listDiff(ran []string, listed []string) string {
	a, b := slices.Clone(ran), slices.Clone(listed)
	slices.Sort(a)
	slices.Sort(b)
	if slices.Equal(a, b) {
		return ""
	}
	first := func(xs, ys []string) string {
		for _, x := range xs {
			if _, ok := slices.BinarySearch(ys, x); !ok {
				return x
			}
		}
		return "none"
	}
	return fmt.Sprintf("%d passed, %d listed (first passing not listed: %s; first listed not passing: %s)", len(a), len(b), first(a, b), first(b, a))
}
