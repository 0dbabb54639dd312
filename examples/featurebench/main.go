// Command featurebench builds FeatureBench instances from a repository whose tests pass:
// it traces every test file, picks the objects each fail-to-pass file targets, chooses
// pass-to-pass files, extracts the feature under a seeded line budget, masks it, verifies
// the masked repository and writes one instance directory per accepted item plus
// instances.jsonl.
//
//	go run ./examples/featurebench -repo DIR -out OUTDIR [-n N] [-seed S] [-level 1|2|1,2]
//	    [-package NAME] [-name owner/repo] [-commit SHA] [-python PATH] [-llm] [-timeout D]
//	    [-test-timeout D] [-after DATE]
//	go run ./examples/featurebench -check OUTDIR [-python PATH] [-timeout D] [-test-timeout D]
//
// -level 1 writes Level 1 instances (implement inside the masked repository). -level 2
// writes Level 2 instances (implement from scratch, see extract/artifact.Environment): an
// item the pipeline accepts also needs its Level 2 instance to verify
// (extract.VerifyLevel2: without the solution the F2P tests fail, with the gold solution
// they pass), else it is rejected with that reason, so -n counts items with a verified
// Level 2 instance. -level 1,2 writes both instances of every such item. -package renames
// a Python solution package at Level 2 (default agent_code, which also keeps an installed
// copy of the original package from satisfying the tests; empty keeps the name); a Go
// solution keeps its module path and ignores it.
//
// -after DATE (2006-01-02 or RFC 3339) keeps as fail-to-pass candidates only the test
// files first committed after DATE (extract.Options.CommittedAfter; the repository must be
// a git checkout). -test-timeout is the per-test limit (default 10 s; 0 turns it off), on
// top of -timeout for a whole run.
//
// -check re-verifies the Level 2 instances of OUTDIR/instances.jsonl from the instances
// alone (no repository: env_patch, test_patch and patch in an empty directory), prints
// "<id> ok" or "<id> rejected: <reason>" per instance and exits 1 when any is rejected;
// Level 1 instances are skipped (they need the repository).
//
// Tests run with the local sandbox runner (no Docker, no network). The repository is
// only read. Progress and rejected candidates with their reasons go to stderr; the
// written instance ids go to stdout.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/faultline-dev/faultline/extract"
	"github.com/faultline-dev/faultline/extract/artifact"
	"github.com/faultline-dev/faultline/extract/mask"
	"github.com/faultline-dev/faultline/internal/llm"
	"github.com/faultline-dev/faultline/sandbox"
	"github.com/faultline-dev/faultline/task"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

type config struct {
	repo, out, name, commit, python, pkg string
	n                                    int
	levels                               []int
	seed                                 int64
	useLLM                               bool
	timeout, testTimeout                 time.Duration
	after                                time.Time
}

// parseDate reads -after: a date (2006-01-02, midnight UTC) or an RFC 3339 time.
func parseDate(s string) (time.Time, error) {
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("featurebench: -after %q: want a date (2006-01-02) or an RFC 3339 time", s)
	}
	return t, nil
}

// parseLevels reads -level: "1", "2" or "1,2".
func parseLevels(s string) ([]int, error) {
	seen := map[int]bool{}
	var out []int
	for _, f := range strings.Split(s, ",") {
		switch strings.TrimSpace(f) {
		case "1":
			seen[1] = true
		case "2":
			seen[2] = true
		default:
			return nil, fmt.Errorf("featurebench: -level %q: want 1, 2 or 1,2", s)
		}
	}
	for _, l := range []int{1, 2} {
		if seen[l] {
			out = append(out, l)
		}
	}
	return out, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("featurebench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c config
	fs.StringVar(&c.repo, "repo", "", "repository `DIR` whose tests pass (required; never modified)")
	fs.StringVar(&c.out, "out", "", "output `DIR` for instance directories and instances.jsonl (required)")
	fs.IntVar(&c.n, "n", 5, "stop after N accepted instances (0: try every test file)")
	fs.Int64Var(&c.seed, "seed", 1, "random seed (same seed, same instances)")
	level := fs.String("level", "1", "instance `levels`: 1 (inside the masked repository), 2 (from scratch) or 1,2")
	fs.StringVar(&c.pkg, "package", "agent_code", "Level 2: the `name` a Python solution package is renamed to (empty keeps it)")
	fs.StringVar(&c.name, "name", "", "repository name `owner/repo` (default local/<directory name>)")
	fs.StringVar(&c.commit, "commit", "", "base commit (default: git HEAD, else a hash of the tree)")
	fs.StringVar(&c.python, "python", "", "Python interpreter with pytest (default: detected)")
	fs.BoolVar(&c.useLLM, "llm", false, "classify top objects with the model configured by FAULTLINE_LLM_* (see internal/llm)")
	fs.DurationVar(&c.timeout, "timeout", 10*time.Minute, "time limit of one test run")
	fs.DurationVar(&c.testTimeout, "test-timeout", extract.DefaultTestTimeout, "time limit of one test (0: none)")
	after := fs.String("after", "", "keep as fail-to-pass only test files first committed after `DATE` (2006-01-02 or RFC 3339; needs a git checkout)")
	check := fs.String("check", "", "re-verify the Level 2 instances of `DIR`/instances.jsonl from their patches alone, instead of building")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if c.testTimeout < 0 {
		fmt.Fprintf(stderr, "featurebench: -test-timeout %s is negative (0 turns the limit off)\n", c.testTimeout)
		return 2
	}
	if *check != "" {
		if fs.NArg() > 0 {
			fs.Usage()
			return 2
		}
		return checkLevel2(ctx, *check, c, stdout, stderr)
	}
	levels, err := parseLevels(*level)
	if c.repo == "" || c.out == "" || fs.NArg() > 0 || err != nil {
		fmt.Fprintln(stderr, "featurebench: -repo and -out are required; -level is 1, 2 or 1,2")
		fs.Usage()
		return 2
	}
	c.levels = levels
	if *after != "" {
		if c.after, err = parseDate(*after); err != nil {
			fmt.Fprintln(stderr, err)
			return 2
		}
	}
	if c.pkg != "" {
		if err := artifact.CheckPackageName(c.pkg); err != nil {
			fmt.Fprintln(stderr, "featurebench: -package:", err)
			return 2
		}
	}
	if err := build(ctx, c, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return 0
}

func build(ctx context.Context, c config, stdout, stderr io.Writer) error {
	root, err := filepath.Abs(c.repo)
	if err != nil {
		return fmt.Errorf("featurebench: %w", err)
	}
	if st, err := os.Stat(root); err != nil || !st.IsDir() {
		return fmt.Errorf("featurebench: -repo %s is not a directory", c.repo)
	}
	out, err := filepath.Abs(c.out)
	if err != nil {
		return fmt.Errorf("featurebench: %w", err)
	}
	if out == root || strings.HasPrefix(out, root+string(filepath.Separator)) {
		return fmt.Errorf("featurebench: -out %s lies inside the repository, which is never written", c.out)
	}
	name := c.name
	if name == "" {
		name = "local/" + filepath.Base(root)
	}
	commit := c.commit
	if commit == "" {
		commit = baseCommit(root)
	}
	r := sandbox.NewLocal(sandbox.Options{Python: c.python, Limits: task.Limits{Timeout: c.timeout}})
	defer r.Close()
	opts := extract.Options{
		Seed:           c.seed,
		N:              c.n,
		CommittedAfter: c.after,
		TestTimeout:    c.testTimeout,
		Progress:       func(msg string) { fmt.Fprintln(stderr, "featurebench:", msg) },
	}
	if c.testTimeout == 0 {
		opts.TestTimeout = -1 // the flag's 0 is "none"; the option's 0 is the default
	}
	if c.useLLM {
		client, err := llm.FromEnv()
		if err != nil {
			return fmt.Errorf("featurebench: -llm: %w", err)
		}
		opts.Classifier = &extract.LLMClassifier{Client: client}
	}
	if commit == "" {
		h, err := sandbox.NewTreeHasher().Hash(root, nil)
		if err != nil {
			return fmt.Errorf("featurebench: %w", err)
		}
		commit = h
	}
	spec := func(it *extract.Item, level int) (artifact.Spec, error) {
		var objs []mask.Target
		for _, id := range it.Top {
			t, err := mask.ParseTarget(id)
			if err != nil {
				return artifact.Spec{}, fmt.Errorf("featurebench: %w", err)
			}
			objs = append(objs, t)
		}
		s := artifact.Spec{
			Root: root, Repo: name, BaseCommit: commit, Level: level, TestFile: it.TestFile,
			Masked: it.Mask.Overlay, Objects: objs, Functions: len(it.Mask.Removed),
			FailToPass: it.Verification.F2PTests, PassToPass: it.Verification.P2PTests,
		}
		if level == 2 && strings.HasSuffix(it.TestFile, ".py") {
			s.Package = c.pkg
		}
		return s, nil
	}
	level2 := map[string]*artifact.Artifacts{} // by test file; the pipeline builds items one by one
	if slices.Contains(c.levels, 2) {
		// Level 2 runs get the per-test limit the pipeline gives its own runs
		lr := task.Runner(r)
		if opts.TestTimeout > 0 {
			lr = extract.WithTestTimeout(r, opts.TestTimeout)
		}
		opts.Accept = func(ctx context.Context, it *extract.Item) (string, error) {
			s, err := spec(it, 2)
			if err != nil {
				return "", err
			}
			a, err := artifact.Build(ctx, s, artifact.Options{})
			if errors.Is(err, artifact.ErrBadSpec) {
				return fmt.Sprintf("level 2: %v", err), nil
			}
			if err != nil {
				return "", err
			}
			v, err := extract.VerifyLevel2(ctx, lr, extract.Level2Request{Env: a.Env, Limits: opts.Limits})
			if err != nil {
				return "", err
			}
			if !v.Accepted {
				return v.Reason, nil
			}
			level2[it.TestFile] = a
			return "", nil
		}
	}
	res, err := extract.Pipeline(ctx, r, root, opts)
	if err != nil {
		return err
	}
	for _, x := range res.Excluded {
		fmt.Fprintf(stderr, "featurebench: not a fail-to-pass candidate: %s: %s\n", x.File, x.Reason)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("featurebench: %w", err)
	}
	var insts []task.SWEInstance
	for _, it := range res.Accepted() {
		for _, level := range c.levels {
			a := level2[it.TestFile]
			if level == 1 {
				s, err := spec(it, 1)
				if err != nil {
					return err
				}
				if a, err = artifact.Build(ctx, s, artifact.Options{}); err != nil {
					return fmt.Errorf("featurebench: %s: %w", it.TestFile, err)
				}
			}
			dir, err := a.WriteDir(out)
			if err != nil {
				return fmt.Errorf("featurebench: %s: %w", it.TestFile, err)
			}
			insts = append(insts, a.Instance)
			fmt.Fprintln(stdout, filepath.Base(dir))
		}
	}
	f, err := os.Create(filepath.Join(out, "instances.jsonl"))
	if err != nil {
		return fmt.Errorf("featurebench: %w", err)
	}
	if err := task.WriteJSONL(f, insts); err != nil {
		f.Close()
		return fmt.Errorf("featurebench: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("featurebench: %w", err)
	}
	rejected := len(res.Items) - len(res.Accepted())
	fmt.Fprintf(stderr, "featurebench: %d instances written to %s, %d candidates rejected\n", len(insts), out, rejected)
	return nil
}

// baseCommit returns the repository's git HEAD, or "" when it is not a git checkout.
func baseCommit(root string) string {
	if _, err := os.Stat(filepath.Join(root, ".git")); err != nil {
		return ""
	}
	b, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// checkLevel2 re-verifies the Level 2 instances of dir/instances.jsonl.
func checkLevel2(ctx context.Context, dir string, c config, stdout, stderr io.Writer) int {
	f, err := os.Open(filepath.Join(dir, "instances.jsonl"))
	if err != nil {
		fmt.Fprintln(stderr, "featurebench: -check:", err)
		return 1
	}
	defer f.Close()
	insts, err := task.ReadAllJSONL[task.SWEInstance](f)
	if err != nil {
		fmt.Fprintf(stderr, "featurebench: -check: %s: %v\n", f.Name(), err)
		return 1
	}
	local := sandbox.NewLocal(sandbox.Options{Python: c.python, Limits: task.Limits{Timeout: c.timeout}})
	defer local.Close()
	r := task.Runner(local)
	if c.testTimeout > 0 {
		r = extract.WithTestTimeout(local, c.testTimeout)
	}
	code, checked := 0, 0
	for _, inst := range insts {
		if !strings.HasSuffix(inst.InstanceID, ".lv2") {
			fmt.Fprintf(stderr, "featurebench: -check: skipped %s: a Level 1 instance needs its repository\n", inst.InstanceID)
			continue
		}
		checked++
		env, err := artifact.EnvironmentFromInstance(inst)
		if err != nil {
			fmt.Fprintf(stdout, "%s rejected: %v\n", inst.InstanceID, err)
			code = 1
			continue
		}
		v, err := extract.VerifyLevel2(ctx, r, extract.Level2Request{Env: env})
		if err != nil {
			fmt.Fprintln(stderr, "featurebench: -check:", err)
			return 1
		}
		if !v.Accepted {
			fmt.Fprintf(stdout, "%s rejected: %s\n", inst.InstanceID, v.Reason)
			code = 1
			continue
		}
		fmt.Fprintf(stdout, "%s ok\n", inst.InstanceID)
	}
	fmt.Fprintf(stderr, "featurebench: -check: %d Level 2 instances checked\n", checked)
	return code
}
