package task

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// A record in the PDB release's format (a *_pdb_multi.json element as json.dump(indent=2)
// writes it; content made up here): the release's members map to PDBExample's fields, the
// ones it has no field for stay in Extra, and it is written back with the release's names
// and the release's edit-type spelling.
const releaseRecord = `[
  {
    "task_id": "Demo/7_0",
    "gt_solution": "def f(x):\n    y = x + 1\n    return y",
    "task_prompt": "Return x plus one.",
    "frozen_lines": 1,
    "gt_length": 3,
    "editable_lines": 2,
    "deletable_lines": 1,
    "bug_type": "Algorithm",
    "bug_subtype": "Wrong operator",
    "buggy_code": "def f(x):\n    y = x - 1\n    return y",
    "bug_count": 1,
    "is_buggy": true,
    "gt_diff": {
      "2": {
        "type": "Modify",
        "original": "    y = x - 1",
        "modified": "    y = x + 1"
      }
    },
    "source_model": "some-model"
  }
]`

func TestPDBExampleReleaseFormat(t *testing.T) {
	var exs []PDBExample
	err := ReadRecords(strings.NewReader(releaseRecord), func(line int, ex PDBExample) error {
		if line != 2 {
			t.Errorf("record starts on line %d", line)
		}
		exs = append(exs, ex)
		return nil
	})
	if err != nil || len(exs) != 1 {
		t.Fatal(err, len(exs))
	}
	ex := exs[0]
	if ex.TaskPrompt != "Return x plus one." || ex.SourceModel != "some-model" || ex.BugType != "Algorithm" ||
		ex.BugSubtype != "Wrong operator" || ex.BugCount != 1 || len(ex.GTDiff) != 1 || ex.GTDiff[0].Type != Modify {
		t.Errorf("decoded %+v", ex)
	}
	for _, k := range []string{"frozen_lines", "gt_length", "editable_lines", "deletable_lines", "is_buggy"} {
		if _, ok := ex.Extra[k]; !ok {
			t.Errorf("member %s lost", k)
		}
	}
	if err := ex.Validate(); err != nil {
		t.Error(err)
	}
	data, err := json.Marshal(ex)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	json.Unmarshal(data, &m)
	var orig []map[string]json.RawMessage
	json.Unmarshal([]byte(releaseRecord), &orig)
	for k := range orig[0] {
		if _, ok := m[k]; !ok {
			t.Errorf("member %s not written back", k)
		}
	}
	if !strings.Contains(string(m["gt_diff"]), `"type":"Modify"`) {
		t.Errorf("gt_diff written as %s", m["gt_diff"])
	}
	// Labels that are not strings (lists, in the release's intermediate files) are kept.
	var lists PDBExample
	if err := json.Unmarshal([]byte(`{"task_id": "x", "buggy_code": "a", "gt_diff": {}, "bug_type": ["Checking", "Algorithm"], "bug_subtype": "s"}`), &lists); err != nil || lists.BugType != "" || lists.BugSubtype != "s" || string(lists.Extra["bug_type"]) != `["Checking","Algorithm"]` {
		t.Errorf("list bug_type: %+v %v", lists, err)
	}
	// Earlier versions wrote the category as "category": still read, written as bug_type.
	var old PDBExample
	if err := json.Unmarshal([]byte(`{"task_id": "x", "buggy_code": "a", "gt_diff": {}, "category": "Checking"}`), &old); err != nil || old.BugType != "Checking" {
		t.Errorf("legacy category: %+v %v", old, err)
	}
}

func TestVerdictOf(t *testing.T) {
	ctx := context.Background()
	plain := OracleFunc(func(_ context.Context, p string) (bool, error) {
		if p == "err" {
			return false, errors.New("broken")
		}
		return p == "ok", nil
	})
	for p, want := range map[string]Outcome{"ok": Pass, "no": Fail} {
		if v, err := VerdictOf(ctx, plain, p); err != nil || v.Outcome != want || v.Passed() != (want == Pass) {
			t.Errorf("%s: %+v %v", p, v, err)
		}
	}
	if _, err := VerdictOf(ctx, plain, "err"); err == nil {
		t.Error("error lost")
	}
	if v, err := VerdictOf(ctx, timeoutOracle{}, "x"); err != nil || v.Outcome != Timeout || v.Passed() {
		t.Errorf("verdict oracle: %+v %v", v, err)
	}
}

type timeoutOracle struct{}

func (timeoutOracle) Passes(context.Context, string) (bool, error) { return false, nil }
func (timeoutOracle) Verdict(context.Context, string) (Verdict, error) {
	return Verdict{Outcome: Timeout, Detail: "hung"}, nil
}
