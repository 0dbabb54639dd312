// Command pdb generates and scores PDB (Precise Debugging Benchmark) tasks, reading and
// writing the files of the PDB release.
//
//	pdb score -in EXAMPLES [-pred PREDICTIONS] -oracle-cmd CMD [-mode paper|reference]
//	    [-epsilon auto|N] [-stride N] [-skip-invalid] [-out FILE|-] [sandbox flags]
//	pdb compose -program FILE -tests CMD [-k-max 4] [-m1 20] [-m2 20] [-m3 5] [-stride 2]
//	    [-multi] [-seed S] [-task-prompt TEXT] [-format jsonl|json] [-out FILE|-] [sandbox flags]
//	    [-shard i/n | -merge SHARD.jsonl...]
//
// # Files
//
// Examples are PDB records (task.PDBExample): task_id, buggy_code, gt_solution, gt_diff,
// bug_count and the release's other members. A file is read either as a JSON array — the
// release's results/<dataset>/bug_data/<dataset>_pdb_{single,single_hard,multi}.json and
// the debug-result files its bug_correct.py writes (results/<dataset>/debug_results/
// <model>_on_<set>_round_<n>.json: the examples with "round" and "debug_results":
// {"model", "solution", "pred_diff"} added), recognised by a first non-space byte '[' —
// or as JSON Lines. Predictions come from each example's debug_results.solution (object,
// or the first of a list) or from -pred: records with task_id and either solution (our
// form) or debug_results (the release's form). The formats are documented by the
// release's README and src/evaluator.py; testdata/release/README.md records where.
//
// Before any program runs, every record is checked; a record that does not parse, lacks
// a member, repeats a task_id, or whose gt_diff does not turn buggy_code into gt_solution
// or does not have bug_count blocks is an error naming the file and line, and nothing is
// scored (exit status 1). -skip-invalid instead skips records that parse but do not
// validate, with a warning each, as the release's evaluator skips ground truths that fail
// its check. A task without a prediction is an error, as is a -pred record that does not
// parse.
//
// # Scoring
//
// score writes one JSON line per task (metrics.Result: task_id, bug_count, precision,
// recall, f1, unit, the matches with their oracle verdicts, the unmatched predicted and
// ground-truth edits, oracle_calls, oracle_timeouts, and error when the task could not be
// scored) in input order, then a {"summary": …} line with the macro (per task, the
// release's average) and micro (per bug count, the paper's) aggregates. On stderr it
// reports progress and ends with the release's summary line
// "unit=… prec=… rec=… f1=… (n=…)" and the macro and micro summaries.
//
// -epsilon is the tolerance ε (the release's --tolerance): auto (the default) is 2 when
// every ground-truth block is one line and 1 otherwise; a number sets it, 0 included.
// -stride N > 0 rejects ground truths whose consecutive blocks start fewer than N lines
// after the previous block ends (the release's --stride check).
//
// # Programs under test
//
// Every candidate program runs through the sandbox (package sandbox, task.Command): a
// private copy of -repo (default: an empty directory) with the program written at
// -program-name, its own namespaces where the kernel allows them, a scrubbed environment
// (-env adds to it), and the time limit -timeout (compose's default derives the limits
// from the correct program's run, as breakpoint does: 2× its time + 10 s for a mutant, and
// once more at 4× + 1 min for one stopped there). The command (-oracle-cmd, or compose's
// -tests) runs there through /bin/sh -c with the copy as working directory; {program},
// {dir}, {task_id} and {python} are replaced by the program's path, the copy's path, the
// task id and -python, as single shell words (do not quote them), also available as
// $PDB_PROGRAM, $PDB_DIR and $PDB_TASK_ID. Exit status 0 is a passing verdict; any other
// status, a crash of the program under test included, is a failing one; a run stopped at
// -timeout is a failing verdict too (a timeout), as in the release's evaluator, and counts
// in the averages. Exit status 126 or 127 (the shell could not run a command) means the
// oracle is broken: the task is reported with an error, left out of the averages, and the
// exit status is 1. -unsafe-host drops the isolation (for trusted programs only); -cache
// DIR keeps run results across invocations.
//
// # Composing
//
// compose builds multi-bug programs from a correct program whose tests pass under -tests
// (package compose) and writes them in the release's record format: programs without
// trailing white space or final line break, gt_diff with the edit types Modify, Add and
// Delete, task_prompt, source_model and, for single bugs, bug_type and bug_subtype; as
// JSON Lines or, with -format json, as a JSON array like the release's files. A bug whose
// tests hang is rejected and generation goes on. stderr says what was produced against
// what was asked.
//
// compose keeps its runs in the on-disk result cache even without -cache (in
// $XDG_CACHE_HOME/faultline/results; -cache off for none), so a killed run started again
// resumes. -shard i/n validates only part i of n of the bug candidates and writes their
// bugs for -merge; -merge, given the shards' flags and then every shard's file, composes
// from the first -m1 of their bugs and writes the unsharded output (docs/scale.md).
//
// # Conventions
//
// With -out - (the default) stdout carries only the JSON output; everything else goes to
// stderr. A file named by -out is written only when the command succeeds (through a
// temporary file beside it). -h exits 0, a usage error 2, a failure 1; SIGINT, SIGTERM and
// SIGPIPE stop the runs, remove their private copies and exit 128 + the signal number
// (130, 143, 141). The same inputs and -seed give byte-identical output.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/faultline-dev/faultline/internal/cli"
)

func main() {
	ctx, sigs := cli.WithSignals(context.Background())
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	sigs.Stop()
	os.Exit(sigs.Code(code))
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: pdb score -in EXAMPLES [-pred PREDICTIONS] -oracle-cmd CMD [flags]")
	fmt.Fprintln(w, "       pdb compose -program FILE -tests CMD [flags]")
	fmt.Fprintln(w, "run 'pdb score -h' or 'pdb compose -h' for the flags")
}

// run executes one command and returns its exit status: 0 success (and -h), 1 failure,
// 2 usage error.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return cli.ExitUsage
	}
	var err error
	switch args[0] {
	case "score":
		err = scoreCmd(ctx, args[1:], stdout, stderr)
	case "compose":
		err = composeCmd(ctx, args[1:], stdout, stderr)
	case "-h", "-help", "--help", "help":
		usage(stderr)
		return cli.ExitOK
	default:
		fmt.Fprintf(stderr, "pdb: unknown command %q\n", args[0])
		usage(stderr)
		return cli.ExitUsage
	}
	var ue usageError
	switch {
	case err == nil:
		return cli.ExitOK
	case errors.Is(err, flag.ErrHelp):
		return cli.ExitOK
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "pdb %s: %v\n", args[0], err)
		fmt.Fprintf(stderr, "run 'pdb %s -h' for usage\n", args[0])
		return cli.ExitUsage
	case ctx.Err() != nil:
		fmt.Fprintf(stderr, "pdb %s: stopped (%v): runs stopped, private copies removed, an -out file left as it was\n", args[0], err)
		return cli.ExitFailure
	}
	fmt.Fprintf(stderr, "pdb %s: %v\n", args[0], err)
	return cli.ExitFailure
}
