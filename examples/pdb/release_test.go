package main

import (
	"context"
	"encoding/json"
	"hash/crc32"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/metrics"
	"github.com/faultline-dev/faultline/task"
)

// releaseScores is testdata/release/release_scores.json: what the PDB release's evaluator
// computed on the debug-result files (see release_scores.py).
type releaseScores struct {
	Evaluator struct {
		Repository, Commit string
	} `json:"evaluator"`
	Sets map[string]struct {
		File      string   `json:"file"`
		Tolerance int      `json:"tolerance"`
		Stride    int      `json:"stride"`
		Skipped   []string `json:"skipped"`
		Summary   string   `json:"summary"`
		Tasks     map[string]struct {
			Precision       float64  `json:"precision"`
			Recall          float64  `json:"recall"`
			F1              float64  `json:"f1"`
			Unit            float64  `json:"unit"`
			MatchedGTBlocks []int    `json:"matched_gt_blocks"`
			UnmatchedPred   []string `json:"unmatched_pred"`
			UnmatchedGT     []string `json:"unmatched_gt"`
		} `json:"tasks"`
	} `json:"sets"`
}

// fixtureOracle is release_scores.py's stand-in for a test suite: a program passes if it
// is one of the ground-truth solutions or its CRC-32 is divisible by 3, times out if it
// contains "hang", and fails otherwise.
type fixtureOracle map[string]bool

func (o fixtureOracle) Passes(ctx context.Context, p string) (bool, error) {
	v, err := o.Verdict(ctx, p)
	return v.Passed(), err
}

func (o fixtureOracle) Verdict(_ context.Context, p string) (task.Verdict, error) {
	switch {
	case strings.TrimSpace(p) == "":
		return task.Verdict{Outcome: task.Fail}, nil
	case strings.Contains(p, "hang"):
		return task.Verdict{Outcome: task.Timeout}, nil
	case o[p] || crc32.ChecksumIEEE([]byte(p))%3 == 0:
		return task.Verdict{Outcome: task.Pass}, nil
	}
	return task.Verdict{Outcome: task.Fail}, nil
}

// TestReleaseScores reads the release's debug-result files (JSON arrays of its prediction
// records, made from our compose output and from hand-made records in its bug-data
// format) with score's reader, scores them in Reference mode with the tolerance the
// evaluator used, and compares every task with what the release's evaluator computed:
// precision, recall, F1, unit score, the matched ground-truth blocks, the unmatched
// predicted and ground-truth edits, the tasks it skipped (none) and its summary line.
func TestReleaseScores(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "release", "release_scores.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want releaseScores
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	if len(want.Sets) != 3 || want.Evaluator.Commit == "" {
		t.Fatalf("release_scores.json: %d sets, commit %q", len(want.Sets), want.Evaluator.Commit)
	}
	kinds := map[string]bool{}
	for name, set := range want.Sets {
		t.Run(name, func(t *testing.T) {
			if len(set.Skipped) != 0 {
				t.Errorf("the release's evaluator skipped %v", set.Skipped)
			}
			in := filepath.Join("testdata", "release", set.File)
			eps := set.Tolerance
			if eps == 0 {
				eps = metrics.NoTolerance
			}
			tasks, warnings, skipped, err := loadTasks(scoreFlags{in: in, mode: metrics.Reference, stride: set.Stride})
			if err != nil || skipped != 0 {
				t.Fatalf("reading %s: %v (%d skipped)", in, err, skipped)
			}
			// Our diff of each solution equals the pred_diff the release's file_diff made.
			if len(warnings) != 0 {
				t.Errorf("warnings: %v", warnings)
			}
			if len(tasks) != len(set.Tasks) {
				t.Fatalf("%d tasks read, the evaluator scored %d", len(tasks), len(set.Tasks))
			}
			o := fixtureOracle{}
			for _, tk := range tasks {
				o[task.Normalize(tk.ex.GTSolution)] = true
			}
			var results []metrics.Result
			for _, tk := range tasks {
				id := tk.ex.TaskID
				kinds[id[strings.LastIndexByte(id, '#')+1:]] = true
				r, err := metrics.Score(context.Background(), metrics.Input{
					TaskID: id, Buggy: tk.ex.BuggyCode, GT: tk.ex.GTDiff, Prediction: tk.pred.solution, BugCount: tk.ex.BugCount,
				}, o, metrics.Options{Mode: metrics.Reference, Epsilon: eps})
				if err != nil {
					t.Fatalf("%s: %v", id, err)
				}
				results = append(results, r)
				w, ok := set.Tasks[id]
				if !ok {
					t.Errorf("%s: not scored by the release", id)
					continue
				}
				var matched []int
				for _, m := range r.Matches {
					if m.Passed {
						matched = append(matched, m.GTBlocks...)
					}
				}
				slices.Sort(matched)
				if matched == nil {
					matched = []int{}
				}
				if !closeTo(r.Precision, w.Precision) || !closeTo(r.Recall, w.Recall) || !closeTo(r.F1, w.F1) || r.Unit != w.Unit ||
					!reflect.DeepEqual(matched, w.MatchedGTBlocks) ||
					!reflect.DeepEqual(keys(r.UnmatchedPred), sortKeys(w.UnmatchedPred)) || !reflect.DeepEqual(keys(r.UnmatchedGT), sortKeys(w.UnmatchedGT)) {
					t.Errorf("%s:\n ours    P %v R %v F1 %v U %v matched %v unmatched pred %q gt %q\n release P %v R %v F1 %v U %v matched %v unmatched pred %q gt %q",
						id, r.Precision, r.Recall, r.F1, r.Unit, matched, keys(r.UnmatchedPred), keys(r.UnmatchedGT),
						w.Precision, w.Recall, w.F1, w.Unit, w.MatchedGTBlocks, w.UnmatchedPred, w.UnmatchedGT)
				}
			}
			if got := releaseLine(metrics.Summarize(results)); !strings.HasSuffix(set.Summary, got) || set.Summary == "" {
				t.Errorf("summary line %q, the release printed %q", got, set.Summary)
			}
		})
	}
	// The predictions cover every kind release_scores.py makes, the hanging one included.
	for _, k := range []string{"gt", "buggy", "partial", "over", "alt", "hang", "rewrite", "added", "deleted", "mixed"} {
		if !kinds[k] {
			t.Errorf("no prediction of kind %q", k)
		}
	}
}

func closeTo(a, b float64) bool { d := a - b; return d < 1e-12 && d > -1e-12 }

// sortKeys puts gt_diff keys in diff order (the evaluator lists unmatched edits in the
// order it visited their blocks, bottom-most first).
func sortKeys(ks []string) []string {
	out := append([]string{}, ks...)
	slices.SortStableFunc(out, func(a, b string) int {
		na, nb := strings.TrimRight(a, " "), strings.TrimRight(b, " ")
		if len(na) != len(nb) {
			return len(na) - len(nb)
		}
		if c := strings.Compare(na, nb); c != 0 {
			return c
		}
		return len(a) - len(b)
	})
	return out
}

func keys(e task.Edits) []string {
	out := []string{}
	for _, x := range e {
		out = append(out, x.Key())
	}
	return out
}

// The release's bug-data files as they are: a JSON array, indent 2, its member names and
// edit-type spelling (handmade.json, written by release_scores.py with the release's own
// file_diff: Add ties "L"/"L ", Delete, two bugs) read by score and scored: the ground
// truth of each scores P = R = 1 with no oracle call but the unit test.
func TestReleaseBugDataFile(t *testing.T) {
	in := filepath.Join("testdata", "release", "handmade.json")
	raw, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(raw), "[\n  {\n    \"task_id\"") {
		t.Fatalf("%s is not in the release's layout", in)
	}
	var exs []task.PDBExample
	if err := task.ReadRecords(strings.NewReader(string(raw)), func(_ int, ex task.PDBExample) error {
		exs = append(exs, ex)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	ties, types := 0, map[task.EditType]bool{}
	var preds []any
	for _, ex := range exs {
		if err := ex.Validate(); err != nil {
			t.Errorf("%s: %v", ex.TaskID, err)
		}
		if ex.TaskPrompt == "" || ex.SourceModel != "handmade" {
			t.Errorf("%s: release members not read: %+v", ex.TaskID, ex)
		}
		for _, e := range ex.GTDiff {
			types[e.Type] = true
			if e.Tie > 0 {
				ties++
			}
		}
		preds = append(preds, map[string]string{"task_id": ex.TaskID, "solution": ex.GTSolution})
	}
	if ties == 0 || !types[task.Add] || !types[task.Delete] {
		t.Errorf("the fixture should hold Add ties and a Delete: ties %d, types %v", ties, types)
	}
	pred := writeFile(t, "pred.json", jsonl(t, preds...))
	out, _, stderr := runScore(t, "-in", in, "-pred", pred, "-oracle-cmd", "true", "-mode", "reference")
	for _, o := range out[:len(exs)] {
		if o.Precision != 1 || o.Recall != 1 || o.Unit != 1 || o.OracleCalls != 1 {
			t.Errorf("%s: %+v", o.TaskID, o.Result)
		}
	}
	if !strings.Contains(stderr, "unit=1.000 prec=1.000 rec=1.000 f1=1.000 (n=3)") {
		t.Errorf("summary:\n%s", stderr)
	}
	// -pred in the release's own form: its debug-result records (a JSON array of the
	// examples with round and debug_results). A pred_diff that disagrees with the solution
	// is reported, and the solution is scored.
	var recs []map[string]any
	json.Unmarshal(raw, &recs)
	for i, r := range recs {
		var diff any = r["gt_diff"] // the solution is the ground truth
		if i == 0 {
			diff = map[string]any{"1": map[string]string{"type": "Modify", "original": "x", "modified": "y"}}
		}
		r["round"] = 1
		r["debug_results"] = map[string]any{"model": "m", "solution": r["gt_solution"], "pred_diff": diff}
	}
	arr, _ := json.MarshalIndent(recs, "", "  ")
	pred2 := writeFile(t, "debug.json", string(arr))
	out, _, stderr = runScore(t, "-in", in, "-pred", pred2, "-oracle-cmd", "true", "-mode", "reference")
	if len(out) != len(exs)+1 || out[0].Precision != 1 || out[1].Precision != 1 {
		t.Errorf("release -pred: %+v", out)
	}
	if !strings.Contains(stderr, "debug.json:2: task handmade/0: pred_diff differs from the diff of the solution") ||
		strings.Contains(stderr, "handmade/1: pred_diff") {
		t.Errorf("pred_diff check:\n%s", stderr)
	}
}

// TestReleaseRepositoryFiles reads the release's own bug-data files when a checkout is
// named by PDB_RELEASE (they are not part of this repository): every record of every
// results/*/bug_data/*.json reads, validates with the evaluator's default stride of 2
// (as the evaluator accepts them all), and its ground-truth solution scores P = R = 1.
func TestReleaseRepositoryFiles(t *testing.T) {
	dir := os.Getenv("PDB_RELEASE")
	if dir == "" {
		t.Skip("pdb: set PDB_RELEASE to a checkout of https://github.com/Bill1235813/PDB to read its files")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "results", "*", "bug_data", "*_pdb_*.json"))
	read := 0
	for _, in := range files {
		if st, err := os.Stat(in); err != nil || st.Size() == 0 {
			continue // a large file the checkout lacks
		}
		// The bug data has no predictions: take the ground truths.
		var preds []any
		recs, err := readRaw(in)
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		for _, r := range recs {
			var ex task.PDBExample
			json.Unmarshal(r.raw, &ex)
			preds = append(preds, map[string]string{"task_id": ex.TaskID, "solution": ex.GTSolution})
		}
		pred := writeFile(t, "pred.jsonl", jsonl(t, preds...))
		tasks, _, skipped, err := loadTasks(scoreFlags{in: in, pred: pred, stride: 2})
		if err != nil || skipped != 0 {
			t.Errorf("%s: %v", in, err)
			continue
		}
		for _, tk := range tasks {
			r, err := metrics.Score(context.Background(), metrics.Input{TaskID: tk.ex.TaskID, Buggy: tk.ex.BuggyCode, GT: tk.ex.GTDiff,
				Prediction: tk.pred.solution, BugCount: tk.ex.BugCount}, task.OracleFunc(func(context.Context, string) (bool, error) { return true, nil }),
				metrics.Options{Mode: metrics.Reference})
			if err != nil || r.Precision != 1 || r.Recall != 1 || r.OracleCalls != 1 {
				t.Errorf("%s: %s: %+v %v", in, tk.ex.TaskID, r, err)
			}
		}
		read += len(tasks)
		t.Logf("%s: %d records", filepath.Base(in), len(tasks))
	}
	if read == 0 {
		t.Errorf("no bug-data file under %s", dir)
	}
}
