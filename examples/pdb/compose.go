package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/faultline-dev/faultline/compose"
	"github.com/faultline-dev/faultline/internal/cli"
	"github.com/faultline-dev/faultline/sandbox"
	"github.com/faultline-dev/faultline/task"
)

// composeFlags are compose's flags.
type composeFlags struct {
	program, tests, out, format string
	programName, taskID         string
	taskPrompt, sourceModel     string
	opts                        compose.Options
	sb                          sandboxFlags
	cache                       cli.CacheFlag
	shard                       cli.Shard
	merge                       bool
	mergeFiles                  []string
	pick                        []int // -merge: the candidates of the shards' first -m1 bugs
}

func parseComposeFlags(args []string, stderr io.Writer) (composeFlags, string, error) {
	var f composeFlags
	fs := newFlagSet("compose", "compose -program FILE -tests CMD [flags]", stderr)
	fs.StringVar(&f.program, "program", "", "the correct program (its tests must pass)")
	fs.StringVar(&f.tests, "tests", "", "test command (/bin/sh -c) run on every candidate program; exit 0 = passes; {program} {dir} {task_id} {python} are substituted")
	fs.StringVar(&f.programName, "program-name", "", "path of the program inside the run's tree (default: the base name of -program)")
	fs.StringVar(&f.taskID, "task-id", "", "task id; example ids are ID/k<k>/<n> (default: the program's base name without extension)")
	fs.StringVar(&f.taskPrompt, "task-prompt", "", "the examples' task_prompt, the problem statement a debugger gets (default: \"Fix the bugs in NAME.\")")
	fs.StringVar(&f.sourceModel, "source-model", "", "the examples' source_model (default: faultline/ and the bug source, e.g. faultline/rule)")
	fs.IntVar(&f.opts.KMax, "k-max", 4, "largest number of bugs per program (default 3 with -multi, the release's values)")
	fs.IntVar(&f.opts.M1, "m1", 20, "validated single bugs to collect")
	fs.IntVar(&f.opts.M2, "m2", 20, "composition attempts per bug count (the paper's PDB-Single used 100)")
	fs.IntVar(&f.opts.M3, "m3", 5, "programs kept per bug count")
	fs.IntVar(&f.opts.Stride, "stride", 2, "minimum stride between bugs (default 4 with -multi, the release's values; the paper states 3 and 5)")
	fs.IntVar(&f.opts.MaxLines, "max-lines", 0, "largest bug block (default 1, or 4 with -multi)")
	fs.IntVar(&f.opts.Frozen, "frozen", 0, "leading starter-code lines bugs must not touch")
	fs.BoolVar(&f.opts.Multi, "multi", false, "multi-line bugs (PDB-Wild)")
	fs.BoolVar(&f.opts.Independence, "independent", false, "re-test compositions for independence")
	fs.Uint64Var(&f.opts.Seed, "seed", 1, "random seed: the same inputs and seed give byte-identical output")
	fs.StringVar(&f.out, "out", "-", "output file, - for stdout")
	fs.StringVar(&f.format, "format", "jsonl", "jsonl (one record per line) or json (an array, like the release's files)")
	addSandboxFlags(fs, &f.sb)
	// compose derives its time limits from the correct program's run unless -timeout is
	// given, as breakpoint does (sandbox.DeriveLimits).
	f.sb.timeout, f.sb.derive = 0, true
	tf := fs.Lookup("timeout")
	tf.DefValue = "0s"
	tf.Usage = "time limit of one run; 0 derives it from the correct program's run: that run gets up to 30m, a mutant's run 2× its time + 10 s (at most 10m) and, when it hits that, " +
		"once more at 4× + 1m (at most 30m). A positive value bounds every limit above. A run stopped at its limit is a failing verdict (timeout)"
	fs.Lookup("cache").Usage = "`DIR` of the on-disk result cache, so an interrupted run resumes without re-running what it validated (default: $XDG_CACHE_HOME/faultline/results; the word off: no directory, results kept in memory for this run only)"
	fs.Var(&f.shard, "shard", "validate only part `i/n` of the bug candidates (0 ≤ i < n) and write their bugs for -merge")
	fs.BoolVar(&f.merge, "merge", false, "compose from the bugs of the shards' files (the arguments after the flags, which are the shards' flags), writing the unsharded run's output")
	if err := parseComposeArgs(fs, args, &f); err != nil {
		return f, "", err
	}
	if err := checkOut(f.out); err != nil {
		return f, "", err
	}
	set := explicit(fs)
	// -cache: compose keeps its runs in the on-disk result cache unless -cache off (the
	// rule of every program that validates candidates, cli.CacheFlag).
	f.cache.Value = f.sb.cacheDir
	dir, err := f.cache.Dir()
	if err != nil {
		return f, "", usageError{err} // cli.CacheFlag's errors name the flag
	}
	f.sb.cacheDir = dir
	if f.opts.Multi {
		// The release's multi-line values, unless given.
		if !set["k-max"] {
			f.opts.KMax = 3
		}
		if !set["stride"] {
			f.opts.Stride = 4
		}
		if !set["max-lines"] {
			f.opts.MaxLines = 4
		}
	} else if !set["max-lines"] {
		f.opts.MaxLines = 1
	}
	if err := checkInput("program", f.program, true); err != nil {
		return f, "", err
	}
	data, err := os.ReadFile(f.program)
	if err != nil {
		return f, "", flagErr("program", "%v", err)
	}
	if strings.TrimSpace(string(data)) == "" {
		return f, "", flagErr("program", "%s is empty", f.program)
	}
	if strings.TrimSpace(f.tests) == "" {
		return f, "", flagErr("tests", "is required")
	}
	for _, c := range []struct {
		name string
		v    int
		min  int
	}{
		{"k-max", f.opts.KMax, 1}, {"m1", f.opts.M1, 1}, {"m2", f.opts.M2, 1}, {"m3", f.opts.M3, 1},
		{"stride", f.opts.Stride, 1}, {"frozen", f.opts.Frozen, 0},
	} {
		if c.v < c.min {
			return f, "", flagErr(c.name, "must be at least %d, got %d", c.min, c.v)
		}
	}
	if set["max-lines"] && f.opts.MaxLines < 1 {
		return f, "", flagErr("max-lines", "must be at least 1, got %d", f.opts.MaxLines)
	}
	if f.format != "jsonl" && f.format != "json" {
		return f, "", flagErr("format", "want jsonl or json, got %q", f.format)
	}
	if f.shard.On() && set["format"] {
		return f, "", flagErr("format", "a shard writes JSONL records for -merge; give -format to the merge")
	}
	if set["task-id"] && strings.TrimSpace(f.taskID) == "" {
		return f, "", flagErr("task-id", "must not be empty")
	}
	if f.programName == "" {
		f.programName = filepath.Base(f.program)
	}
	if f.programName, err = checkProgramName("program-name", f.programName); err != nil {
		return f, "", err
	}
	if f.taskID == "" {
		f.taskID = strings.TrimSuffix(filepath.Base(f.program), filepath.Ext(f.program))
	}
	if f.taskPrompt == "" {
		f.taskPrompt = "Fix the bugs in " + path.Base(f.programName) + "."
	}
	if f.merge {
		if f.pick, err = readShards(f.mergeFiles, f, string(data)); err != nil {
			return f, "", err
		}
	}
	return f, string(data), checkSandboxFlags(&f.sb)
}

func composeCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, program, err := parseComposeFlags(args, stderr)
	if err != nil {
		return err
	}
	ss, err := openSession("pdb compose", f.out, stdout, stderr, f.sb, f.tests, f.programName)
	if err != nil {
		return err
	}
	defer ss.close()
	// The correct program runs once under the clean limit; its time sets the mutants' limits
	// (a run answered by the result cache keeps the time it was made in, so a resumed run
	// derives the same limits). A failing or hanging correct program is refused below, by
	// compose.Generate, at the same verdict.
	lim := sandbox.CleanLimits(f.sb.timeout)
	ss.cfg.timeout, ss.cfg.retry = lim.Clean, 0
	_, wall, err := ss.oracle(f.taskID).verdictAt(ctx, program, lim.Clean)
	if err != nil {
		return err
	}
	lim = sandbox.DeriveLimits(wall, f.sb.timeout)
	ss.cfg.timeout, ss.cfg.retry = lim.Run, lim.Retry
	fmt.Fprintf(stderr, "pdb compose: time limits: the correct program's run %v, a mutant's run %v, its retry %v\n",
		lim.Clean, lim.Run.Round(time.Second), lim.Retry.Round(time.Second))
	out, o := ss.out, ss.oracle(f.taskID)
	prog := newProgress(stderr, "pdb compose")
	opts := f.opts
	opts.TaskID, opts.TaskPrompt, opts.SourceModel, opts.Jobs = f.taskID, f.taskPrompt, f.sourceModel, f.sb.jobs
	if f.shard.On() || f.merge {
		// compose.Options' documented default source, split or picked from.
		opts.Source = shardSource{inner: compose.Rules{MaxSpan: opts.MaxLines}, shard: f.shard, pick: f.pick}
	}
	if f.shard.On() {
		opts.KMax = 1 // a shard only validates: the merge composes
	}
	opts.Progress = func(phase string, done, total int) {
		unit := "attempts"
		if phase == "validate" {
			unit = "candidates (stops at -m1 bugs)"
		}
		prog.update(phase, done, total, unit)
	}
	res, err := compose.Generate(ctx, program, o, opts)
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if errors.Is(err, compose.ErrTestsIgnoreProgram) {
		return fmt.Errorf("%w: the -tests command passed with the program written as an empty file at %s in the run's tree; "+
			"make it run the program it is given ({program} or {dir}), e.g. put {dir} first on PYTHONPATH instead of importing an installed copy", err, f.programName)
	}
	if err != nil {
		return err
	}
	if f.shard.On() {
		fmt.Fprintf(stderr, "pdb compose: shard %s: %d bugs validated (at most -m1 %d) from %d of its candidates\n", f.shard.String(), len(res.Pool), f.opts.M1, res.Stats.Candidates)
		if err := writeShard(out, f, program, res); err != nil {
			return fmt.Errorf("writing the output: %w", err)
		}
		if err := out.Commit(); err != nil {
			return fmt.Errorf("-out: %w", err)
		}
		return nil
	}
	recs := make([]task.PDBExample, 0, len(res.Examples))
	for _, ex := range res.Examples {
		p, err := ex.PDB()
		if err != nil {
			return err
		}
		recs = append(recs, p)
	}
	report(stderr, f, res)
	if c, ok := ss.rs.runner.(*sandbox.Cache); ok {
		st := c.Stats()
		fmt.Fprintf(stderr, "pdb compose: %d test runs, %d cache hits\n", st.Runs, st.CacheHits)
	}
	if len(recs) == 0 {
		return fmt.Errorf("no example produced (see above); nothing written")
	}
	if f.format == "json" {
		enc := json.NewEncoder(out)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		err = enc.Encode(recs)
	} else {
		err = task.WriteJSONL(out, recs)
	}
	if err != nil {
		return fmt.Errorf("writing the output: %w", err)
	}
	if err := out.Commit(); err != nil {
		return fmt.Errorf("-out: %w", err)
	}
	return nil
}

// report says on stderr what was produced against what was asked, and why a bug count
// fell short.
func report(w io.Writer, f composeFlags, res *compose.Result) {
	st := res.Stats
	var rej []string
	for k, n := range st.Rejected {
		rej = append(rej, fmt.Sprintf("%s %d", k, n))
	}
	sort.Strings(rej)
	tried := st.Accepted
	for _, n := range st.Rejected {
		tried += n
	}
	rejected := "none"
	if len(rej) > 0 {
		rejected = strings.Join(rej, ", ")
	}
	fmt.Fprintf(w, "pdb compose: %d of %d bugs validated from %d candidates tried (of %d); rejected: %s; %d oracle calls\n",
		len(res.Pool), f.opts.M1, tried, st.Candidates, rejected, st.OracleCalls)
	perK := map[int]int{}
	for _, ex := range res.Examples {
		perK[ex.BugCount]++
	}
	kmax := f.opts.KMax
	total := 0
	for k := 1; k <= kmax; k++ {
		got := perK[k]
		total += got
		why := ""
		switch {
		case got >= f.opts.M3:
		case k == 1 && len(res.Pool) >= f.opts.M1 && tried < st.Candidates:
			why = fmt.Sprintf(": -m1 is %d, so no more bugs were validated (raise -m1)", f.opts.M1)
		case k == 1:
			why = fmt.Sprintf(": only %d bugs validated (candidates exhausted)", len(res.Pool))
		case len(res.Pool) < k:
			why = fmt.Sprintf(": the pool has %d bugs", len(res.Pool))
		default:
			why = fmt.Sprintf(": %d distinct compositions met the stride in %d attempts", st.Composed[k], st.Attempts[k])
		}
		fmt.Fprintf(w, "pdb compose:   k=%d: %d of %d examples%s\n", k, got, f.opts.M3, why)
	}
	fmt.Fprintf(w, "pdb compose: %d examples of %d asked\n", total, kmax*f.opts.M3)
}
