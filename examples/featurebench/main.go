// Command featurebench builds FeatureBench instances from a repository whose tests pass:
// it traces every test file, picks the objects each fail-to-pass file targets, chooses
// pass-to-pass files, extracts the feature under a seeded line budget, masks it, verifies
// the masked repository and writes one instance directory per accepted item plus
// instances.jsonl.
//
//	go run ./examples/featurebench -repo DIR -out OUTDIR [-n N] [-seed S] [-level 1|2]
//	    [-name owner/repo] [-commit SHA] [-python PATH] [-llm] [-timeout D]
//
// Tests run with the local sandbox runner (no Docker, no network). The repository is
// only read. Progress and rejected candidates with their reasons go to stderr; the
// written instance ids go to stdout.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
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
	repo, out, name, commit, python string
	n, level                        int
	seed                            int64
	useLLM                          bool
	timeout                         time.Duration
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("featurebench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c config
	fs.StringVar(&c.repo, "repo", "", "repository `DIR` whose tests pass (required; never modified)")
	fs.StringVar(&c.out, "out", "", "output `DIR` for instance directories and instances.jsonl (required)")
	fs.IntVar(&c.n, "n", 5, "stop after N accepted instances (0: try every test file)")
	fs.Int64Var(&c.seed, "seed", 1, "random seed (same seed, same instances)")
	fs.IntVar(&c.level, "level", 1, "problem statement level: 1 (inside the repository) or 2 (from scratch)")
	fs.StringVar(&c.name, "name", "", "repository name `owner/repo` (default local/<directory name>)")
	fs.StringVar(&c.commit, "commit", "", "base commit (default: git HEAD, else a hash of the tree)")
	fs.StringVar(&c.python, "python", "", "Python interpreter with pytest (default: detected)")
	fs.BoolVar(&c.useLLM, "llm", false, "classify top objects with the model configured by FAULTLINE_LLM_* (see internal/llm)")
	fs.DurationVar(&c.timeout, "timeout", 10*time.Minute, "time limit of one test run")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if c.repo == "" || c.out == "" || fs.NArg() > 0 || (c.level != 1 && c.level != 2) {
		fmt.Fprintln(stderr, "featurebench: -repo and -out are required; -level is 1 or 2")
		fs.Usage()
		return 2
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
		Seed:     c.seed,
		N:        c.n,
		Progress: func(msg string) { fmt.Fprintln(stderr, "featurebench:", msg) },
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
	res, err := extract.Pipeline(ctx, r, root, opts)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("featurebench: %w", err)
	}
	var insts []task.SWEInstance
	for _, it := range res.Accepted() {
		var objs []mask.Target
		for _, id := range it.Top {
			t, err := mask.ParseTarget(id)
			if err != nil {
				return fmt.Errorf("featurebench: %w", err)
			}
			objs = append(objs, t)
		}
		a, err := artifact.Build(ctx, artifact.Spec{
			Root: root, Repo: name, BaseCommit: commit, Level: c.level, TestFile: it.TestFile,
			Masked: it.Mask.Overlay, Objects: objs, Functions: len(it.Mask.Removed),
			FailToPass: it.Verification.F2PTests, PassToPass: it.Verification.P2PTests,
		}, artifact.Options{})
		if err != nil {
			return fmt.Errorf("featurebench: %s: %w", it.TestFile, err)
		}
		dir, err := a.WriteDir(out)
		if err != nil {
			return fmt.Errorf("featurebench: %s: %w", it.TestFile, err)
		}
		insts = append(insts, a.Instance)
		fmt.Fprintln(stdout, filepath.Base(dir))
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
	rejected := len(res.Items) - len(insts)
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
