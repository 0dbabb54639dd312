// Command featurebench builds FeatureBench instances from a repository whose tests pass:
// it traces every test file, picks the objects each fail-to-pass file targets, chooses
// pass-to-pass files, extracts the feature under a seeded line budget, masks it, verifies
// the masked repository and writes one instance directory per accepted item plus
// instances.jsonl.
//
//	go run ./examples/featurebench -repo DIR -out OUTDIR [-n N] [-seed S] [-level 1|2|1,2]
//	    [-package NAME] [-name owner/repo] [-commit SHA] [-python PATH] [-env KEY=VALUE]...
//	    [-jobs J] [-llm] [-timeout D] [-test-timeout D] [-after DATE] [-cache DIR|off]
//	    [-swe-lists json|string] [-swe-test-ids full|bare] [-shard i/n]
//	go run ./examples/featurebench -merge -out OUTDIR SHARDDIR...
//	go run ./examples/featurebench -check OUTDIR [-repo DIR] [-python PATH] [-env KEY=VALUE]...
//	    [-timeout D] [-test-timeout D]
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
// -swe-lists string writes FAIL_TO_PASS / PASS_TO_PASS as JSON-encoded strings (the
// Hugging Face datasets' form). -swe-test-ids bare writes Go test ids as SWE-bench's Go log
// parser names them (TestName/sub) with each name's packages in test_packages
// (task.SWEInstance.BareGoTestIDs); -check restores the full ids from it.
//
// -check re-verifies the instances of OUTDIR/instances.jsonl, prints "<id> ok" or "<id>
// rejected: <reason>" per instance and exits 1 when any is rejected. A Level 2 instance is
// checked from the instance alone (env_patch, test_patch and patch in an empty directory).
// A Level 1 instance is checked in the repository it was made from, given as -repo
// (prepared and checked as a build does; never written): the masked state is that
// repository with the instance's patch reversed, and the build's verification runs again
// (the F2P file's tests fail on it, the P2P tests pass without that file, both pass on the
// repository) and must find exactly the instance's FAIL_TO_PASS and PASS_TO_PASS. A
// repository the patch does not reverse in, or whose F2P test file is not the test
// patch's, is not the instance's and rejects it. Without -repo, Level 1 instances are
// skipped, and a run that checked nothing exits 1.
//
// -repo may be a project root, a Python package directory (or a src/ layout's package) or a
// Go module subdirectory: the project root is found with task/repo's rule (repo.Discover)
// and said on stderr, the project is prepared (sandbox.Prepare: Go modules downloaded, a
// package directory without a project of its own staged in a private copy at its import
// path, so that the tests import the copy — the masked code — and not an installed
// version), and an unusable project is refused with the problems and fixes
// examples/doctor reports (sandbox.Check: tests collect, the package imports from the
// copy). Paths in the instances are relative to the project root.
//
// Provenance: the output directory holds mirror.git, a bare git repository with one commit
// per instance, and each instance's base_commit is that commit — the state its patch
// applies to (Level 1: the analysed tree masked, without the F2P test file; Level 2: an
// empty tree). Clone it and check out base_commit to evaluate. The analysed tree's own
// git commit and the project root's path in its work tree are recorded in each instance
// as source_commit and source_subdir (absent, with a warning, when it is not a git
// checkout; -commit overrides the commit); the seed as seed, the program's version as tool
// (module version and Go release, as breakpoint records it). The instance ids keep the
// FeatureBench form with the source commit's first 8 characters (a hash of the tree
// outside git).
//
// Tests run with the local sandbox runner (no Docker, no network). The repository is
// only read. It follows the convention of internal/cli: every flag is checked before any
// work (a bad one exits 2 naming it); progress (tracing and building: done/total, elapsed,
// time left), rejected candidates with their reasons and the summary go to stderr; the
// written instance ids go to stdout; the output directory's new entries are written whole
// at the end or not at all; it exits 1 when no instance was made ("0 instances: " and the
// reasons) and when -n asked for more items than the fail-to-pass candidates gave ("2 of 5
// items asked: the fail-to-pass candidates ran out"; the instances made are still written),
// as examples/breakpoint does, and 130/143 when interrupted (SIGINT/SIGTERM), after stopping
// its runs and removing its private copies.
//
// Every test run of a build goes through the on-disk result cache (sandbox.Cache) in -cache
// DIR, by default $XDG_CACHE_HOME/faultline/results (-cache off: memory only): a build killed
// at any point and started again with the same flags takes the traces and verifications it
// had made from there and writes the same instances; the summary ends with the runs made
// and the cache hits. -check never uses the cache: it re-runs what it checks.
//
// Sharding (docs/scale.md). -shard i/n builds only the fail-to-pass candidates part i of n
// owns (cli.Shard.Owns on the test file's path; extract.Options.Owns passes the others
// over without a run; every shard still traces every test file) and writes a shard's
// output directory: the instances of its part, as an unsharded run writes them, with
// mirror.git, and shard.json naming the part, the flags that decide the instances and each
// item's position in the candidate order. A shard that finds fewer than -n items in its
// part is not a failure, and one that finds none writes an empty instances.jsonl. -merge
// reads every shard's directory (as arguments, in any order) and writes to -out exactly
// the bytes the unsharded run writes: the first -n items in candidate order, their
// instance directories and instances.jsonl copied, and mirror.git written again by the
// same deterministic step from the base tree and the masked states the shards' mirrors
// hold (a merge of git packs would not give the same bytes). -merge exits 1 when the
// shards made no instance or fewer items than -n asked, as an unsharded run does.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/faultline-dev/faultline/extract"
	"github.com/faultline-dev/faultline/extract/artifact"
	"github.com/faultline-dev/faultline/extract/mask"
	"github.com/faultline-dev/faultline/internal/cli"
	"github.com/faultline-dev/faultline/sandbox"
	"github.com/faultline-dev/faultline/task"
	"github.com/faultline-dev/faultline/task/llm"
	"github.com/faultline-dev/faultline/task/repo"
)

func main() { os.Exit(cli.Main(run)) }

type config struct {
	// root is the directory given as -repo; project is where its project root is (repo.Discover).
	project                                     *repo.Project
	root, out, name, commit, python, pkg, check string
	sweLists                                    string
	sweIDs                                      string
	n, jobs                                     int
	levels                                      []int
	seed                                        uint64
	env                                         cli.EnvFlag
	useLLM                                      bool
	model                                       *llm.OpenAI
	timeout, testTimeout                        time.Duration
	after                                       time.Time
	cache                                       cli.CacheFlag
	cacheDir                                    string
	shard                                       cli.Shard
	merge                                       []string          // -merge: the shards' output directories
	flags                                       map[string]string // the flags that decide the instances (shard.json)
}

// parseDate reads -after: a date (2006-01-02, midnight UTC) or an RFC 3339 time.
func parseDate(s string) (time.Time, error) {
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("-after %q: want a date (2006-01-02) or an RFC 3339 time", s)
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
			return nil, fmt.Errorf("-level %q: want 1, 2 or 1,2", s)
		}
	}
	for _, l := range []int{1, 2} {
		if seen[l] {
			out = append(out, l)
		}
	}
	return out, nil
}

// parse reads and checks every flag before any work. It returns the exit status when the
// program must stop (-h: 0; a bad flag: 2), else -1.
func parse(args []string, stderr io.Writer) (config, int) {
	fs := flag.NewFlagSet("featurebench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c config
	var dir string
	fs.StringVar(&dir, "repo", "", "repository `DIR` whose tests pass: a project root, a package directory or a module subdirectory (required; never modified)")
	fs.StringVar(&c.out, "out", "", "output `DIR` for instance directories and instances.jsonl (required; outside the repository)")
	fs.IntVar(&c.n, "n", 5, "stop after N ≥ 0 accepted instances (0: try every test file)")
	fs.Uint64Var(&c.seed, "seed", 1, "random seed (same seed, same instances)")
	level := fs.String("level", "1", "instance `levels`: 1 (inside the masked repository), 2 (from scratch) or 1,2")
	fs.StringVar(&c.pkg, "package", "agent_code", "Level 2: the `name` a Python solution package is renamed to (empty keeps it)")
	fs.StringVar(&c.name, "name", "", "repository name `owner/repo` (default: the git remote origin's, else a github.com-like Go module path's, else local/<directory name>)")
	fs.StringVar(&c.commit, "commit", "", "the source `commit` recorded for the analysed tree (default: git HEAD of the project root; none outside git)")
	fs.StringVar(&c.python, "python", "", "Python interpreter with pytest (default: detected)")
	fs.Var(&c.env, "env", "extra `KEY=VALUE` for the test runs (repeatable)")
	fs.IntVar(&c.jobs, "jobs", 0, "test files traced concurrently (0: the number of CPUs; the output does not depend on it)")
	fs.BoolVar(&c.useLLM, "llm", false, "classify top objects with the model configured by FAULTLINE_LLM_* (see task/llm)")
	fs.DurationVar(&c.timeout, "timeout", 10*time.Minute, "time limit (> 0) of one test run")
	fs.DurationVar(&c.testTimeout, "test-timeout", extract.DefaultTestTimeout, "time limit of one test (0: none): pytest counts CPU time, with 10× in wall-clock time as a backstop; go test wall-clock time")
	after := fs.String("after", "", "keep as fail-to-pass only test files first committed after `DATE` (2006-01-02 or RFC 3339; needs a git checkout)")
	fs.StringVar(&c.sweLists, "swe-lists", "json", "FAIL_TO_PASS / PASS_TO_PASS in instances.jsonl: json (JSON arrays) or string (JSON-encoded strings, as the Hugging Face SWE-bench datasets store them; readers, -check included, accept both)")
	fs.StringVar(&c.sweIDs, "swe-test-ids", "full", "Go test ids in instances.jsonl: full (import/path.TestName/sub) or bare (TestName/sub, as SWE-bench's Go log parser names them; each name's packages in test_packages; -check restores full ids from it)")
	fs.StringVar(&c.check, "check", "", "re-verify the instances of `DIR`/instances.jsonl instead of building: Level 2 from their patches alone, Level 1 in the repository given as -repo")
	cli.AddCacheFlag(fs, &c.cache)
	fs.Var(&c.shard, "shard", "build only part `i/n` of the fail-to-pass candidates (0 ≤ i < n; an output directory for -merge)")
	merging := fs.Bool("merge", false, "merge the output directories of shards 0/n … n-1/n (the arguments) into -out, the unsharded run's output")
	if code := cli.Parse(fs, args, true); code >= 0 {
		return c, code
	}
	usage := func(format string, a ...any) (config, int) { return c, cli.Usage(stderr, "featurebench", format, a...) }
	if *merging {
		return parseMerge(fs, c, usage)
	}
	if fs.NArg() > 0 {
		return usage("unexpected argument %q (every input is a flag; shard directories only with -merge)", fs.Arg(0))
	}
	c.flags = map[string]string{}
	for _, name := range outputFlags {
		c.flags[name] = fs.Lookup(name).Value.String()
	}
	switch {
	case c.timeout <= 0:
		return usage("-timeout %v: want a positive duration", c.timeout)
	case c.testTimeout < 0:
		return usage("-test-timeout %v: want 0 (no limit) or a positive duration", c.testTimeout)
	case c.n < 0:
		return usage("-n %d: want 0 (every test file) or more", c.n)
	case c.jobs < 0:
		return usage("-jobs %d: want 0 (the number of CPUs) or more", c.jobs)
	case c.sweLists != "json" && c.sweLists != "string":
		return usage("-swe-lists %q: want json or string", c.sweLists)
	case c.sweIDs != "full" && c.sweIDs != "bare":
		return usage("-swe-test-ids %q: want full or bare", c.sweIDs)
	case c.out == "-":
		return usage("-out -: the output is a directory (instance directories, instances.jsonl, mirror.git), not a stream; name a directory")
	case c.name != "" && (!ownerNameRE.MatchString(c.name) || strings.Contains(c.name, "..")):
		return usage("-name %q: want owner/name (letters, digits, '.', '_' and '-' on each side of one '/'): it begins every instance id", c.name)
	case c.commit != "" && !commitRE.MatchString(c.commit):
		return usage("-commit %q: want a commit hash (7 to 64 hex digits): its first 8 are part of every instance id", c.commit)
	}
	if err := cli.Python(c.python); err != nil {
		return usage("%v", err)
	}
	var err error
	if c.cacheDir, err = c.cache.Dir(); err != nil {
		return usage("%v", err)
	}
	if c.check != "" {
		if c.out != "" {
			return usage("-check re-verifies existing instances: it writes nothing and takes no -out")
		}
		if c.shard.N > 0 {
			return usage("-shard with -check: -check re-verifies existing instances; shard a build")
		}
		if dir == "" {
			return c, -1
		}
	}
	root, err := cli.Repo(dir)
	if err != nil {
		return usage("%v", err)
	}
	c.root = root
	if c.project, err = repo.Discover(root, ""); err != nil {
		return usage("-repo %s: %v", dir, err)
	}
	if c.check != "" {
		return c, -1 // the Level 1 instances' repository
	}
	if c.cacheDir != "" {
		if err := cli.Outside("cache", c.cacheDir, c.project.Root); err != nil {
			return usage("%v (the project root of -repo)", err)
		}
	}
	if err := cli.CheckOutputDir("out", c.out); err != nil {
		return usage("%v", err)
	}
	if err := cli.Outside("out", c.out, c.project.Root); err != nil {
		return usage("%v (the project root of -repo)", err)
	}
	if c.levels, err = parseLevels(*level); err != nil {
		return usage("%v", err)
	}
	if *after != "" {
		if c.after, err = parseDate(*after); err != nil {
			return usage("%v", err)
		}
	}
	if c.pkg != "" {
		if err := artifact.CheckPackageName(c.pkg); err != nil {
			return usage("-package: %v", err)
		}
	}
	if c.useLLM {
		if c.model, err = llm.FromEnv(); err != nil {
			return usage("-llm: %v", err)
		}
	}
	return c, -1
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c, code := parse(args, stderr)
	if code >= 0 {
		return code
	}
	if c.check != "" {
		return check(ctx, c.check, c, stdout, stderr)
	}
	if c.merge != nil {
		return cli.Fail(ctx, stderr, "featurebench", merge(ctx, c.merge, c.out, stdout, stderr))
	}
	return cli.Fail(ctx, stderr, "featurebench", build(ctx, c, stdout, stderr))
}

// intake prepares the project found for -repo and checks that it can be used: the root chosen
// goes to stderr, sandbox.Prepare readies it (dependencies, a package directory staged at its
// import path), and sandbox.Check refuses an unusable one with the words examples/doctor
// prints. The baseline is left to the pipeline: it runs every test file while tracing, and
// a failing file is only not a candidate. The caller closes the result.
func intake(ctx context.Context, c config, prog *cli.Progress) (*sandbox.Prepared, *sandbox.Local, error) {
	p := c.project
	where := p.Root
	if p.Target != "." {
		where += " (target " + p.Target + ")"
	}
	prog.Printf("project root %s, %s: %s", where, p.Lang, p.Reason)
	prep, err := sandbox.Prepare(ctx, p, sandbox.PrepareOptions{Python: c.python, Env: c.env})
	if err != nil {
		return nil, nil, fmt.Errorf("featurebench: %w", err)
	}
	for _, st := range prep.Steps {
		prog.Printf("prepared: %s", st)
	}
	r := sandbox.NewLocal(sandbox.Options{Python: prep.Python, Env: append(slices.Clone(prep.Env), c.env...),
		Limits: task.Limits{Timeout: c.timeout}})
	rd, err := sandbox.Check(ctx, r, prep, sandbox.CheckOptions{NoBaseline: true, Limits: task.Limits{Timeout: c.timeout}})
	if err == nil {
		err = rd.Err()
	}
	if err != nil {
		r.Close()
		prep.Close()
		return nil, nil, fmt.Errorf("featurebench: %w", err)
	}
	for _, f := range rd.Findings {
		prog.Printf("warning: %s (fix: %s)", f.What, f.Fix)
	}
	return prep, r, nil
}

// source is the provenance of the analysed tree: the commit of the project root's git work
// tree and the root's place in it (repo.Git), or none with a warning outside git.
func source(ctx context.Context, c config, prog *cli.Progress) map[string]any {
	prov, err := repo.Git(ctx, c.project.Root)
	out := map[string]any{}
	switch {
	case c.commit != "":
		out["source_commit"] = c.commit
		if err == nil {
			out["source_subdir"] = prov.Subdir
		}
	case err != nil:
		prog.Printf("warning: %s is not a git checkout: the instances record no source commit (%v)", c.project.Root, err)
		return out
	default:
		out["source_commit"] = prov.Commit
		out["source_subdir"] = prov.Subdir
		if prov.Dirty {
			out["source_dirty"] = true
			prog.Printf("warning: %s has uncommitted changes: the analysed tree is not exactly %s", c.project.Root, prov.Commit)
		}
	}
	return out
}

// ownerNameRE and commitRE are the forms of -name and -commit: both go into instance ids,
// which name directories and mirror refs (task.FeatureBenchID, repo.WriteMirror).
var (
	ownerNameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$`)
	commitRE    = regexp.MustCompile(`^[0-9a-fA-F]{7,64}$`)
)

// defaultName is the repository name when -name is not given: repo.DefaultName of the
// project root's git remote origin (none outside git), its Go module path (none for
// Python) and the directory given as -repo.
func defaultName(ctx context.Context, root, module, dir string) string {
	remote := ""
	if g, err := repo.Git(ctx, root); err == nil {
		remote = g.Remote
	}
	return repo.DefaultName(remote, module, dir)
}

func build(ctx context.Context, c config, stdout, stderr io.Writer) error {
	name := c.name
	if name == "" {
		name = defaultName(ctx, c.project.Root, c.project.GoModule(), c.root)
	}
	prog := cli.NewProgress(stderr, "featurebench")
	stopBeat := prog.Beat(15 * time.Second)
	defer stopBeat()
	prep, local, err := intake(ctx, c, prog)
	if err != nil {
		return err
	}
	defer prep.Close()
	defer local.Close()
	// Every run goes through the result cache: a run started again after being killed
	// answers the traces and verifications it had made from the cache (-cache).
	r := sandbox.NewCache(local, sandbox.CacheOptions{Dir: c.cacheDir, Jobs: c.jobs})
	if c.cacheDir != "" {
		prog.Printf("result cache %s (-cache off for none)", c.cacheDir)
	}
	// Everything below reads and runs the prepared tree: the project root, or the private
	// copy of a package directory at its import path, which is what the tests import.
	root := prep.Root
	provenance := source(ctx, c, prog)
	commit, _ := provenance["source_commit"].(string)
	provenance["seed"] = c.seed
	provenance["tool"] = cli.Version()
	phase := ""
	opts := extract.Options{
		Kind:           prep.Kind,
		Args:           slices.Clone(prep.Args),
		Seed:           c.seed,
		N:              c.n,
		Jobs:           c.jobs,
		CommittedAfter: c.after,
		TestTimeout:    c.testTimeout,
		Progress:       func(msg string) { prog.Printf("%s", msg) },
		Steps: func(s extract.Step) {
			if s.Phase != phase {
				phase = s.Phase
				what := map[string]string{"trace": "tracing test files", "build": "building instances from F2P candidates"}[s.Phase]
				prog.Phase(what, s.Total)
			}
			if s.Done > 0 {
				note := s.File
				if s.Phase == "build" {
					note = fmt.Sprintf("%s (%d accepted)", s.File, s.Accepted)
				}
				prog.Step(s.Done, note)
			}
		},
	}
	if c.testTimeout == 0 {
		opts.TestTimeout = -1 // the flag's 0 is "none"; the option's 0 is the default
	}
	if c.model != nil {
		opts.Classifier = &extract.LLMClassifier{Model: c.model}
	}
	if c.shard.On() {
		opts.Owns = c.shard.Owns
	}
	if commit == "" {
		// The instance ids need a commit-like name for the tree: its content hash.
		prog.Phase("hashing the tree for the instance ids", 0)
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
				return fmt.Sprintf("level 2 instance cannot be built: %v", err), nil
			}
			if err != nil {
				return "", err
			}
			v, err := extract.VerifyLevel2(ctx, lr, extract.Level2Request{Env: a.Env, Limits: opts.Limits})
			if err != nil {
				return "", err
			}
			if !v.Accepted {
				return "level 2 instance does not verify: " + strings.TrimPrefix(v.Reason, "level 2: "), nil
			}
			level2[it.TestFile] = a
			return "", nil
		}
	}
	res, err := extract.Pipeline(ctx, r, root, opts)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, x := range res.Excluded {
		prog.Printf("not a fail-to-pass candidate: %s: %s", x.File, x.Reason)
	}
	accepted := res.Accepted()
	if len(accepted) == 0 && !c.shard.On() {
		return fmt.Errorf("0 instances: %s", res.Counts())
	}
	var arts []*artifact.Artifacts
	for _, it := range accepted {
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
			arts = append(arts, a)
		}
	}
	if err := write(ctx, c, root, res, arts, provenance); err != nil {
		return fmt.Errorf("featurebench: %w", err)
	}
	for _, a := range arts {
		fmt.Fprintln(stdout, a.Instance.InstanceID)
	}
	// Say what was made against what was asked, accounting for every test file.
	var msg string
	if c.shard.On() {
		msg = fmt.Sprintf("shard %s: ", c.shard.String())
	}
	short := c.n > 0 && len(accepted) < c.n
	ranOut := fmt.Sprintf("%d of %d items asked: the fail-to-pass candidates ran out", len(accepted), c.n)
	switch {
	case short:
		msg += ranOut
	case c.n > 0:
		msg += fmt.Sprintf("%d of %d items asked", len(accepted), c.n)
	default:
		msg += fmt.Sprintf("%d items (every test file tried)", len(accepted))
	}
	msg += fmt.Sprintf("; %d instances (levels %v) written to %s; %s", len(arts), c.levels, c.out, res.Counts())
	prog.Printf("%s", msg)
	st := r.Stats()
	prog.Printf("%d test runs, %d cache hits", st.Runs, st.CacheHits)
	if short && !c.shard.On() {
		// What was made is written, but fewer items than asked is not success (a shard's
		// part may hold fewer: -merge says whether the shards together made enough).
		return errors.New(ranOut)
	}
	return nil
}

// write writes the output directory -out of a build: the instances arts of res's accepted
// items (by item, then level), mirror.git (whose commits become their base_commit, with the
// provenance added to each) and, for a shard, shard.json.
func write(ctx context.Context, c config, root string, res *extract.Result, arts []*artifact.Artifacts, provenance map[string]any) error {
	mirror := func(tmp string) error {
		if err := writeMirror(ctx, filepath.Join(tmp, MirrorDir), root, c.project, arts, provenance); err != nil {
			return err
		}
		if c.shard.On() {
			return writeManifest(filepath.Join(tmp, ShardFile), c, res, arts)
		}
		return nil
	}
	if c.sweIDs == "bare" {
		for _, a := range arts {
			if err := a.Instance.BareGoTestIDs(); err != nil {
				return err
			}
		}
	}
	return writeOut(c.out, arts, c.sweLists, mirror)
}

// MirrorDir is the bare git repository written into the output directory: the instances'
// base_commit ids are commits there (see writeMirror).
const MirrorDir = "mirror.git"

// writeMirror writes the repository states of the instances into the bare git repository
// dir (repo.WriteMirror) and points each instance's base_commit at its state, where its
// patch applies: a Level 1 instance's commit is the analysed tree (root, the project's
// files) with the mask and without the F2P test file; a Level 2 instance's is an empty
// tree (its env_patch, test_patch and patch all create files). The branches and tags are
// task/<instance id>. Commits are made with fixed identities and dates, so the same
// instances give the same ids. The source commit of the analysed tree, and the project
// root's place in its work tree, go into every instance as source_commit and source_subdir
// (absent outside git), with the seed.
func writeMirror(ctx context.Context, dir, root string, p *repo.Project, arts []*artifact.Artifacts, extra map[string]any) error {
	var lv1, lv2 []repo.MirrorTask
	for _, a := range arts {
		if a.Env != nil {
			lv2 = append(lv2, mirrorTask(a.Instance.InstanceID, 2, nil))
		} else {
			lv1 = append(lv1, mirrorTask(a.Instance.InstanceID, 1, a.Overlay))
		}
	}
	include := p.Contains
	if root != p.Root {
		include = nil // the staged copy holds only the project's files
	}
	commits, err := writeMirrorTasks(ctx, dir, root, include, lv1, lv2)
	if err != nil {
		return err
	}
	for _, a := range arts {
		a.Instance.BaseCommit = commits[a.Instance.InstanceID]
		if a.Instance.Extra == nil {
			a.Instance.Extra = map[string]json.RawMessage{}
		}
		for k, v := range extra {
			b, err := json.Marshal(v)
			if err != nil {
				return err
			}
			a.Instance.Extra[k] = b
		}
	}
	return nil
}

// mirrorTask is the mirror's task of one instance: at Level 1 the masked state (changes on
// the analysed tree), at Level 2 the empty tree.
func mirrorTask(id string, level int, changes task.Overlay) repo.MirrorTask {
	if level == 2 {
		return repo.MirrorTask{Name: id, Message: "level 2: " + id + " starts from an empty tree"}
	}
	return repo.MirrorTask{Name: id, Changes: changes, Message: "level 1: " + id + " masked"}
}

// writeMirrorTasks writes the Level 1 tasks on the base tree of root (the paths include
// keeps) and the Level 2 tasks on an empty tree into the bare repository dir, in that
// order, and returns each task's commit. It is the one step that makes mirror.git, for a
// build and for -merge.
func writeMirrorTasks(ctx context.Context, dir, root string, include func(string) bool, lv1, lv2 []repo.MirrorTask) (map[string]string, error) {
	commits := map[string]string{}
	if len(lv1) > 0 {
		m, err := repo.WriteMirror(ctx, dir, root, lv1, repo.MirrorOptions{Include: include, Message: level1Base})
		if err != nil {
			return nil, err
		}
		maps.Copy(commits, m.Tasks)
	}
	if len(lv2) > 0 {
		empty, err := os.MkdirTemp("", "faultline-empty-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(empty)
		m, err := repo.WriteMirror(ctx, dir, empty, lv2, repo.MirrorOptions{Branch: level2Branch, Message: "base: the empty tree of Level 2"})
		if err != nil {
			return nil, err
		}
		maps.Copy(commits, m.Tasks)
	}
	return commits, nil
}

// The mirror's branches: the analysed tree (Level 1's base) and the empty tree (Level 2's).
const (
	level1Branch = "base"
	level1Base   = "base: the analysed tree"
	level2Branch = "level2-base"
)

// writeOut writes the instance directories and instances.jsonl into out, whole or not at
// all: everything is written to a temporary directory beside out first and moved in at the
// end (publish). before runs first, on the temporary directory (it may still change the
// instances). lists "string"
// writes instances.jsonl's test lists as the Hugging Face dataset's JSON-encoded strings.
func writeOut(out string, arts []*artifact.Artifacts, lists string, before func(tmp string) error) error {
	return publish(out, func(tmp string) error {
		if before != nil {
			if err := before(tmp); err != nil {
				return err
			}
		}
		var insts []task.SWEInstance
		var dataset []task.DatasetInstance
		for _, a := range arts {
			if _, err := a.WriteDir(tmp); err != nil {
				return fmt.Errorf("%s: %w", a.Instance.InstanceID, err)
			}
			insts = append(insts, a.Instance)
			dataset = append(dataset, a.Instance.AsDataset())
		}
		f, err := os.Create(filepath.Join(tmp, "instances.jsonl"))
		if err != nil {
			return err
		}
		if lists == "string" {
			err = task.WriteJSONL(f, dataset)
		} else {
			err = task.WriteJSONL(f, insts)
		}
		if err != nil {
			f.Close()
			return err
		}
		return f.Close()
	})
}

// publish makes an output directory whole or not at all: fill writes it into a temporary
// directory beside out, which is then moved in (an existing out keeps its other entries;
// same-named ones are replaced, and a shard.json the new output lacks is removed, so that
// the directory does not pass for a shard's).
func publish(out string, fill func(tmp string) error) error {
	out = filepath.Clean(out)
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(out), "."+filepath.Base(out)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := fill(tmp); err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	if _, err := os.Stat(out); errors.Is(err, os.ErrNotExist) {
		return os.Rename(tmp, out)
	}
	ents, err := os.ReadDir(tmp)
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(tmp, ShardFile)); errors.Is(err, os.ErrNotExist) {
		if err := os.Remove(filepath.Join(out, ShardFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	for _, e := range ents {
		dst := filepath.Join(out, e.Name())
		if err := os.RemoveAll(dst); err != nil {
			return err
		}
		if err := os.Rename(filepath.Join(tmp, e.Name()), dst); err != nil {
			return err
		}
	}
	return nil
}

// check re-verifies the instances of dir/instances.jsonl: Level 2 ones from their patches
// alone, Level 1 ones in the repository given as -repo (level1Repo.check; skipped without it).
func check(ctx context.Context, dir string, c config, stdout, stderr io.Writer) int {
	f, err := os.Open(filepath.Join(dir, "instances.jsonl"))
	if err != nil {
		return cli.Usage(stderr, "featurebench", "-check: %v", err)
	}
	defer f.Close()
	insts, err := task.ReadAllJSONL[task.SWEInstance](f)
	if err != nil {
		return cli.Usage(stderr, "featurebench", "-check: %s: %v", f.Name(), err)
	}
	if len(insts) == 0 {
		return cli.Usage(stderr, "featurebench", "-check: %s holds no instance", f.Name())
	}
	withTestTimeout := func(r task.Runner) task.Runner {
		if c.testTimeout > 0 {
			return extract.WithTestTimeout(r, c.testTimeout)
		}
		return r
	}
	local := sandbox.NewLocal(sandbox.Options{Python: c.python, Env: c.env, Limits: task.Limits{Timeout: c.timeout}})
	defer local.Close()
	r := withTestTimeout(local)
	// The Level 1 instances' repository, prepared and checked as a build does, once.
	var l1 *level1Repo
	defer func() {
		if l1 != nil {
			l1.close()
		}
	}()
	code, checked, skipped := 0, [3]int{}, 0
	for _, inst := range insts {
		level := 2
		if !strings.HasSuffix(inst.InstanceID, ".lv2") {
			level = 1
			if c.project == nil {
				fmt.Fprintf(stderr, "featurebench: -check: skipped %s: a Level 1 instance is checked in its repository: give it as -repo\n", inst.InstanceID)
				skipped++
				continue
			}
		}
		checked[level]++
		if err := inst.FullGoTestIDs(); err != nil {
			fmt.Fprintf(stdout, "%s rejected: %v\n", inst.InstanceID, err)
			code = 1
			continue
		}
		reason := ""
		if level == 1 {
			if l1 == nil {
				prog := cli.NewProgress(stderr, "featurebench")
				prep, lr, err := intake(ctx, c, prog)
				if err != nil {
					fmt.Fprintln(stderr, err) // "featurebench: ..." with the doctor's words
					return cli.ExitFailure
				}
				l1 = &level1Repo{prep: prep, local: lr, r: withTestTimeout(lr)}
			}
			reason, err = l1.check(ctx, inst)
		} else {
			reason, err = checkLevel2(ctx, r, inst)
		}
		if err != nil {
			fmt.Fprintln(stderr, "featurebench: -check:", err)
			return cli.ExitFailure
		}
		if reason != "" {
			fmt.Fprintf(stdout, "%s rejected: %s\n", inst.InstanceID, reason)
			code = 1
			continue
		}
		fmt.Fprintf(stdout, "%s ok\n", inst.InstanceID)
	}
	fmt.Fprintf(stderr, "featurebench: -check: %d Level 1 and %d Level 2 instances checked, %d skipped\n", checked[1], checked[2], skipped)
	if checked[1]+checked[2] == 0 {
		fmt.Fprintln(stderr, "featurebench: -check: no instance checked (Level 1 instances need -repo)")
		return cli.ExitFailure
	}
	return code
}

// checkLevel2 re-verifies a Level 2 instance from its patches alone (extract.VerifyLevel2).
// It returns why the instance is rejected (empty when it holds); the error is for a runner
// that could not be used.
func checkLevel2(ctx context.Context, r task.Runner, inst task.SWEInstance) (string, error) {
	env, err := artifact.EnvironmentFromInstance(inst)
	if err != nil {
		return err.Error(), nil
	}
	v, err := extract.VerifyLevel2(ctx, r, extract.Level2Request{Env: env})
	if err != nil {
		return "", err
	}
	if !v.Accepted {
		return v.Reason, nil
	}
	return "", nil
}
