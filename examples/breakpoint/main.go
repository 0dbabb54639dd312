// Command breakpoint builds Breakpoint tasks from a repository whose tests pass: it builds
// the call graph, prints the most central functions, corrupts functions (REMOVE: delete the
// body; DISCOVERY: a rule-based subtle bug), keeps the corruptions that make enough tests
// fail, and writes the validated tasks as JSONL (task.BreakpointProblem records).
//
//	go run ./examples/breakpoint -repo DIR [-mode remove|discovery] [-multi k -distance d]
//	    [-hard] [-n N] [-seed S] [-jobs J] [-timeout D] [-env KEY=VALUE]... [-python PATH]
//	    [-out tasks.jsonl] [-swe instances.jsonl [-mirror DIR] [-swe-test-ids full|bare]
//	    [-swe-lists json|string]]
//	    [-name owner/name] [-commit C] [-vet=false] [-allow-failing] [-alone=false]
//	    [-cache DIR|off] [-shard i/n]
//	go run ./examples/breakpoint -merge -out tasks.jsonl SHARD.jsonl...
//
// Intake is the one examples/doctor reports (task/repo.Discover, sandbox.Prepare,
// sandbox.Check): -repo may be a project root, a package directory, a Go module
// subdirectory or a src layout. The project root chosen, and why, is printed on stderr; the
// call graph and the tests start from there (a package directory alone is copied under a
// private root with its own name, so the tests import the corrupted copy), and only
// functions at or below the directory given are corrupted. Go dependencies are downloaded
// outside the sandbox first, with the user's GOPROXY; offline (GOPROXY=off) a missing module
// stops the program before any test runs, named. A repository that is not ready (no tests,
// failing tests, a vet finding, tests that would import an installed copy) is refused with
// doctor's words; -allow-failing accepts clean-failing tests and leaves them out of every
// task. Each failing test of a kept corruption is run alone to confirm it (-alone=false:
// not; see docs/breakpoint.md). The clean baseline runs go test's default vet checks (-vet=false: not);
// corrupted runs never vet, so a mutant's vet finding cannot hide its test verdicts.
//
// Provenance: each record's commit is the HEAD of the git work tree that holds the project
// root (absent, with a warning, outside git), and its "provenance" member records the
// root's subdirectory in that work tree, whether the tree was dirty, the directory given
// (target, relative to the root), the seed and the tool version. -swe writes SWE-bench
// instances whose base_commit is the task's corrupted state, committed in a separate bare
// git repository (-mirror; default: the -swe file's name without extension + .mirror.git;
// one branch and tag task/ID per task, see repo.WriteMirror): clone it, check out
// base_commit, and the instance's patch applies. The user's repository is never written.
// repo is owner/name: -name, else the git origin remote's, else the Go module path's when it
// names a github.com-like repository, else local/ and the directory's name (repo.DefaultName).
// -swe-test-ids bare writes Go test ids as SWE-bench's Go log parser names them
// (TestName/sub), with each name's packages in "test_packages". -swe-lists string writes
// FAIL_TO_PASS and PASS_TO_PASS as JSON-encoded strings, as the Hugging Face datasets do.
//
// Tests run with the local sandbox runner (no Docker, no network). It follows the
// convention of internal/cli: every flag is checked before any work (a bad one exits 2
// naming it); stdout carries only the JSONL when -out or -swe is "-"; progress (phase,
// done/total, elapsed, time left), the central-function table and the summary — how many
// tasks of -n were made, and why candidates were rejected when they ran out; under each
// task its tests without a verdict, the first three with the runner's reason — go to
// stderr; outputs are written whole at the end or not at all. It exits 1 when the
// repository is not ready and when fewer than -n tasks could be made ("2 of 5 remove
// task(s): candidates exhausted after 32 tried (reasons)"; the tasks found are still
// written, none when there are none), and 130/143 when interrupted (SIGINT/SIGTERM), after
// stopping its runs and removing its private copies.
//
// Resuming and sharding (docs/scale.md). Every corrupted run goes through the on-disk result
// cache (sandbox.Cache) in -cache DIR, by default $XDG_CACHE_HOME/faultline/results (-cache
// off: memory only): a run killed at any point and started again with the same flags takes
// the validations it had made from there and writes the same bytes an uninterrupted run
// does (the readiness check and the call graph are done again). -shard i/n validates only
// the candidates part i of n owns (a hash of the candidate's function ids; the others are
// passed over without a test run) and writes its tasks, each with a "shard" member giving
// its position in the seeded candidate order, for -merge; a shard that finds fewer than -n
// tasks in its part is not a failure and one that finds none writes an empty file. -merge
// reads every shard's file (as arguments, in any order) and writes to -out exactly the
// records the unsharded run writes: the first -n tasks in candidate order, numbered as
// that run numbers them; fewer than -n is exit 1, as in an unsharded run. A shard does not
// write -swe instances (-swe with -shard is a usage error).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/faultline-dev/faultline/callgraph"
	"github.com/faultline-dev/faultline/callgraph/golang"
	"github.com/faultline-dev/faultline/callgraph/python"
	"github.com/faultline-dev/faultline/corrupt"
	"github.com/faultline-dev/faultline/internal/cli"
	"github.com/faultline-dev/faultline/sandbox"
	"github.com/faultline-dev/faultline/task"
	"github.com/faultline-dev/faultline/task/repo"
	"github.com/faultline-dev/faultline/testimpact"
)

func main() { os.Exit(cli.Main(run)) }

// shownNotRun is how many tests without a verdict the summary names for each task, with
// the runner's reason.
const shownNotRun = 3

type config struct {
	root, mode, out, swe, mirror, sweIDs, sweLists, lang, name, commit, python string
	multi, distance, n, top, minFailures, jobs                                 int
	env                                                                        cli.EnvFlag
	flaky                                                                      cli.ListFlag
	seed                                                                       uint64
	hard, undirected, vet, allowFailing, alone                                 bool
	timeout                                                                    time.Duration
	project                                                                    *repo.Project
	impact                                                                     string
	cache                                                                      cli.CacheFlag
	cacheDir                                                                   string
	shard                                                                      cli.Shard
	merge                                                                      []string // -merge: the shards' record files
}

// parse reads and checks every flag before any work. It returns the exit status when the
// program must stop (-h: 0; a bad flag, or a -repo that holds no project: 2), else -1.
func parse(args []string, stderr io.Writer) (config, int) {
	fs := flag.NewFlagSet("breakpoint", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c config
	var dir string
	fs.StringVar(&dir, "repo", "", "the `DIR` to corrupt: a project root, a package or module subdirectory (required; never modified)")
	fs.StringVar(&c.mode, "mode", "remove", "corruption mode: remove or discovery")
	fs.IntVar(&c.multi, "multi", 1, "corrupt `k` ≥ 1 functions at once (pairwise within -distance)")
	fs.IntVar(&c.distance, "distance", 4, "largest call-graph distance (≥ 1) between the functions of a -multi group")
	fs.BoolVar(&c.undirected, "undirected", false, "measure -distance ignoring call direction")
	fs.BoolVar(&c.hard, "hard", false, "only the hard set (≥ 90th percentile of code lines and harmonic centrality)")
	fs.IntVar(&c.n, "n", 5, "number (≥ 1) of validated tasks to write")
	fs.Uint64Var(&c.seed, "seed", 1, "random seed (same seed, same tasks)")
	fs.StringVar(&c.out, "out", "tasks.jsonl", "output `FILE` for task records (- for stdout)")
	fs.StringVar(&c.swe, "swe", "", "also write SWE-bench-style instances to `FILE` (- for stdout; needs a -mirror then)")
	fs.StringVar(&c.mirror, "mirror", "", "bare git repository `DIR` for the -swe instances' states, one branch and tag task/ID each (default: the -swe file without its extension + .mirror.git)")
	fs.StringVar(&c.sweLists, "swe-lists", "json", "FAIL_TO_PASS / PASS_TO_PASS in -swe instances: json (JSON arrays) or string (JSON-encoded strings, as the Hugging Face SWE-bench datasets store them; readers accept both)")
	fs.StringVar(&c.sweIDs, "swe-test-ids", "full", "Go test ids in -swe instances: full (import/path.TestName/sub) or bare (TestName/sub, as SWE-bench's Go log parser names them; packages in test_packages)")
	fs.StringVar(&c.lang, "lang", "auto", "language: auto, go or python")
	fs.IntVar(&c.top, "top", 10, "print the `N` most central functions (0: none)")
	fs.IntVar(&c.minFailures, "min-failures", 0, "tests a corruption must break (0: 5 for remove, 2 for discovery or -hard)")
	fs.Var(&c.env, "env", "extra `KEY=VALUE` for preparing and running the tests (repeatable; e.g. GOPROXY=off)")
	fs.StringVar(&c.python, "python", "", "Python interpreter with pytest (default: detected)")
	fs.IntVar(&c.jobs, "jobs", 0, "candidates validated concurrently (0: the number of CPUs; the output does not depend on it)")
	fs.DurationVar(&c.timeout, "timeout", 0, "time limit of one test run; 0 derives it from the clean run: the clean runs get up to 30m, a corrupted run 2× the clean run + 10 s (at most 10m) and, when it hits that, once more at 4× + 1m (at most 30m). A positive value bounds the clean runs and every limit above")
	fs.StringVar(&c.impact, "impact", "auto", "test-impact validation: on (record once which tests run which functions; a candidate runs those tests first, the whole suite only to confirm it), off, or auto (on for Python; Go runs are dominated by the build)")
	fs.Var(&c.flaky, "flaky", "test `ID` (as the records write it) whose verdict depends on the machine, e.g. one that asserts a wall-clock bound: treated like a test the clean runs found flaky, never in FAIL_TO_PASS or PASS_TO_PASS (repeatable)")
	fs.BoolVar(&c.allowFailing, "allow-failing", false, "accept a repository whose clean tests partly fail: those tests are left out of every task's FAIL_TO_PASS and PASS_TO_PASS (by default such a repository is refused)")
	fs.BoolVar(&c.alone, "alone", true, "confirm a kept corruption's verdicts: run each failing test alone on the corrupted tree (FAIL_TO_PASS keeps those that fail alone too, the rest are named in the record's only_with_others) and the whole suite twice more (a test whose verdict they do not reproduce rejects the corruption) (false: keep every verdict of the first run)")
	fs.BoolVar(&c.vet, "vet", true, "run the clean baseline with go test's default vet checks (a vet finding makes the repository not ready); corrupted runs never vet")
	fs.StringVar(&c.name, "name", "", "repository name for the records, owner/name (default: the git remote origin's, else a github.com-like Go module path's, else local/ and the directory's name)")
	fs.StringVar(&c.commit, "commit", "", "commit for the records (default: HEAD of the git work tree holding the project root; none outside git)")
	cli.AddCacheFlag(fs, &c.cache)
	fs.Var(&c.shard, "shard", "validate only part `i/n` of the candidates (0 ≤ i < n; records for -merge)")
	merging := fs.Bool("merge", false, "merge the record files of shards 0/n … n-1/n (the arguments) into -out, the unsharded run's records")
	if code := cli.Parse(fs, args, true); code >= 0 {
		return c, code
	}
	usage := func(format string, a ...any) (config, int) { return c, cli.Usage(stderr, "breakpoint", format, a...) }
	if *merging {
		return parseMerge(fs, c, usage)
	}
	if fs.NArg() > 0 {
		return usage("unexpected argument %q (every input is a flag; shard files only with -merge)", fs.Arg(0))
	}
	root, err := cli.Repo(dir)
	if err != nil {
		return usage("%v", err)
	}
	c.root = root
	lang, err := repo.ParseLanguage(c.lang)
	switch {
	case err != nil || lang == repo.JavaScript:
		return usage("-lang %q: want auto, go or python", c.lang)
	case c.mode != string(corrupt.Remove) && c.mode != string(corrupt.Discovery):
		return usage("-mode %q: want remove or discovery", c.mode)
	case c.n < 1:
		return usage("-n %d: want at least 1 task", c.n)
	case c.multi < 1:
		return usage("-multi %d: want at least 1 function per task", c.multi)
	case c.distance < 1:
		return usage("-distance %d: want at least 1 (two functions of a group are distinct)", c.distance)
	case c.minFailures < 0:
		return usage("-min-failures %d: want 0 (the mode's default) or more", c.minFailures)
	case c.top < 0:
		return usage("-top %d: want 0 or more", c.top)
	case c.jobs < 0:
		return usage("-jobs %d: want 0 (the number of CPUs) or more", c.jobs)
	case c.timeout < 0:
		return usage("-timeout %v: want 0 (derived from the clean run) or a positive duration", c.timeout)
	case c.sweIDs != "full" && c.sweIDs != "bare":
		return usage("-swe-test-ids %q: want full or bare", c.sweIDs)
	case c.sweLists != "json" && c.sweLists != "string":
		return usage("-swe-lists %q: want json or string", c.sweLists)
	case c.impact != "auto" && c.impact != "on" && c.impact != "off":
		return usage("-impact %q: want auto, on or off", c.impact)
	case c.mirror != "" && c.swe == "":
		return usage("-mirror %s: only -swe instances use a mirror; pass -swe FILE", c.mirror)
	case c.shard.On() && c.swe != "":
		return usage("-swe with -shard %s: a shard writes records for -merge only; write SWE-bench instances from an unsharded run", c.shard.String())
	}
	if c.cacheDir, err = c.cache.Dir(); err != nil {
		return usage("%v", err)
	}
	if c.cacheDir != "" {
		if err := cli.Outside("cache", c.cacheDir, root); err != nil {
			return usage("%v", err)
		}
	}
	if err := cli.Python(c.python); err != nil {
		return usage("%v", err)
	}
	if c.project, err = repo.Discover(root, lang); err != nil {
		return usage("-repo %s: %v", dir, sandbox.ProjectError(root, err))
	}
	if c.project.Lang != repo.Go && c.project.Lang != repo.Python {
		return usage("-repo %s: a %s project; breakpoint runs Go and Python tests (pass -lang)", dir, c.project.Lang)
	}
	c.lang = string(c.project.Lang)
	if err := cli.CheckOutputs(c.project.Root, cli.Output{Flag: "out", Path: c.out}, cli.Output{Flag: "swe", Path: c.swe, Optional: true}); err != nil {
		return usage("%v", err)
	}
	if c.swe != "" {
		if c.swe == "-" && c.mirror == "" {
			return usage("-swe - writes to stdout: name the mirror with -mirror DIR")
		}
		if c.mirror == "" {
			c.mirror = strings.TrimSuffix(c.swe, filepath.Ext(c.swe)) + ".mirror.git"
		}
		if err := checkMirror(c.mirror, c.project.Root, map[string]string{"out": c.out, "swe": c.swe}); err != nil {
			return usage("%v", err)
		}
	}
	return c, -1
}

// parseMerge checks the flags of -merge: the shard files (at least one, readable) and -out;
// the flags of a generating run are refused.
func parseMerge(fs *flag.FlagSet, c config, usage func(string, ...any) (config, int)) (config, int) {
	other := cli.SetExcept(fs, "merge", "out")
	if len(other) > 0 {
		return usage("-merge takes only -out and the shards' files, not %s", strings.Join(other, ", "))
	}
	if fs.NArg() == 0 {
		return usage("-merge: name the shards' record files (breakpoint -merge -out FILE SHARD.jsonl...)")
	}
	for _, f := range fs.Args() {
		if st, err := os.Stat(f); err != nil || st.IsDir() {
			return usage("-merge: %s is not a readable file", f)
		}
	}
	if err := cli.CheckOutputFile("out", c.out); err != nil {
		return usage("%v", err)
	}
	c.merge = fs.Args()
	return c, -1
}

// checkMirror checks the -mirror directory before any work: outside the project, apart from
// the other outputs (flag → path; a file there would meet the mirror only at the end of the
// run), creatable, and either new, empty or a bare git repository (which gets its refs
// replaced).
func checkMirror(dir, root string, outs map[string]string) error {
	if err := cli.Outside("mirror", dir, root); err != nil {
		return err
	}
	if err := cli.CheckOutputDir("mirror", dir); err != nil {
		return err
	}
	if ents, err := os.ReadDir(dir); err == nil { // absent: made at the end
		if _, err := os.Stat(filepath.Join(dir, "HEAD")); len(ents) > 0 && err != nil {
			return fmt.Errorf("-mirror %s: exists and is not a bare git repository", dir)
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("-mirror %s: %w", dir, err)
	}
	for _, flag := range []string{"out", "swe"} {
		p := outs[flag]
		if p == "" || p == "-" {
			continue
		}
		o, err := filepath.Abs(p)
		if err != nil {
			return fmt.Errorf("-%s %s: %w", flag, p, err)
		}
		if o == abs {
			return fmt.Errorf("-%s and -mirror name the same path %s", flag, dir)
		}
		if strings.HasPrefix(o, abs+string(filepath.Separator)) {
			return fmt.Errorf("-%s %s lies inside -mirror %s", flag, p, dir)
		}
	}
	return nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c, code := parse(args, stderr)
	if code >= 0 {
		return code
	}
	if c.merge != nil {
		return cli.Fail(ctx, stderr, "breakpoint", merge(c.merge, c.out, stdout, stderr))
	}
	return cli.Fail(ctx, stderr, "breakpoint", generate(ctx, c, stdout, stderr))
}

func generate(ctx context.Context, c config, stdout, stderr io.Writer) error {
	p := c.project
	mode := corrupt.Mode(c.mode)
	prog := cli.NewProgress(stderr, "breakpoint")
	stopBeat := prog.Beat(15 * time.Second)
	defer stopBeat()

	// Intake: the same path as examples/doctor (discover, prepare, check), with its words.
	prog.Printf("root %s (%s); target %s; %s", p.Root, p.Reason, p.Target, p.Lang)
	prog.Phase("preparing the project (dependencies, staging)", 0)
	prep, err := sandbox.Prepare(ctx, p, sandbox.PrepareOptions{Python: c.python, Env: c.env})
	if err != nil {
		return sandbox.ProjectError(p.Root, err)
	}
	defer prep.Close()
	for _, s := range prep.Steps {
		prog.Printf("prepared: %s", s)
	}
	root := prep.Root
	// The clean runs' limit: -timeout, or a ceiling a slow suite fits under (the limits of
	// the corrupted runs are derived from what the clean runs took).
	clean := sandbox.CleanLimits(c.timeout).Clean
	runner := sandbox.NewLocal(sandbox.Options{Env: append(append([]string(nil), prep.Env...), c.env...), Python: prep.Python,
		Limits: task.Limits{Timeout: clean}})
	defer runner.Close()
	// The clean runs go through the result cache too (each its own repeat, see
	// sandbox.Baseline): a run started again reuses them, so its flaky set and time limits,
	// and therefore its tasks, are the first start's.
	cached := sandbox.NewCache(runner, sandbox.CacheOptions{Dir: c.cacheDir})
	if c.cacheDir != "" {
		prog.Printf("result cache %s (-cache off for none)", c.cacheDir)
	}
	prog.Phase("checking readiness: collecting the tests and running the clean tests twice (flaky tests are excluded)", 0)
	rd, err := sandbox.Check(ctx, cached, prep, sandbox.CheckOptions{Runs: 2, Limits: task.Limits{Timeout: clean}, NoVet: !c.vet, AllowFailing: c.allowFailing})
	if err != nil {
		return err
	}
	if !rd.Ready {
		return rd.Err()
	}
	for _, f := range rd.Findings {
		prog.Printf("%s: %s (%s)", f.Severity, f.What, f.Fix)
	}
	base := rd.Result
	if slow := timedOutTests(base.Reports); len(slow) > 0 {
		return fmt.Errorf("%d test(s) did not finish within the clean runs' limit %v (e.g. %s): the test suite is slower than that; raise -timeout or pick a faster repository", len(slow), clean, slow[0])
	}
	for _, n := range runner.Notes() {
		prog.Printf("note: %s", n)
	}
	if len(c.flaky) > 0 {
		known := map[string]bool{}
		for _, ids := range [][]string{base.Passing, base.Failing, base.Flaky} {
			for _, id := range ids {
				known[id] = true
			}
		}
		for _, id := range c.flaky {
			if !known[id] {
				return fmt.Errorf("-flaky: the clean runs have no test %q (ids as the records write them, e.g. %q)", id, firstOf(base.Passing))
			}
		}
		base.Flaky = uniqueSorted(append(append([]string(nil), base.Flaky...), c.flaky...))
		base.Passing = without(base.Passing, c.flaky)
		base.Failing = without(base.Failing, c.flaky)
	}
	prog.Printf("baseline: %d passing, %d failing, %d flaky tests", len(base.Passing), len(base.Failing), len(base.Flaky))

	front := callgraph.Language(golang.New(golang.Options{}))
	if p.Lang == repo.Python {
		front = python.New(python.Options{})
	}
	analysed := p.Root
	if root != p.Root {
		analysed = strings.Join(p.Include, ", ") + " (staged from " + p.Root + ")"
	}
	prog.Phase(fmt.Sprintf("building the %s call graph of %s", p.Lang, analysed), 0)
	g, err := callgraph.Build(ctx, root, []callgraph.Language{front}, callgraph.BuildOptions{SkipTests: true})
	if err != nil {
		return err
	}
	cent, err := g.Centrality(ctx, callgraph.CentralityOptions{})
	if err != nil {
		return err
	}
	st := g.Stats()
	prog.Printf("call graph: %d files, %d functions, %d call sites (%d resolved), %d edges",
		st.Files, st.Functions, st.Calls, st.Resolved, len(g.Edges()))
	printTop(stderr, g, cent, c.top, p)

	sharder := newSharder(c.shard, cached)
	req := prep.Request()
	// A corrupted run gets twice the clean run's time plus 10 s (at most 10 minutes and
	// -timeout): a corruption that hangs is rejected at that limit instead of the
	// repository's. It runs without vet (a vet finding of the corruption must not hide the
	// test verdicts). One that hits it runs once more at the retry limit (see -timeout).
	lim := sandbox.DeriveLimits(base.Wall, c.timeout)
	req.Limits.Timeout = lim.Run
	retry := lim.Retry
	prog.Printf("time limits: clean runs %v, corrupted runs %v, their retry %v", clean, req.Limits.Timeout.Round(time.Second), retry.Round(time.Second))

	// Test-impact validation: which tests run which functions, recorded once for this state.
	var impact *corrupt.Impact
	if c.impact == "on" || (c.impact == "auto" && p.Lang == repo.Python) {
		prog.Phase("recording which tests run which functions (-impact off skips this)", 0)
		// One run per test file (Python) or package (Go): on a large suite this phase takes
		// minutes, so each finished run is a step of the progress.
		im, st, err := testimpact.Record(ctx, cached, req, base.Passing, testimpact.Options{
			Jobs: c.jobs, Limits: task.Limits{Timeout: clean},
			Progress: func(done, total int) { prog.SetTotal(total); prog.Step(done, "") },
		})
		if err != nil {
			return err
		}
		prog.Printf("impact: %d test group(s) recorded in %d run(s) (%d failed: their tests run with every candidate)", len(im.Groups), st.Runs, st.Failed)
		impact = im
	}

	reasons := corrupt.Reasons{}
	tried := 0
	var candidates []int // the position of each accepted candidate in the global order
	foreign := 0         // accepted candidates of another shard (none, or the partition leaked)
	what := fmt.Sprintf("validating %s corruptions", mode)
	if c.shard.On() {
		what += fmt.Sprintf(" of shard %s (the others' candidates are passed over)", c.shard.String())
	}
	prog.Phase(what, c.n)
	sel := corrupt.SelectOptions{Hard: c.hard}
	if p.Target != "." {
		// The whole project is analysed and tested; only what the user pointed at is corrupted.
		sel.IsTest = func(path string) bool { return callgraph.IsTestPath(path) || !p.InTarget(path) }
	}
	opts := corrupt.Options{
		Mode: mode, N: c.n, Seed: c.seed, Run: req, MinFailures: c.minFailures, Jobs: c.jobs, Select: sel,
		AllowFailingBaseline: c.allowFailing, SkipAlone: !c.alone,
		// A corrupted run that hits the short limit runs once more with the retry limit: under
		// load a slow run is not a hang, and the tasks kept must not depend on the load.
		RetryTimeout: retry,
		Progress: func(pr corrupt.Progress) {
			owned := c.shard.Owns(unitKey(pr.Functions))
			if pr.Kept {
				candidates = append(candidates, pr.Tried-1)
				if !owned {
					foreign++
				}
			}
			if !owned {
				return
			}
			tried++
			verdict := "kept"
			if !pr.Kept {
				verdict = "rejected: " + pr.Reason
				reasons.Add(pr.Reason)
			}
			prog.Step(pr.Accepted, fmt.Sprintf("%d of %d candidates tried; %s: %s", pr.Tried, pr.Units, strings.Join(pr.Functions, ", "), verdict))
		},
	}
	if c.multi > 1 {
		opts.Group = corrupt.GroupOptions{K: c.multi, Distance: c.distance, Undirected: c.undirected}
	}
	opts.Impact = impact
	if c.shard.On() {
		if opts.Checkers, err = sharder.checkers(root); err != nil {
			return err
		}
	}
	results, err := corrupt.Generate(ctx, root, g, cent, sharder, corrupt.Baseline{Passing: base.Passing, Failing: base.Failing, Flaky: base.Flaky}, opts)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if foreign > 0 {
		// The sharder could not tell which functions a run corrupted: the merge would not be
		// exact, so nothing is written.
		return fmt.Errorf("shard %s validated %d candidate(s) of other shards; nothing written (a bug: please report it)", c.shard.String(), foreign)
	}
	if c.shard.On() && errors.Is(err, corrupt.ErrNoCandidates) && tried > 0 {
		// A shard whose part holds no passing candidate writes an empty file for -merge.
		results, err = nil, nil
	}
	if errors.Is(err, corrupt.ErrNoCandidates) && tried > 0 {
		return fmt.Errorf("0 of %d %s task(s): candidates exhausted after %d tried (%s); nothing written", c.n, mode, tried, reasons.String())
	}
	if err != nil {
		return err
	}

	prov := provenance(ctx, c, prog)
	problems := make([]task.BreakpointProblem, len(results))
	for i, r := range results {
		problems[i] = r.Problem(prov.name, prov.commit)
		problems[i].Extra = map[string]json.RawMessage{"provenance": prov.raw}
		if c.shard.On() {
			raw, _ := json.Marshal(shardInfo{Shard: c.shard.String(), Candidate: candidates[i], Wanted: c.n})
			problems[i].Extra[shardMember] = raw
		}
	}
	var insts []*task.SWEInstance
	var mirror *mirrorOut
	if c.swe != "" {
		prog.Phase("writing the task states into the mirror "+c.mirror, 0)
		if mirror, err = writeMirror(ctx, c, root, prov, problems, results); err != nil {
			return err
		}
		defer mirror.abort()
		if insts, err = instances(c, prov, problems, mirror.m); err != nil {
			return err
		}
	}
	if err := writeOutputs(c, stdout, problems, insts); err != nil {
		return err
	}
	if mirror != nil {
		if err := mirror.commit(); err != nil {
			return err
		}
	}
	stats := cached.Stats()
	what = fmt.Sprintf("%d of %d %s task(s)", len(problems), c.n, mode)
	if c.shard.On() {
		what += " of shard " + c.shard.String()
	}
	short := len(problems) < c.n
	if short {
		what += fmt.Sprintf(": candidates exhausted after %d tried", tried)
		if len(reasons) > 0 {
			what += " (" + reasons.String() + ")"
		}
	} else {
		what += fmt.Sprintf(" after %d candidates tried", tried)
	}
	written := c.out
	if c.swe != "" {
		written += ", " + c.swe + " and the mirror " + c.mirror
	}
	prog.Printf("%s; written to %s (%d test runs, %d cache hits)", what, written, stats.Runs, stats.CacheHits)
	for i, p := range problems {
		var fns []string
		for _, f := range p.Functions {
			fns = append(fns, f.Path+"::"+f.Name)
		}
		line := fmt.Sprintf("  %s  %-22s %2d failing", p.ID, p.Rule, len(p.FailToPass))
		if n := len(results[i].Validation.NotRun); n > 0 {
			line += fmt.Sprintf(", %d without a verdict", n)
		}
		fmt.Fprintf(stderr, "%s  %s\n", line, strings.Join(fns, ", "))
		// Why the first few got no verdict (an observation of this run: the record lists
		// them in not_run without it).
		v := results[i].Validation
		for j, id := range v.NotRun {
			if j == shownNotRun {
				fmt.Fprintf(stderr, "      … and %d more without a verdict\n", len(v.NotRun)-j)
				break
			}
			why := ""
			if j < len(v.NotRunWhy) {
				why = ": " + v.NotRunWhy[j]
			}
			fmt.Fprintf(stderr, "      no verdict: %s%s\n", id, why)
		}
	}
	if short && !c.shard.On() {
		// What was found is written, but fewer tasks than asked is not success (a shard's
		// part may hold fewer: -merge says whether the shards together made enough).
		return errors.New(what)
	}
	return nil
}

// source is where the tasks come from, as the records name it.
type source struct {
	name, commit, subdir string
	raw                  json.RawMessage // the records' "provenance" member
}

// provenance finds the records' repository name and commit (repo.Git on the project root)
// and builds the "provenance" member: the commit and the root's subdirectory in its work
// tree, whether the tree was dirty, the directory given (relative to the root), the project
// files included, the seed and the tool version. A directory outside git has no commit: a
// warning says so.
func provenance(ctx context.Context, c config, prog *cli.Progress) source {
	p := c.project
	s := source{name: c.name, commit: c.commit}
	g, err := repo.Git(ctx, p.Root)
	switch {
	case err != nil && c.commit == "":
		prog.Printf("warning: %s is not a git checkout: the records carry no commit (pass -commit to name one)", p.Root)
	case err == nil:
		if s.commit == "" {
			s.commit = g.Commit
		}
		s.subdir = g.Subdir
		if g.Dirty {
			prog.Printf("warning: %s has uncommitted changes: the records' commit %s is not exactly the tree analysed", p.Root, g.Commit)
		}
	}
	if s.name == "" {
		s.name = repo.DefaultName(g.Remote, p.GoModule(), c.root)
	}
	type prov struct {
		Commit  string   `json:"commit,omitempty"`
		Subdir  string   `json:"subdir,omitempty"`
		Dirty   bool     `json:"dirty,omitempty"`
		Remote  string   `json:"remote,omitempty"`
		Target  string   `json:"target"`
		Include []string `json:"include,omitempty"`
		Seed    uint64   `json:"seed"`
		Tool    string   `json:"tool"`
	}
	raw, _ := json.Marshal(prov{Commit: s.commit, Subdir: s.subdir, Dirty: g.Dirty, Remote: g.Remote, Target: p.Target, Include: p.Include, Seed: c.seed, Tool: cli.Version()})
	s.raw = raw
	return s
}

// mirrorOut is a mirror written for this run: into a temporary directory beside -mirror
// when the mirror is new (renamed into place by commit), or in place when it exists.
type mirrorOut struct {
	m         *repo.Mirrored
	tmp, dest string
}

func (o *mirrorOut) commit() error {
	if o.tmp == "" {
		return nil
	}
	if err := os.Rename(o.tmp, o.dest); err != nil {
		return fmt.Errorf("-mirror %s: %w", o.dest, err)
	}
	o.tmp = ""
	return nil
}

func (o *mirrorOut) abort() {
	if o.tmp != "" {
		os.RemoveAll(o.tmp)
	}
}

// mirrorName is the mirror ref name of a task: its ID with the characters git refs cannot
// hold replaced (repo.SafeName).
func mirrorName(id string) string { return repo.SafeName(id) }

// writeMirror writes the analysed tree (root, the copy runs use) and each task's corrupted
// state into the mirror (repo.WriteMirror), with messages that name no temporary path, so
// the commit ids depend only on the inputs.
func writeMirror(ctx context.Context, c config, root string, src source, problems []task.BreakpointProblem, results []corrupt.Result) (*mirrorOut, error) {
	out := &mirrorOut{dest: c.mirror}
	dir := c.mirror
	if _, err := os.Stat(filepath.Join(c.mirror, "HEAD")); err != nil {
		if err := os.MkdirAll(filepath.Dir(c.mirror), 0o755); err != nil {
			return nil, fmt.Errorf("-mirror %s: %w", c.mirror, err)
		}
		if err := os.RemoveAll(c.mirror); err != nil { // an empty directory (checkMirror)
			return nil, fmt.Errorf("-mirror %s: %w", c.mirror, err)
		}
		tmp, err := os.MkdirTemp(filepath.Dir(c.mirror), "."+filepath.Base(c.mirror)+".tmp-*")
		if err != nil {
			return nil, fmt.Errorf("-mirror %s: %w", c.mirror, err)
		}
		out.tmp, dir = tmp, tmp
	}
	tasks := make([]repo.MirrorTask, len(problems))
	for i, p := range problems {
		tasks[i] = repo.MirrorTask{Name: mirrorName(p.ID), Changes: results[i].Overlay, Message: "task " + p.ID + "\n\n" + p.ProblemStatement}
	}
	msg := "base: " + src.name
	if src.commit != "" {
		msg += " at " + src.commit
		if src.subdir != "" && src.subdir != "." {
			msg += " (" + src.subdir + ")"
		}
	}
	m, err := repo.WriteMirror(ctx, dir, root, tasks, repo.MirrorOptions{Message: msg})
	if err != nil {
		out.abort()
		return nil, err
	}
	// A clone checks out the base branch (git init's HEAD names a branch the mirror lacks).
	if b, err := exec.CommandContext(ctx, "git", "--git-dir="+dir, "symbolic-ref", "HEAD", "refs/heads/base").CombinedOutput(); err != nil {
		out.abort()
		return nil, fmt.Errorf("-mirror %s: git symbolic-ref: %v: %s", c.mirror, err, b)
	}
	out.m = m
	return out, nil
}

// instances converts the records to SWE-bench instances: base_commit is the task's commit in
// the mirror (where the gold patch applies), environment_setup_commit the mirror's base
// commit; the user's commit and subdirectory stay in "provenance". With -swe-test-ids bare,
// Go ids become bare test names and "test_packages" maps each name to its packages.
func instances(c config, src source, problems []task.BreakpointProblem, m *repo.Mirrored) ([]*task.SWEInstance, error) {
	var out []*task.SWEInstance
	for _, p := range problems {
		s, err := p.ToSWE()
		if err != nil {
			return nil, err
		}
		name := mirrorName(p.ID)
		s.BaseCommit, s.EnvironmentSetupCommit = m.Tasks[name], m.Base
		s.Extra["provenance"] = src.raw
		ref, _ := json.Marshal("task/" + name)
		s.Extra["mirror_ref"] = ref
		if c.sweIDs == "bare" && c.project.Lang == repo.Go {
			if err := s.BareGoTestIDs(); err != nil {
				return nil, err
			}
		}
		if err := s.Validate(); err != nil {
			return nil, fmt.Errorf("instance %s: %w", s.InstanceID, err)
		}
		out = append(out, s)
	}
	return out, nil
}

// writeOutputs writes the records to -out and the instances to -swe (when set), each whole
// or not at all.
func writeOutputs(c config, stdout io.Writer, problems []task.BreakpointProblem, insts []*task.SWEInstance) error {
	out, err := cli.Create(c.out, stdout)
	if err != nil {
		return err
	}
	defer out.Abort()
	if err := task.WriteJSONL(out, problems); err != nil {
		return err
	}
	if c.swe == "" {
		return out.Commit()
	}
	swe, err := cli.Create(c.swe, stdout)
	if err != nil {
		return err
	}
	defer swe.Abort()
	if err := writeInstances(swe, insts, c.sweLists); err != nil {
		return err
	}
	if err := out.Commit(); err != nil {
		return err
	}
	return swe.Commit()
}

// writeInstances writes insts as JSONL, with the test lists as JSON arrays (lists "json") or
// as the Hugging Face dataset's JSON-encoded strings (lists "string").
func writeInstances(w io.Writer, insts []*task.SWEInstance, lists string) error {
	if lists != "string" {
		return task.WriteJSONL(w, insts)
	}
	ds := make([]task.DatasetInstance, len(insts))
	for i, in := range insts {
		ds[i] = in.AsDataset()
	}
	return task.WriteJSONL(w, ds)
}

// printTop lists the top functions of the directory given (p.Target) by harmonic centrality.
func printTop(w io.Writer, g *callgraph.Graph, c *callgraph.Centrality, top int, p *repo.Project) {
	if top <= 0 {
		return
	}
	idx := c.Ranked(callgraph.ScoreHarmonic, top, func(i int) bool {
		n := g.Node(i)
		return !n.IsModule() && n.Kind != task.KindClass && p.InTarget(n.File)
	})
	of := ""
	if p.Target != "." {
		// The graph is the whole project's; the functions listed are those of the directory
		// given, the only ones corrupted.
		of = " of " + p.Target
	}
	fmt.Fprintf(w, "\ntop %d functions%s by harmonic centrality:\n", len(idx), of)
	fmt.Fprintf(w, "  %-8s %-8s %-11s %-4s %-4s %s\n", "harmonic", "pagerank", "betweenness", "in", "out", "function")
	for _, i := range idx {
		n := g.Node(i)
		fmt.Fprintf(w, "  %-8.4f %-8.4f %-11.1f %-4d %-4d %s (%d code lines)\n", c.Harmonic[i], c.PageRank[i], c.Betweenness[i], c.InDegree[i], c.OutDegree[i], n.ID, n.Metrics.CodeLines)
	}
	fmt.Fprintln(w)
}

// timedOutTests lists the tests that timed out in any baseline run, sorted.
func timedOutTests(reports []*task.Report) []string {
	seen := map[string]bool{}
	for _, r := range reports {
		for _, t := range r.Tests {
			if t.Outcome == task.Timeout {
				seen[t.ID] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for id := range seen {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// firstOf returns ids[0], or "" when there is none.
func firstOf(ids []string) string {
	if len(ids) == 0 {
		return ""
	}
	return ids[0]
}

// uniqueSorted sorts ids and drops repeats.
func uniqueSorted(ids []string) []string {
	sort.Strings(ids)
	return slices.Compact(ids)
}

// without returns ids less those in drop.
func without(ids, drop []string) []string {
	var out []string
	for _, id := range ids {
		if !slices.Contains(drop, id) {
			out = append(out, id)
		}
	}
	return out
}
