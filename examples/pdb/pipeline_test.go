package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/faultline-dev/faultline/task"
)

var update = flag.Bool("update", false, "rewrite testdata/release/compose_*.json from this run")

const (
	py         = "/usr/bin/python3"
	networkxPy = "/usr/lib/python3/dist-packages/networkx/utils/misc.py"
)

// realProgram cuts two functions (flatten and make_list_of_ints) from Debian's
// python3-networkx with the imports they need, and returns it with the SHA-256 of the
// text; it skips the test when the package is missing.
func realProgram(t *testing.T) (string, string) {
	t.Helper()
	if err := exec.Command(py, "-c", "import pytest, networkx").Run(); err != nil {
		t.Skipf("pdb: %s with pytest and networkx is not available (apt-get install python3-pytest python3-networkx): %v", py, err)
	}
	src, err := os.ReadFile(networkxPy)
	if err != nil {
		t.Skip(err)
	}
	i := bytes.Index(src, []byte("def flatten("))
	j := bytes.Index(src, []byte("def is_list_of_ints("))
	if i < 0 || j < i {
		t.Skipf("pdb: %s has changed", networkxPy)
	}
	prog := "from collections.abc import Iterable, Sized\n\nimport networkx as nx\n\n\n" + string(src[i:j])
	sum := sha256.Sum256([]byte(prog))
	return prog, hex.EncodeToString(sum[:])
}

// realTests is a pytest file for the two functions.
const realTests = `import pytest
import networkx as nx
from prog import flatten, make_list_of_ints


def test_flatten_nested():
    assert flatten([1, [2, [3, 4]], (5,)]) == (1, 2, 3, 4, 5)


def test_flatten_strings_and_scalars():
    assert flatten(["ab", ["c"]]) == ("ab", "c")
    assert flatten(7) == 7
    assert flatten("xy") == "xy"


def test_flatten_result_argument():
    assert flatten([[1], 2], [0]) == (0, 1, 2)


def test_make_list_of_ints():
    assert make_list_of_ints(x for x in (1.0, 2, 3.0)) == [1, 2, 3]
    seq = [1, 2.0, 3]
    assert make_list_of_ints(seq) is seq and type(seq[1]) is int
    for bad in ([1, 2.5], iter(["a"]), iter([1.5]), ["a"]):
        with pytest.raises(nx.NetworkXError):
            make_list_of_ints(bad)
`

// composeRuns are the compose command lines of testdata/release/compose_*.json.
var composeRuns = []struct {
	name string
	args []string
}{
	{"single", []string{"-k-max", "3", "-m1", "8", "-m2", "20", "-m3", "2", "-seed", "11"}},
	{"multi", []string{"-multi", "-max-lines", "2", "-k-max", "2", "-m1", "4", "-m2", "20", "-m3", "2", "-seed", "13"}},
}

// TestPipelinePytest runs compose then score end to end on real code (networkx functions
// from Debian's python3-networkx) with a real pytest oracle through the sandbox.
//
// compose's output must be byte-identical to testdata/release/compose_*.json, the files
// release_scores.py fed to the PDB release's evaluator: release_scores.json records that
// the evaluator accepted every example (none skipped by its gt_diff check) and scored each
// ground-truth solution P = R = 1 (see TestReleaseScores for the rest). score then gives the
// ground truths P = R = unit = 1 and the buggy programs 0.
func TestPipelinePytest(t *testing.T) {
	prog, sum := realProgram(t)
	var meta struct {
		ProgramSHA256 string `json:"program_sha256"`
	}
	if data, err := os.ReadFile("testdata/release/compose_program.json"); err == nil {
		json.Unmarshal(data, &meta)
	}
	dir := t.TempDir()
	progPath := filepath.Join(dir, "prog.py")
	os.WriteFile(progPath, []byte(prog), 0o644)
	repo := filepath.Join(dir, "repo")
	os.Mkdir(repo, 0o755)
	os.WriteFile(filepath.Join(repo, "test_prog.py"), []byte(realTests), 0o644)
	cmd := "{python} -m pytest -q -x -p no:cacheprovider >/dev/null 2>&1"
	var all []task.PDBExample
	for _, r := range composeRuns {
		out := filepath.Join(dir, r.name+".json")
		args := append([]string{"compose", "-program", progPath, "-repo", repo, "-python", py, "-tests", cmd,
			"-task-id", "networkx-misc-" + r.name, "-jobs", "2", "-format", "json", "-out", out}, r.args...)
		code, _, stderr := runPDB(context.Background(), args...)
		if code != 0 {
			t.Fatalf("compose %s: %s", r.name, stderr)
		}
		data, _ := os.ReadFile(out)
		fixture := filepath.Join("testdata", "release", "compose_"+r.name+".json")
		switch {
		case *update:
			if err := os.WriteFile(fixture, data, 0o644); err != nil {
				t.Fatal(err)
			}
			meta.ProgramSHA256 = sum
		case meta.ProgramSHA256 != sum:
			t.Logf("pdb: the networkx functions differ from the ones the fixtures were made from; not comparing %s", fixture)
		default:
			want, err := os.ReadFile(fixture)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(data, want) {
				t.Errorf("compose %s output differs from %s (regenerate with -update, then rerun release_scores.py)", r.name, fixture)
			}
		}
		var exs []task.PDBExample
		if err := json.Unmarshal(data, &exs); err != nil || len(exs) == 0 {
			t.Fatalf("compose %s: %v, %d examples", r.name, err, len(exs))
		}
		all = append(all, exs...)
	}
	if *update {
		data, _ := json.MarshalIndent(meta, "", "  ")
		os.WriteFile(filepath.Join("testdata", "release", "compose_program.json"), append(data, '\n'), 0o644)
	}

	// Score the ground truth and the buggy program of two examples of each run with the
	// real tests.
	all = append(all[:2:2], all[len(all)-2:]...)
	var preds []any
	for k, ex := range all {
		sol := ex.GTSolution
		if k%2 == 1 {
			sol = ex.BuggyCode
		}
		preds = append(preds, map[string]string{"task_id": ex.TaskID, "solution": sol})
	}
	exPath := filepath.Join(dir, "all.jsonl")
	os.WriteFile(exPath, []byte(jsonl(t, anySlice(all)...)), 0o644)
	predPath := filepath.Join(dir, "pred.jsonl")
	os.WriteFile(predPath, []byte(jsonl(t, preds...)), 0o644)
	out, raw, _ := runScore(t, "-in", exPath, "-pred", predPath, "-repo", repo, "-python", py, "-oracle-cmd", cmd, "-program-name", "prog.py", "-mode", "reference", "-jobs", "2")
	if len(out) != len(all)+1 {
		t.Fatalf("score output:\n%s", raw)
	}
	for k, o := range out[:len(all)] {
		want := 1.0
		if k%2 == 1 {
			want = 0
		}
		if o.Error != "" || o.Precision != want || o.Recall != want || o.Unit != want {
			t.Errorf("%s (%v): %+v", o.TaskID, []string{"ground truth", "buggy program"}[k%2], o.Result)
		}
	}
}

func anySlice[T any](xs []T) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}
