package compose

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/task"
)

// realProgram takes two functions (flatten and make_list_of_ints) verbatim from Debian's
// python3-networkx (networkx/utils/misc.py, BSD-3-Clause) with the imports they need.
func realProgram(t *testing.T) string {
	const src = "/usr/lib/python3/dist-packages/networkx/utils/misc.py"
	data, err := os.ReadFile(src)
	if err != nil {
		t.Skipf("compose: %s not installed (apt-get install python3-networkx): %v", src, err)
	}
	text := string(data)
	cut := func(from, to string) string {
		i := strings.Index(text, from)
		j := strings.Index(text, to)
		if i < 0 || j < i {
			t.Skipf("compose: %s has changed (no %q … %q)", src, from, to)
		}
		return text[i:j]
	}
	return "from collections.abc import Iterable, Sized\n\nimport networkx as nx\n\n\n" +
		cut("def flatten(", "def is_list_of_ints(")
}

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
    acc = [0]
    assert flatten([[1], 2], acc) == (0, 1, 2)


def test_make_list_of_ints_generator():
    assert make_list_of_ints(x for x in (1.0, 2, 3.0)) == [1, 2, 3]
    assert all(type(v) is int for v in make_list_of_ints(iter([1.0, 2.0])))


def test_make_list_of_ints_in_place():
    seq = [1, 2.0, 3]
    out = make_list_of_ints(seq)
    assert out is seq
    assert seq == [1, 2, 3] and type(seq[1]) is int


def test_make_list_of_ints_errors():
    with pytest.raises(nx.NetworkXError):
        make_list_of_ints([1, 2.5])
    with pytest.raises(nx.NetworkXError):
        make_list_of_ints(iter(["a"]))
    with pytest.raises(nx.NetworkXError):
        make_list_of_ints(iter([1.5]))
    with pytest.raises(nx.NetworkXError):
        make_list_of_ints(["a"])
`

// Compose on real code: two networkx functions, a pytest file, the real interpreter as
// oracle. Every kept example fails its tests, round-trips, and respects the stride in both
// coordinates; the same seed gives byte-identical output (the memoised oracle makes the
// second run cheap only within a run, so the second run re-executes pytest).
func TestComposeRealPython(t *testing.T) {
	prog := realProgram(t)
	oracle := pytestOracle(t, "prog", realTests)
	opts := Options{TaskID: "networkx-misc", Seed: 11, M1: 6, M2: 10, M3: 2, KMax: 3, Stride: 3, Jobs: 2}
	res, err := Generate(context.Background(), prog, oracle, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("stats %+v", res.Stats)
	if len(res.Pool) < 4 {
		t.Fatalf("only %d bugs validated (stats %+v)", len(res.Pool), res.Stats)
	}
	perK := map[int]int{}
	for _, ex := range res.Examples {
		perK[ex.BugCount]++
		if ok, err := oracle.Passes(context.Background(), ex.BuggyCode); err != nil || ok {
			t.Errorf("%s: buggy program passes (%v)", ex.TaskID, err)
		}
		if task.Apply(ex.BuggyCode, ex.GTDiff) != ex.GTSolution {
			t.Errorf("%s: round trip", ex.TaskID)
		}
		if err := task.Verify(ex.GTDiff, ex.BugCount, opts.Stride, 1, 1); err != nil {
			t.Errorf("%s: %v", ex.TaskID, err)
		}
		for i := 1; i < len(ex.Bugs); i++ {
			if ex.Bugs[i].Start-ex.Bugs[i-1].End <= opts.Stride {
				t.Errorf("%s: stride in correct coordinates", ex.TaskID)
			}
		}
	}
	if perK[1] != 2 || perK[2] == 0 || perK[3] == 0 {
		t.Errorf("examples per k: %v", perK)
	}
	again, err := Generate(context.Background(), prog, oracle, opts)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(res.Examples)
	b, _ := json.Marshal(again.Examples)
	if string(a) != string(b) {
		t.Error("same seed, different examples")
	}
}

// The atomicity filter under the real tests. Both candidates change the two lines
// "if result is None:" / "result = []" of flatten. Non-atomic: the second change
// (result = list()) is harmless, so reverting the first alone passes → rejected. Atomic:
// result = [None] — reverting either line alone still fails the tests → kept, with the
// exhaustive filter (2^2 − 2 reverts).
func TestAtomicityRealPython(t *testing.T) {
	prog := task.Normalize(realProgram(t))
	oracle := pytestOracle(t, "prog", realTests)
	lines := task.Lines(prog)
	at := -1
	for i, l := range lines {
		if l == "    if result is None:" && lines[i+1] == "        result = []" {
			at = i + 1
			break
		}
	}
	if at < 0 {
		t.Skip("compose: flatten's source has changed")
	}
	pair := func(rule, second string) Candidate {
		return Candidate{Rule: rule, Edits: task.Edits{
			modify(at, lines[at-1], "    if result is not None:"),
			modify(at+1, lines[at], second),
		}}
	}
	res, err := Generate(context.Background(), prog, oracle, Options{
		Multi: true, MaxLines: 2, KMax: 1, Jobs: 2,
		Source: Given{pair("non-atomic", "        result = list()"), pair("atomic", "        result = [None]")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Pool) != 1 || res.Pool[0].Rule != "atomic" || res.Pool[0].Atomicity != AtomicExhaustive {
		t.Fatalf("pool %+v stats %+v", res.Pool, res.Stats)
	}
	if res.Stats.Rejected[RejectNotAtomic] != 1 {
		t.Errorf("rejected %v", res.Stats.Rejected)
	}
}
