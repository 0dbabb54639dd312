// Command pdb generates and scores PDB (Precise Debugging Benchmark) tasks.
//
//	go run ./examples/pdb score -in EXAMPLES.jsonl [-pred PRED.jsonl] [-epsilon 2]
//	    [-mode paper|reference] [-stride 2] -oracle-cmd 'CMD' [-timeout 60s] [-jobs N]
//	go run ./examples/pdb compose -program FILE -tests 'CMD' [-k-max 4] [-m1 20]
//	    [-m2 100] [-m3 5] [-stride 3] [-seed S] [-out OUT.jsonl]
//
// score reads PDB examples (one JSON object per line: task_id, buggy_code, gt_solution,
// gt_diff, bug_count, and optionally debug_results.solution), takes each prediction from
// the example's debug_results or from PRED (lines with task_id and solution, or
// debug_results), and writes one JSON line per task — task_id, precision, recall, f1,
// unit, pred_edits, oracle_calls, and error when the task could not be scored — then a
// final {"summary": …} line with the macro and micro aggregates. A bad line, a ground
// truth that does not fit its program, a missing prediction or a failing oracle command
// is reported on that task's line and the batch continues.
//
// The oracle command runs through /bin/sh -c once per distinct candidate program, with
// {program} replaced by the path of a temporary file holding the program (named by
// -program-name), {dir} by its directory and {task_id} by the task id, all shell-quoted.
// Exit status 0 means the tests pass, another status that they fail; a timeout (the whole
// process group is killed), a death by signal or status > 128, or status 126/127 is an
// error for the task. Verdicts are cached by task id and program text.
//
// -epsilon 0 (the default) uses the paper's tolerance: 2 when every ground-truth block is
// a single line, 1 otherwise; -epsilon -1 disables it. -stride S > 0 additionally rejects
// (as a task error) ground truths whose consecutive blocks start fewer than S lines after
// the previous block ends.
//
// compose builds multi-bug programs from a correct program whose tests pass under the
// -tests command (same placeholders, exit 0 = pass), with rule-based single-line bugs
// (or -multi for blocks up to -max-lines), and writes the examples as JSON lines.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/faultline-dev/faultline/compose"
	"github.com/faultline-dev/faultline/metrics"
	"github.com/faultline-dev/faultline/task"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: pdb score -in EXAMPLES.jsonl [-pred PRED.jsonl] -oracle-cmd CMD [flags]")
	fmt.Fprintln(w, "       pdb compose -program FILE -tests CMD [flags]")
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	var err error
	switch args[0] {
	case "score":
		err = scoreCmd(ctx, args[1:], stdout, stderr)
	case "compose":
		err = composeCmd(ctx, args[1:], stdout, stderr)
	case "-h", "-help", "--help", "help":
		usage(stdout)
		return 0
	default:
		usage(stderr)
		return 2
	}
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "pdb:", err)
		return 1
	}
	return 0
}

// scoreLine is one task's output line.
type scoreLine struct {
	TaskID      string  `json:"task_id"`
	Precision   float64 `json:"precision"`
	Recall      float64 `json:"recall"`
	F1          float64 `json:"f1"`
	Unit        float64 `json:"unit"`
	PredEdits   int     `json:"pred_edits"`
	OracleCalls int     `json:"oracle_calls"`
	Error       string  `json:"error,omitempty"`
}

// item is one input line: a decoded example or the error that stopped it.
type item struct {
	line int
	ex   task.PDBExample
	id   string
	err  error
}

// readLines calls fn for every non-blank line of r with its 1-based number; lines of any
// length are accepted, "\r\n" included.
func readLines(r io.Reader, fn func(n int, line []byte)) error {
	br := bufio.NewReader(r)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if t := strings.TrimSpace(string(line)); t != "" {
			fn(n, []byte(t))
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// looseID extracts task_id (string or number) from a JSON object that may not decode.
func looseID(line []byte) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(line, &m) != nil {
		return ""
	}
	raw := m["task_id"]
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return ""
}

func readExamples(path string) ([]item, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var items []item
	err = readLines(f, func(n int, line []byte) {
		it := item{line: n}
		if err := json.Unmarshal(line, &it.ex); err != nil {
			it.id = looseID(line)
			it.err = fmt.Errorf("%s line %d: %w", filepath.Base(path), n, err)
		} else {
			it.id = it.ex.TaskID
		}
		if it.id == "" {
			it.id = fmt.Sprintf("line-%d", n)
		}
		items = append(items, it)
	})
	return items, err
}

// prediction is one PRED entry: a solution or the reason there is none.
type prediction struct {
	solution string
	err      error
}

// readPredictions reads PRED lines {"task_id", "solution"} or {"task_id", "debug_results":
// {"solution"} | [{"solution"}, …]}.
func readPredictions(path string) (map[string]prediction, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	preds := map[string]prediction{}
	err = readLines(f, func(n int, line []byte) {
		id := looseID(line)
		if id == "" {
			return // no task to attach it to; reported as a missing prediction
		}
		var p struct {
			Solution     json.RawMessage `json:"solution"`
			DebugResults json.RawMessage `json:"debug_results"`
		}
		if err := json.Unmarshal(line, &p); err != nil {
			preds[id] = prediction{err: fmt.Errorf("%s line %d: %w", filepath.Base(path), n, err)}
			return
		}
		raw := p.Solution
		if raw == nil && p.DebugResults != nil {
			var one struct {
				Solution json.RawMessage `json:"solution"`
			}
			var list []struct {
				Solution json.RawMessage `json:"solution"`
			}
			if json.Unmarshal(p.DebugResults, &one) == nil {
				raw = one.Solution
			} else if json.Unmarshal(p.DebugResults, &list) == nil && len(list) > 0 {
				raw = list[0].Solution
			}
		}
		var s string
		if raw == nil {
			preds[id] = prediction{err: fmt.Errorf("%s line %d: no solution", filepath.Base(path), n)}
		} else if err := json.Unmarshal(raw, &s); err != nil {
			preds[id] = prediction{err: fmt.Errorf("%s line %d: solution is not a string of code: %s", filepath.Base(path), n, clip(string(raw)))}
		} else {
			preds[id] = prediction{solution: s}
		}
	})
	return preds, err
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}

func scoreCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("score", flag.ContinueOnError)
	fs.SetOutput(stderr)
	in := fs.String("in", "", "PDB examples (JSONL)")
	predPath := fs.String("pred", "", "predictions (JSONL with task_id and solution); default: debug_results in -in")
	eps := fs.Int("epsilon", 0, "tolerance ε (0: 2 for single-line ground truths, 1 otherwise; -1: none)")
	modeName := fs.String("mode", "paper", "paper or reference")
	stride := fs.Int("stride", 0, "if > 0, require consecutive ground-truth blocks to be at least this many lines apart")
	oracleCmd := fs.String("oracle-cmd", "", "test command run via /bin/sh -c with {program}, {dir}, {task_id}; exit 0 = passes")
	timeout := fs.Duration("timeout", 60*time.Second, "time limit of one oracle command (0: none)")
	jobs := fs.Int("jobs", runtime.GOMAXPROCS(0), "concurrent oracle commands")
	progName := fs.String("program-name", "program.py", "file name of the program handed to the oracle command")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *in == "" || *oracleCmd == "" {
		return errors.New("score: -in and -oracle-cmd are required")
	}
	mode, err := metrics.ParseMode(*modeName)
	if err != nil {
		return err
	}
	items, err := readExamples(*in)
	if err != nil {
		return fmt.Errorf("score: %w", err)
	}
	var preds map[string]prediction
	if *predPath != "" {
		if preds, err = readPredictions(*predPath); err != nil {
			return fmt.Errorf("score: %w", err)
		}
	}
	if *jobs < 1 {
		*jobs = 1
	}
	cache := metrics.NewCache()
	sem := make(chan struct{}, *jobs)
	results := make([]metrics.Result, len(items))
	done := make([]chan struct{}, len(items))
	for i := range done {
		done[i] = make(chan struct{})
	}
	work := make(chan int)
	var wg sync.WaitGroup
	for range *jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				results[i] = scoreOne(ctx, items[i], preds, *predPath != "", cache, &cmdOracle{
					tmpl: *oracleCmd, taskID: items[i].id, name: *progName, timeout: *timeout, sem: sem,
				}, metrics.Options{Mode: mode, Epsilon: *eps, Jobs: *jobs, Cache: cache}, *stride)
				close(done[i])
			}
		}()
	}
	go func() {
		for i := range items {
			work <- i
		}
		close(work)
	}()
	enc := json.NewEncoder(stdout)
	for i := range items {
		<-done[i]
		r := results[i]
		if err := enc.Encode(scoreLine{r.TaskID, r.Precision, r.Recall, r.F1, r.Unit, r.PredEdits, r.OracleCalls, r.Error}); err != nil {
			return err
		}
	}
	wg.Wait()
	return enc.Encode(map[string]metrics.Summary{"summary": metrics.Summarize(results)})
}

func scoreOne(ctx context.Context, it item, preds map[string]prediction, usePred bool, cache *metrics.Cache, o *cmdOracle, opts metrics.Options, stride int) metrics.Result {
	fail := func(err error) metrics.Result {
		return metrics.Result{TaskID: it.id, BugCount: it.ex.BugCount, Error: err.Error()}
	}
	if it.err != nil {
		return fail(it.err)
	}
	ex := it.ex
	if strings.TrimSpace(ex.BuggyCode) == "" {
		return fail(errors.New("buggy_code is empty"))
	}
	if ex.GTSolution != "" {
		if err := ex.Validate(); err != nil {
			return fail(err)
		}
	}
	if stride > 0 {
		if err := task.Verify(ex.GTDiff, -1, stride, 0, 1); err != nil {
			return fail(err)
		}
	}
	var pred string
	if usePred {
		p, ok := preds[it.id]
		if !ok {
			return fail(errors.New("no prediction for this task in -pred"))
		}
		if p.err != nil {
			return fail(p.err)
		}
		pred = p.solution
	} else {
		s, ok := ex.Solution()
		if !ok {
			return fail(errors.New("no debug_results.solution to score"))
		}
		pred = s
	}
	r, _ := metrics.Score(ctx, metrics.Input{TaskID: it.id, Buggy: ex.BuggyCode, GT: ex.GTDiff, Prediction: pred, BugCount: ex.BugCount}, o, opts)
	return r
}

func composeCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("compose", flag.ContinueOnError)
	fs.SetOutput(stderr)
	prog := fs.String("program", "", "the correct program (its tests must pass)")
	tests := fs.String("tests", "", "test command run via /bin/sh -c with {program}, {dir}, {task_id}; exit 0 = passes")
	taskID := fs.String("task-id", "", "task id (default: the program's base name)")
	kMax := fs.Int("k-max", 4, "largest number of bugs per program")
	m1 := fs.Int("m1", 20, "validated single bugs to collect")
	m2 := fs.Int("m2", 100, "composition attempts per bug count")
	m3 := fs.Int("m3", 5, "programs kept per bug count")
	stride := fs.Int("stride", 3, "minimum stride between bugs (paper 3 single-line / 5 multi-line; reference 2 / 4)")
	seed := fs.Int64("seed", 1, "random seed")
	out := fs.String("out", "", "output JSONL (default stdout)")
	multi := fs.Bool("multi", false, "multi-line bugs (PDB-Wild)")
	maxLines := fs.Int("max-lines", 0, "largest bug block (default 1, or 4 with -multi)")
	independent := fs.Bool("independent", false, "re-test compositions for independence")
	frozen := fs.Int("frozen", 0, "leading starter-code lines bugs must not touch")
	timeout := fs.Duration("timeout", 60*time.Second, "time limit of one test command (0: none)")
	jobs := fs.Int("jobs", runtime.GOMAXPROCS(0), "concurrent test commands")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *prog == "" || *tests == "" {
		return errors.New("compose: -program and -tests are required")
	}
	data, err := os.ReadFile(*prog)
	if err != nil {
		return fmt.Errorf("compose: %w", err)
	}
	if strings.TrimSpace(string(data)) == "" {
		return fmt.Errorf("compose: %s is empty", *prog)
	}
	id := *taskID
	if id == "" {
		id = strings.TrimSuffix(filepath.Base(*prog), filepath.Ext(*prog))
	}
	o := &cmdOracle{tmpl: *tests, taskID: id, name: filepath.Base(*prog), timeout: *timeout}
	res, err := compose.Generate(ctx, string(data), o, compose.Options{
		TaskID: id, Multi: *multi, M1: *m1, M2: *m2, M3: *m3, KMax: *kMax, Stride: *stride,
		MaxLines: *maxLines, Independence: *independent, Seed: *seed, Frozen: *frozen, Jobs: *jobs,
	})
	if err != nil {
		return err
	}
	w := stdout
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			return fmt.Errorf("compose: %w", err)
		}
		defer f.Close()
		w = f
	}
	enc := json.NewEncoder(w)
	for _, ex := range res.Examples {
		if err := enc.Encode(ex); err != nil {
			return fmt.Errorf("compose: %w", err)
		}
	}
	st, _ := json.Marshal(res.Stats)
	fmt.Fprintf(stderr, "pdb compose: %d bugs validated, %d examples; stats %s\n", len(res.Pool), len(res.Examples), st)
	return nil
}
