package corrupt

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/task"
)

func sampleResult() Result {
	return Result{
		Mode: Discovery, Seed: 7, Index: 2,
		Functions: []Corrupted{
			{ID: "a.go::F", Path: "a.go", Name: "F", Line: 3, EndLine: 9, Span: task.Span{Start: 10, End: 90}, Rule: "flip-comparison", CodeLines: 6, Metrics: map[string]float64{"harmonic": 0.25}},
			{ID: "b.go::G", Path: "b.go", Name: "G", Line: 1, EndLine: 4, Span: task.Span{Start: 0, End: 40}, Rule: "off-by-one", CodeLines: 3, Metrics: map[string]float64{"harmonic": 0.5}},
		},
		Patch: "--- a/a.go\n+++ b/a.go\n", Gold: "--- a/a.go\n+++ b/a.go\n",
		Validation: &Validation{FailToPass: []string{"p.TestA", "p.TestB"}, PassToPass: []string{"p.TestC"}, Messages: []string{"want 1", "want 2"}, Accepted: true, State: task.RunOK},
	}
}

func TestProblemRecord(t *testing.T) {
	p := sampleResult().Problem("owner/repo", "abc123")
	if !strings.HasPrefix(p.ID, "owner__repo.discovery.7.2.") || len(p.ID) != len("owner__repo.discovery.7.2.")+8 {
		t.Errorf("ID = %q", p.ID)
	}
	if p.Rule != "flip-comparison+off-by-one" || p.Seed != 7 || p.Mode != "discovery" || p.Commit != "abc123" {
		t.Errorf("record = %+v", p)
	}
	if p.FailureMessages["p.TestB"] != "want 2" || p.Functions[1].Metrics["code_lines"] != 3 || p.Functions[0].Metrics["harmonic"] != 0.25 {
		t.Errorf("messages/metrics = %v %v", p.FailureMessages, p.Functions)
	}
	if !strings.Contains(p.ProblemStatement, "`p.TestA`") || strings.Contains(p.ProblemStatement, "a.go") {
		t.Errorf("DISCOVERY statement must list failing tests and not reveal the function:\n%s", p.ProblemStatement)
	}
	// The record survives the task package's JSON codec and converts to SWE-bench form.
	data, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var back task.BreakpointProblem
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.FailToPass, p.FailToPass) || back.ID != p.ID || back.GoldPatch != p.GoldPatch {
		t.Errorf("round trip lost data: %+v", back)
	}
	swe, err := back.ToSWE()
	if err != nil || swe.Patch != p.GoldPatch || len(swe.FailToPass) != 2 {
		t.Errorf("ToSWE = %+v, %v", swe, err)
	}
	// Same result, same bytes.
	again, _ := json.Marshal(sampleResult().Problem("owner/repo", "abc123"))
	if string(again) != string(data) {
		t.Error("the record's JSON is not deterministic")
	}
}

func TestRemoveStatement(t *testing.T) {
	r := sampleResult()
	r.Mode = Remove
	s := r.Statement()
	if !strings.Contains(s, "`F` in `a.go` (line 3)") || !strings.Contains(s, "`G` in `b.go`") {
		t.Errorf("REMOVE statement must name every function:\n%s", s)
	}
}

// TestProblemNotRun: tests that got no verdict on the corrupted tree are named in the record
// (not_run), in neither list, and the record still validates and converts to SWE-bench form.
func TestProblemNotRun(t *testing.T) {
	r := sampleResult()
	r.Validation.NotRun = []string{"p.TestD", "p.TestE"}
	p := r.Problem("owner/repo", "abc123")
	if !reflect.DeepEqual([]string(p.NotRun), []string{"p.TestD", "p.TestE"}) {
		t.Fatalf("not_run = %v", p.NotRun)
	}
	data, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"not_run":["p.TestD","p.TestE"]`) {
		t.Errorf("record without not_run: %s", data)
	}
	var back task.BreakpointProblem
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.NotRun, p.NotRun) || len(back.Extra) != 0 {
		t.Errorf("round trip: not_run %v, extra %v", back.NotRun, back.Extra)
	}
	swe, err := back.ToSWE()
	if err != nil || string(swe.Extra["breakpoint_not_run"]) != `["p.TestD","p.TestE"]` {
		t.Errorf("ToSWE: %v, %s", err, swe.Extra["breakpoint_not_run"])
	}
	// Without tests that did not run, the member is absent.
	if data, _ := json.Marshal(sampleResult().Problem("owner/repo", "abc123")); strings.Contains(string(data), "not_run") {
		t.Errorf("not_run present without such tests: %s", data)
	}
}
