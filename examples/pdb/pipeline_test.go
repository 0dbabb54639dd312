package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/task"
)

// TestPipelinePytest runs compose then score end to end on real code (a networkx function
// from Debian's python3-networkx) with a real pytest oracle command. The ground-truth
// solutions score P = R = unit = 1, the buggy programs score 0.
func TestPipelinePytest(t *testing.T) {
	const py = "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import pytest, networkx").Run(); err != nil {
		t.Skipf("pdb: %s with pytest and networkx is not available: %v", py, err)
	}
	src, err := os.ReadFile("/usr/lib/python3/dist-packages/networkx/utils/misc.py")
	if err != nil {
		t.Skip(err)
	}
	i := bytes.Index(src, []byte("def flatten("))
	j := bytes.Index(src, []byte("def make_list_of_ints("))
	if i < 0 || j < i {
		t.Skip("pdb: networkx/utils/misc.py has changed")
	}
	dir := t.TempDir()
	prog := filepath.Join(dir, "prog.py")
	os.WriteFile(prog, append([]byte("from collections.abc import Iterable, Sized\n\n\n"), src[i:j]...), 0o644)
	// The tests live in the directory every run copies; the program is written beside them.
	repo := filepath.Join(dir, "repo")
	os.Mkdir(repo, 0o755)
	os.WriteFile(filepath.Join(repo, "test_prog.py"), []byte(`from prog import flatten


def test_flatten():
    assert flatten([1, [2, [3, 4]], (5,)]) == (1, 2, 3, 4, 5)
    assert flatten(["ab", ["c"]]) == ("ab", "c")
    assert flatten(7) == 7
    assert flatten([[1], 2], [0]) == (0, 1, 2)
`), 0o644)
	cmd := "{python} -m pytest -q -x -p no:cacheprovider >/dev/null 2>&1"
	exPath := filepath.Join(dir, "ex.jsonl")
	var stderr bytes.Buffer
	if code := run(context.Background(), []string{"compose", "-program", prog, "-repo", repo, "-python", py, "-tests", cmd, "-k-max", "2", "-m1", "3", "-m2", "5", "-m3", "1", "-stride", "2", "-seed", "2", "-jobs", "2", "-out", exPath}, &bytes.Buffer{}, &stderr); code != 0 {
		t.Fatalf("compose: %s", stderr.String())
	}
	data, _ := os.ReadFile(exPath)
	exs, err := task.ReadAllJSONL[task.PDBExample](bytes.NewReader(data))
	if err != nil || len(exs) != 2 {
		t.Fatalf("examples: %v (%d) %s", err, len(exs), stderr.String())
	}
	var pred strings.Builder
	for k, ex := range exs {
		sol := ex.GTSolution
		if k == 1 {
			sol = ex.BuggyCode
		}
		line, _ := json.Marshal(map[string]string{"task_id": ex.TaskID, "solution": sol})
		pred.Write(line)
		pred.WriteByte('\n')
	}
	predPath := filepath.Join(dir, "pred.jsonl")
	os.WriteFile(predPath, []byte(pred.String()), 0o644)
	out, raw, _ := runScore(t, "-in", exPath, "-pred", predPath, "-repo", repo, "-python", py, "-oracle-cmd", cmd, "-program-name", "prog.py", "-mode", "reference", "-jobs", "2")
	if len(out) != 3 || out[0].Error != "" || out[1].Error != "" {
		t.Fatalf("score output:\n%s", raw)
	}
	if out[0].Precision != 1 || out[0].Recall != 1 || out[0].Unit != 1 || out[0].UnitOutcome != task.Pass {
		t.Errorf("ground truth scored %s", raw)
	}
	if out[1].Precision != 0 || out[1].Recall != 0 || out[1].Unit != 0 || out[1].UnitOutcome != task.Fail {
		t.Errorf("buggy program scored %s", raw)
	}
}
