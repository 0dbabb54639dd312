package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/faultline-dev/faultline/metrics"
	"github.com/faultline-dev/faultline/task"
)

// scoreTask is one task to score: the example, its prediction and where both were read.
type scoreTask struct {
	line int
	ex   task.PDBExample
	pred prediction
}

// scoreFlags are score's flags.
type scoreFlags struct {
	in, pred, out string
	mode          metrics.Mode
	epsilon       int // metrics.Options.Epsilon
	stride        int
	skipInvalid   bool
	cmd           string
	programName   string
	sb            sandboxFlags
}

func parseScoreFlags(args []string, stderr io.Writer) (scoreFlags, error) {
	var f scoreFlags
	fs := newFlagSet("score", "score -in EXAMPLES [-pred PREDICTIONS] -oracle-cmd CMD [flags]", stderr)
	fs.StringVar(&f.in, "in", "", "PDB examples: a JSON array (the release's files) or JSON Lines")
	fs.StringVar(&f.pred, "pred", "", "predictions: records with task_id and solution, or the release's debug-result records; default: each example's debug_results")
	fs.StringVar(&f.out, "out", "-", "output file of the per-task records and the summary (JSON Lines), - for stdout")
	modeName := fs.String("mode", "paper", "paper (the paper's definitions) or reference (the released evaluator, bit for bit)")
	eps := fs.String("epsilon", "auto", "tolerance ε (the release's --tolerance): auto (2 for single-line ground truths, 1 otherwise) or a number ≥ 0")
	fs.IntVar(&f.stride, "stride", 0, "if > 0, reject ground truths whose consecutive blocks start fewer than this many lines after the previous one ends")
	fs.BoolVar(&f.skipInvalid, "skip-invalid", false, "skip (with a warning) examples that parse but do not validate, as the release's evaluator does, instead of refusing the input")
	fs.StringVar(&f.cmd, "oracle-cmd", "", "test command (/bin/sh -c) run on every candidate program; exit 0 = passes; {program} {dir} {task_id} {python} are substituted")
	fs.StringVar(&f.programName, "program-name", "program.py", "path of the program inside the run's tree")
	addSandboxFlags(fs, &f.sb)
	if err := parseFlags(fs, args); err != nil {
		return f, err
	}
	if err := checkOut(f.out); err != nil {
		return f, err
	}
	if err := checkInput("in", f.in, true); err != nil {
		return f, err
	}
	if err := checkInput("pred", f.pred, false); err != nil {
		return f, err
	}
	if strings.TrimSpace(f.cmd) == "" {
		return f, flagErr("oracle-cmd", "is required")
	}
	m, err := metrics.ParseMode(*modeName)
	if err != nil {
		return f, flagErr("mode", "want paper or reference, got %q", *modeName)
	}
	f.mode = m
	switch e := strings.TrimSpace(*eps); e {
	case "auto":
		f.epsilon = 0
	default:
		n, err := strconv.Atoi(e)
		if err != nil || n < 0 {
			return f, flagErr("epsilon", "want auto or a number ≥ 0, got %q", *eps)
		}
		f.epsilon = n
		if n == 0 {
			f.epsilon = metrics.NoTolerance
		}
	}
	if f.stride < 0 {
		return f, flagErr("stride", "must be ≥ 0, got %d", f.stride)
	}
	if f.programName, err = checkProgramName("program-name", f.programName); err != nil {
		return f, err
	}
	return f, checkSandboxFlags(&f.sb)
}

// loadTasks reads and checks -in and -pred. Every problem is reported with its file and
// line; with skipInvalid, examples that parse but do not validate are skipped (returned
// as warnings) instead.
func loadTasks(f scoreFlags) (tasks []scoreTask, warnings []string, skipped int, err error) {
	recs, err := readRaw(f.in)
	if err != nil {
		return nil, nil, 0, err
	}
	var bad inputErrors
	seen := map[string]int{}
	var withPred []bool
	for _, r := range recs {
		id, err := taskIDOf(r.raw)
		if err != nil {
			bad.add(f.in, r.line, "%v", err)
			continue
		}
		if id == "" {
			bad.add(f.in, r.line, "no task_id")
			continue
		}
		if first, dup := seen[id]; dup {
			bad.add(f.in, r.line, "task_id %q repeats line %d", id, first)
			continue
		}
		seen[id] = r.line
		var ex task.PDBExample
		if err := json.Unmarshal(r.raw, &ex); err != nil {
			bad.add(f.in, r.line, "%s", strings.TrimPrefix(err.Error(), "task: "))
			continue
		}
		ex.TaskID = id
		p, found, err := predictionOf(r.raw)
		if err != nil {
			bad.add(f.in, r.line, "%v", err)
			continue
		}
		p.path, p.line = f.in, r.line
		if verr := checkExample(&ex, f.stride); verr != nil {
			if f.skipInvalid {
				warnings = append(warnings, fmt.Sprintf("%s:%d: skipped task %s: %v", f.in, r.line, id, verr))
				skipped++
				continue
			}
			bad.add(f.in, r.line, "task %s: %v", id, verr)
			continue
		}
		tasks = append(tasks, scoreTask{line: r.line, ex: ex, pred: p})
		withPred = append(withPred, found)
	}
	if f.pred != "" {
		preds, w := loadPredictions(f.pred, seen, &bad)
		warnings = append(warnings, w...)
		for i := range tasks {
			if preds == nil { // the file could not be read: its error says so, and no task is missing one
				break
			}
			p, ok := preds[tasks[i].ex.TaskID]
			if !ok {
				bad.add(f.in, tasks[i].line, "task %s has no prediction in %s", tasks[i].ex.TaskID, f.pred)
				continue
			}
			tasks[i].pred = p
		}
	} else {
		for i := range tasks {
			if !withPred[i] {
				bad.add(f.in, tasks[i].line, "task %s has no prediction (no debug_results.solution, and no -pred)", tasks[i].ex.TaskID)
			}
		}
	}
	if err := bad.err(); err != nil {
		return nil, warnings, skipped, err
	}
	// The release's records carry the diff the debugger's solution makes; we score the
	// solution, so say when the two disagree.
	for _, t := range tasks {
		if t.pred.hasDiff && !sameEdits(t.pred.predDiff, task.DiffLines(t.ex.BuggyCode, t.pred.solution).Clean()) {
			warnings = append(warnings, fmt.Sprintf("%s:%d: task %s: pred_diff differs from the diff of the solution; the solution is scored", t.pred.path, t.pred.line, t.ex.TaskID))
		}
	}
	return tasks, warnings, skipped, nil
}

func sameEdits(a, b task.Edits) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.Line != y.Line || x.Tie != y.Tie || x.Type != y.Type ||
			task.Normalize(x.Original) != task.Normalize(y.Original) || task.Normalize(x.Modified) != task.Normalize(y.Modified) {
			return false
		}
	}
	return true
}

// checkExample validates an example as the scorer needs it: buggy code; a ground truth
// (gt_diff, or derived from gt_solution as the release does when gt_diff is absent) that
// applies to the buggy code, gives gt_solution when there is one and has bug_count blocks;
// with stride > 0, blocks at least stride lines apart.
func checkExample(ex *task.PDBExample, stride int) error {
	if ex.BuggyCode == "" {
		return errors.New("field buggy_code: empty or missing")
	}
	if ex.GTDiff == nil {
		if ex.GTSolution == "" {
			return errors.New("neither gt_diff nor gt_solution")
		}
		ex.GTDiff = task.DiffLines(ex.BuggyCode, ex.GTSolution).Clean()
	}
	if len(ex.GTDiff) == 0 {
		return errors.New("field gt_diff: no edits")
	}
	if ex.GTSolution != "" {
		if err := ex.Validate(); err != nil {
			return errors.New(strings.TrimPrefix(err.Error(), "task: "))
		}
	} else {
		if _, err := task.ApplyStrict(ex.BuggyCode, ex.GTDiff); err != nil {
			return fmt.Errorf("field gt_diff: %v", strings.TrimPrefix(err.Error(), "task: "))
		}
		if n := len(task.Blocks(ex.GTDiff)); ex.BugCount > 0 && n != ex.BugCount {
			return fmt.Errorf("field bug_count: is %d but gt_diff has %d edit blocks", ex.BugCount, n)
		}
	}
	if stride > 0 {
		if err := task.Verify(ex.GTDiff, -1, stride, 0, 1); err != nil {
			return fmt.Errorf("-stride %d: %v", stride, strings.TrimPrefix(err.Error(), "task: "))
		}
	}
	return nil
}

// loadPredictions reads -pred: task id → prediction, nil when the file cannot be read (the
// error is in bad). Records for tasks not in -in are reported as one warning.
func loadPredictions(path string, known map[string]int, bad *inputErrors) (map[string]prediction, []string) {
	recs, err := readRaw(path)
	if err != nil {
		bad.total++
		bad.errs = append(bad.errs, err.Error())
		return nil, nil
	}
	out := map[string]prediction{}
	lines := map[string]int{}
	var unknown []string
	for _, r := range recs {
		id, err := taskIDOf(r.raw)
		if err != nil {
			bad.add(path, r.line, "%v", err)
			continue
		}
		if id == "" {
			bad.add(path, r.line, "no task_id")
			continue
		}
		if first, dup := lines[id]; dup {
			bad.add(path, r.line, "task_id %q repeats line %d", id, first)
			continue
		}
		lines[id] = r.line
		p, found, err := predictionOf(r.raw)
		if err != nil {
			bad.add(path, r.line, "%v", err)
			continue
		}
		if !found {
			bad.add(path, r.line, "no solution (want solution, or debug_results with solution)")
			continue
		}
		p.path, p.line = path, r.line
		if _, ok := known[id]; !ok {
			unknown = append(unknown, fmt.Sprintf("%s (line %d)", id, r.line))
		}
		out[id] = p
	}
	var w []string
	if len(unknown) > 0 {
		w = append(w, fmt.Sprintf("%s: %d predictions for tasks not in the examples, ignored: %s", path, len(unknown), strings.Join(unknown[:min(len(unknown), 5)], ", ")))
	}
	return out, w
}

// summaryRecord is the last output line.
type summaryRecord struct {
	Summary struct {
		metrics.Summary
		Skipped int `json:"skipped"`
	} `json:"summary"`
}

func scoreCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseScoreFlags(args, stderr)
	if err != nil {
		return err
	}
	tasks, warnings, skipped, err := loadTasks(f)
	for _, w := range warnings {
		fmt.Fprintln(stderr, "pdb score: warning:", w)
	}
	if err != nil {
		return err
	}
	if len(tasks) == 0 {
		return fmt.Errorf("%s: no task to score", f.in)
	}
	ss, err := openSession("pdb score", f.out, stdout, stderr, f.sb, f.cmd, f.programName)
	if err != nil {
		return err
	}
	defer ss.close()
	out := ss.out

	results := make([]metrics.Result, len(tasks))
	done := make([]chan struct{}, len(tasks))
	for i := range done {
		done[i] = make(chan struct{})
	}
	cache := metrics.NewCache()
	opts := metrics.Options{Mode: f.mode, Epsilon: f.epsilon, Jobs: f.sb.jobs, Cache: cache}
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(f.sb.jobs, len(tasks)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				t := tasks[i]
				o := ss.oracle(t.ex.TaskID)
				results[i], _ = metrics.Score(ctx, metrics.Input{
					TaskID: t.ex.TaskID, Buggy: t.ex.BuggyCode, GT: t.ex.GTDiff,
					Prediction: t.pred.solution, BugCount: t.ex.BugCount,
				}, o, opts)
				close(done[i])
			}
		}()
	}
	go func() {
		defer close(work)
		for i := range tasks {
			select {
			case work <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	prog := newProgress(stderr, "pdb score")
	prog.update("", 0, len(tasks), "tasks")
	w := task.NewJSONLWriter(out)
	var writeErr error
	for i := range tasks {
		select {
		case <-done[i]:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		if writeErr == nil {
			writeErr = w.Write(results[i])
		}
		prog.update("", i+1, len(tasks), "tasks")
	}
	wg.Wait()
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if writeErr != nil {
		return fmt.Errorf("writing the output: %w", writeErr)
	}
	var sum summaryRecord
	sum.Summary.Summary = metrics.Summarize(results)
	sum.Summary.Skipped = skipped
	if err := w.Write(sum); err != nil {
		return fmt.Errorf("writing the output: %w", err)
	}
	if err := out.Commit(); err != nil {
		return fmt.Errorf("-out: %w", err)
	}
	printSummary(stderr, sum.Summary.Summary, results, tasks, f.in)
	if s := sum.Summary.Summary; s.Errors > 0 {
		return fmt.Errorf("%d of %d tasks could not be scored (see their error and the lines above)", s.Errors, s.Tasks)
	}
	return nil
}

// releaseLine is the summary line the release's evaluator prints: the means over the
// tasks (the macro aggregate).
func releaseLine(s metrics.Summary) string {
	m := s.Macro
	return fmt.Sprintf("unit=%.3f prec=%.3f rec=%.3f f1=%.3f (n=%d)", m.Unit.Mean, m.Precision.Mean, m.Recall.Mean, m.F1.Mean, m.Unit.N)
}

// printSummary writes the release's one-line summary (its average over the tasks), the
// macro and micro summaries with standard errors, and the tasks that could not be scored.
func printSummary(w io.Writer, s metrics.Summary, results []metrics.Result, tasks []scoreTask, in string) {
	m := s.Macro
	fmt.Fprintf(w, "pdb score: %s\n", releaseLine(s))
	agg := func(a metrics.Aggregate) string {
		return fmt.Sprintf("prec=%.3f±%.3f rec=%.3f±%.3f f1=%.3f±%.3f unit=%.3f±%.3f",
			a.Precision.Mean, a.Precision.SE, a.Recall.Mean, a.Recall.SE, a.F1.Mean, a.F1.SE, a.Unit.Mean, a.Unit.SE)
	}
	fmt.Fprintf(w, "pdb score: macro (mean over %d tasks ± s.e.): %s\n", m.Unit.N, agg(m))
	fmt.Fprintf(w, "pdb score: micro (mean over %d bug counts ± s.e.): %s\n", len(s.ByBugCount), agg(s.Micro))
	for _, g := range s.ByBugCount {
		fmt.Fprintf(w, "pdb score:   bug_count %d: %d tasks, %s\n", g.BugCount, g.Tasks, agg(g.Metrics))
	}
	timeouts := 0
	for _, r := range results {
		timeouts += r.OracleTimeouts
	}
	fmt.Fprintf(w, "pdb score: %d oracle calls, %d verdicts were timeouts (failing verdicts)\n", s.OracleCalls, timeouts)
	for i, r := range results {
		if r.Error != "" {
			fmt.Fprintf(w, "pdb score: task %s (%s:%d) not scored: %s\n", r.TaskID, in, tasks[i].line, r.Error)
		}
	}
}
