package task

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestSWEDatasetSchema reads our output with a typed reader of the SWE-bench dataset schema
// (every column a string, as in the Hugging Face datasets princeton-nlp/SWE-bench and
// SWE-bench_Lite), in both the list and the dataset form.
func TestSWEDatasetSchema(t *testing.T) {
	type row struct {
		Repo                   *string `json:"repo"`
		InstanceID             *string `json:"instance_id"`
		BaseCommit             *string `json:"base_commit"`
		Patch                  *string `json:"patch"`
		TestPatch              *string `json:"test_patch"`
		ProblemStatement       *string `json:"problem_statement"`
		HintsText              *string `json:"hints_text"`
		CreatedAt              *string `json:"created_at"`
		Version                *string `json:"version"`
		FailToPass             *string `json:"FAIL_TO_PASS"`
		PassToPass             *string `json:"PASS_TO_PASS"`
		EnvironmentSetupCommit *string `json:"environment_setup_commit"`
	}
	if n := reflect.TypeOf(row{}).NumField(); n != len(SWEDatasetFields) {
		t.Fatalf("the typed reader has %d fields, SWEDatasetFields %d", n, len(SWEDatasetFields))
	}
	inst := SWEInstance{InstanceID: "o__r-1", Repo: "o/r", FailToPass: TestList{"pkg.TestA", "é"}}
	b, err := EncodeJSON(inst.AsDataset())
	if err != nil {
		t.Fatal(err)
	}
	var r row
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("dataset form does not fit the schema: %v\n%s", err, b)
	}
	v := reflect.ValueOf(r)
	for i := range v.NumField() {
		if v.Field(i).IsNil() {
			t.Errorf("dataset form lacks %s: %s", reflect.TypeOf(r).Field(i).Tag.Get("json"), b)
		}
	}
	if *r.FailToPass != `["pkg.TestA", "\u00e9"]` || *r.PassToPass != "[]" {
		t.Errorf("test lists %q / %q, want json.dumps's form", *r.FailToPass, *r.PassToPass)
	}
	// The list form has every member too (the test lists as lists).
	b, err = EncodeJSON(inst)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, f := range SWEDatasetFields {
		if _, ok := m[f]; !ok {
			t.Errorf("list form lacks %s", f)
		}
	}
}

func readLines(t *testing.T, name string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "instances", name))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimRight(string(data), "\n"), "\n")
}

// TestSWEInstanceCanonical decodes SWE-bench and FeatureBench forms and checks the
// canonical encoding against the one CPython's json module produced
// (testdata/instances/gen.py).
func TestSWEInstanceCanonical(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "instances", "swe_input.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	insts, err := ReadAllJSONL[SWEInstance](f)
	if err != nil {
		t.Fatal(err)
	}
	want := readLines(t, "swe_canonical.jsonl")
	if len(insts) != 3 || len(want) != 3 {
		t.Fatalf("%d instances, %d canonical lines", len(insts), len(want))
	}
	for i, inst := range insts {
		got, err := EncodeJSON(inst)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want[i] {
			t.Errorf("instance %d: canonical form differs from Python's: %s", i, byteDifference(got, []byte(want[i])))
		}
		if err := inst.Validate(); err != nil {
			t.Errorf("instance %d: %v", i, err)
		}
		var again SWEInstance
		if err := json.Unmarshal(got, &again); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(normalizeExtra(t, again), normalizeExtra(t, inst)) {
			t.Errorf("instance %d: decode(encode(x)) != x", i)
		}
	}
	dataset := readLines(t, "swe_dataset.jsonl")
	for i, inst := range insts {
		got, err := EncodeJSON(inst.AsDataset())
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != dataset[i] {
			t.Errorf("instance %d: dataset form differs from Python's: %s", i, byteDifference(got, []byte(dataset[i])))
		}
		var again SWEInstance
		if err := json.Unmarshal(got, &again); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(normalizeExtra(t, again), normalizeExtra(t, inst)) {
			t.Errorf("instance %d: decode(dataset(x)) != x", i)
		}
	}
	sb, fb, odd := insts[0], insts[1], insts[2]
	if len(sb.FailToPass) != 3 || sb.FailToPass[1] != "simplejson/tests/test_decode.py::TestDecode::test_float" || len(sb.PassToPass) != 2 {
		t.Errorf("string-encoded test lists decoded as %q / %q", sb.FailToPass, sb.PassToPass)
	}
	if fb.Lines == nil || *fb.Lines != 42 || fb.P2PTestPoints == nil || *fb.P2PTestPoints != 0 || fb.ImageName == "" {
		t.Errorf("FeatureBench counts: %+v", fb)
	}
	if _, ok := fb.Extra["top_objects"]; !ok || len(fb.Extra) != 3 {
		t.Errorf("FeatureBench extras %v", sortedKeys(fb.Extra))
	}
	var settings map[string]any
	if err := json.Unmarshal([]byte(fb.RepoSettings), &settings); err != nil || settings["test_cmd"] != "pytest -rA" {
		t.Errorf("repo_settings %q: %v", fb.RepoSettings, err)
	}
	if odd.Version != "3.10" || len(odd.PassToPass) != 0 || odd.PassToPass == nil {
		t.Errorf("numeric version / null list: %q %#v", odd.Version, odd.PassToPass)
	}
}

// normalizeExtra compacts Extra values so that equal JSON compares equal.
func normalizeExtra(t *testing.T, s SWEInstance) SWEInstance {
	t.Helper()
	out := s
	out.Extra = map[string]json.RawMessage{}
	for k, v := range s.Extra {
		var b bytes.Buffer
		if err := json.Compact(&b, v); err != nil {
			t.Fatal(err)
		}
		out.Extra[k] = b.Bytes()
	}
	return out
}

func TestSWEInstanceDecodeErrors(t *testing.T) {
	tests := []struct {
		name, in, field string
	}{
		{"list of numbers", `{"FAIL_TO_PASS": [1, 2]}`, "FAIL_TO_PASS"},
		{"string without a list", `{"PASS_TO_PASS": "test_a"}`, "PASS_TO_PASS"},
		{"number for a string", `{"instance_id": 7}`, "instance_id"},
		{"object for version", `{"version": {"v": 1}}`, "version"},
		{"string count", `{"lines": "12"}`, "lines"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var s SWEInstance
			err := json.Unmarshal([]byte(tc.in), &s)
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field != tc.field {
				t.Fatalf("error %v, want a *FieldError for %s", err, tc.field)
			}
		})
	}
	var s SWEInstance
	if err := json.Unmarshal([]byte(`[1]`), &s); err == nil || !strings.HasPrefix(err.Error(), "task: swe instance") {
		t.Fatalf("non-object: %v", err)
	}
	if err := json.Unmarshal([]byte(`null`), &s); err == nil {
		t.Fatal("null decoded into an instance")
	}
}

func TestSWEInstanceValidate(t *testing.T) {
	good := SWEInstance{InstanceID: "a__b-1", Patch: "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-x\n+y\n", FailToPass: TestList{"t1"}, PassToPass: TestList{"t2"}}
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	neg := -1
	tests := []struct {
		name  string
		edit  func(*SWEInstance)
		field string
	}{
		{"no id", func(s *SWEInstance) { s.InstanceID = " " }, "instance_id"},
		{"bad patch", func(s *SWEInstance) { s.Patch = "--- a/f\n+++ b/f\n@@ -1,2 +1 @@\n-x\n" }, "patch"},
		{"empty patch", func(s *SWEInstance) { s.Patch = "" }, "patch"},
		{"bad test patch", func(s *SWEInstance) { s.TestPatch = "@@ -1 +1 @@\n" }, "test_patch"},
		{"no F2P", func(s *SWEInstance) { s.FailToPass = nil }, "FAIL_TO_PASS"},
		{"test in both lists", func(s *SWEInstance) { s.PassToPass = TestList{"t1"} }, "PASS_TO_PASS[0]"},
		{"duplicate", func(s *SWEInstance) { s.FailToPass = TestList{"t1", "t1"} }, "FAIL_TO_PASS[1]"},
		{"empty id", func(s *SWEInstance) { s.FailToPass = TestList{""} }, "FAIL_TO_PASS[0]"},
		{"bad settings", func(s *SWEInstance) { s.RepoSettings = "{" }, "repo_settings"},
		{"negative count", func(s *SWEInstance) { s.Files = &neg }, "files"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := good
			tc.edit(&s)
			err := s.Validate()
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field != tc.field {
				t.Fatalf("error %v, want a *FieldError for %s", err, tc.field)
			}
		})
	}
}

// TestPDBExamples reads PDB examples whose gt_diff the reference edit model computed
// (testdata/instances/gen.py, via ../edits/gen.py) from real code.
func TestPDBExamples(t *testing.T) {
	var expected struct {
		Examples []struct {
			TaskID           string   `json:"task_id"`
			Keys             []string `json:"keys"`
			BugCount         int      `json:"bug_count"`
			Applied          string   `json:"applied"`
			Solution         *string  `json:"solution"`
			DebugResultsForm string   `json:"debug_results_form"`
		}
	}
	data, err := os.ReadFile(filepath.Join("testdata", "instances", "pdb_expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &expected); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join("testdata", "instances", "pdb_input.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []int
	var exs []PDBExample
	err = ReadJSONL(f, func(line int, ex PDBExample) error {
		lines = append(lines, line)
		exs = append(exs, ex)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The file has a CRLF line end, a blank line 2 and no final newline.
	if !reflect.DeepEqual(lines, []int{1, 3, 4, 5, 6}) || len(exs) != len(expected.Examples) {
		t.Fatalf("lines %v, %d examples", lines, len(exs))
	}
	for i, ex := range exs {
		want := expected.Examples[i]
		if ex.TaskID != want.TaskID || ex.BugCount != want.BugCount {
			t.Errorf("example %d: task %q bug_count %d, want %q %d", i, ex.TaskID, ex.BugCount, want.TaskID, want.BugCount)
		}
		var keys []string
		for _, e := range ex.GTDiff {
			keys = append(keys, e.Key())
		}
		if !reflect.DeepEqual(keys, want.Keys) {
			t.Errorf("example %d: gt_diff keys %q, want %q", i, keys, want.Keys)
		}
		if got := Apply(ex.BuggyCode, ex.GTDiff); got != want.Applied {
			t.Errorf("example %d: Apply differs from the reference", i)
		}
		if err := ex.Validate(); err != nil {
			t.Errorf("example %d: %v", i, err)
		}
		sol, ok := ex.Solution()
		if (want.Solution != nil) != ok || (ok && sol != *want.Solution) {
			t.Errorf("example %d: solution %v %q", i, ok, clip(sol))
		}
		enc, err := json.Marshal(ex)
		if err != nil {
			t.Fatal(err)
		}
		var back PDBExample
		if err := json.Unmarshal(enc, &back); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back, ex) {
			t.Errorf("example %d: decode(encode(x)) != x", i)
		}
		var shape map[string]json.RawMessage
		if err := json.Unmarshal(enc, &shape); err != nil {
			t.Fatal(err)
		}
		form := "NoneType"
		if raw, ok := shape["debug_results"]; ok {
			form = map[byte]string{'{': "dict", '[': "list"}[raw[0]]
		}
		if form != want.DebugResultsForm {
			t.Errorf("example %d: debug_results written as %s, read as %s", i, form, want.DebugResultsForm)
		}
		if _, ok := shape["meta"]; !ok {
			t.Errorf("example %d: unknown member lost", i)
		}
		if raw := shape["gt_diff"]; raw[0] != '{' {
			t.Errorf("example %d: gt_diff not written as an object", i)
		}
	}
	// Breaking the record makes Validate fail with the member's name.
	bad := exs[0]
	bad.GTSolution += "\nextra = 1"
	var fe *FieldError
	if err := bad.Validate(); !errors.As(err, &fe) || fe.Field != "gt_diff" {
		t.Fatalf("wrong solution: %v", err)
	}
	bad = exs[0]
	bad.BugCount++
	if err := bad.Validate(); !errors.As(err, &fe) || fe.Field != "bug_count" {
		t.Fatalf("wrong bug count: %v", err)
	}
	bad = exs[0]
	bad.GTDiff = append(Edits{}, bad.GTDiff...)
	bad.GTDiff = append(bad.GTDiff, LineEdit{Line: 10000, Type: Delete, Original: "x"})
	if err := bad.Validate(); !errors.As(err, &fe) || fe.Field != "gt_diff" {
		t.Fatalf("out-of-range edit: %v", err)
	}
}

// breakpointFixture corrupts a real function: it flips the first comparison operator in
// the body of simplejson's encoder (or Go's bufio when simplejson is absent).
func breakpointFixture(t *testing.T) (BreakpointProblem, []byte, []byte) {
	t.Helper()
	path, src := "simplejson/encoder.py", []byte(nil)
	if data, err := os.ReadFile("/usr/lib/python3/dist-packages/simplejson/encoder.py"); err == nil {
		src = data
	} else {
		path = "bufio/bufio.go"
		if src, err = os.ReadFile(filepath.Join(goRoot(t), "src", "bufio", "bufio.go")); err != nil {
			t.Skip("no real source available")
		}
	}
	at := bytes.Index(src, []byte(" == "))
	if at < 0 {
		t.Fatal("no comparison to flip")
	}
	corrupted := append(append(append([]byte{}, src[:at]...), " != "...), src[at+4:]...)
	line := bytes.Count(src[:at], []byte("\n")) + 1
	corr := DiffText(path, path, src, corrupted, 3)
	gold := corr.Reverse()
	p := BreakpointProblem{
		ID: "simplejson__simplejson.bp-1", Repo: "simplejson/simplejson", Commit: "0123456789abcdef",
		Mode: ModeDiscovery,
		Functions: []CorruptedFunction{{Path: path, Name: "JSONEncoder.encode", Span: Span{Start: at - 10, End: at + 10},
			Line: line, EndLine: line + 1, Metrics: map[string]float64{"code_lines": 12, "harmonic_centrality": 0.25}}},
		CorruptionPatch: string(corr.Format()), GoldPatch: string(gold.Format()),
		Rule: "flip_comparison", Seed: 42,
		FailToPass:      TestList{"tests/test_a.py::test_x", "tests/test_a.py::test_y"},
		PassToPass:      TestList{"tests/test_b.py::test_z"},
		FailureMessages: map[string]string{"tests/test_a.py::test_y": "AssertionError: <1> & <2>"},
		Extra:           map[string]json.RawMessage{"zz_note": json.RawMessage(`{"b":1,"a":2}`)},
	}
	return p, src, corrupted
}

func TestBreakpointProblem(t *testing.T) {
	p, src, corrupted := breakpointFixture(t)
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	enc, err := EncodeJSON(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(enc), `"AssertionError: <1> & <2>"`) || !strings.Contains(string(enc), `"zz_note":{"b":1,"a":2}`) {
		t.Fatalf("HTML escaped or extra member changed: %s", clip(string(enc)))
	}
	assertSortedKeys(t, enc)
	var back BreakpointProblem
	if err := json.Unmarshal(enc, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, p) {
		t.Fatalf("decode(encode(x)) != x:\n%+v\n%+v", back, p)
	}
	// The gold patch restores the original file from the corrupted one.
	gold, err := ParsePatch([]byte(p.GoldPatch))
	if err != nil {
		t.Fatal(err)
	}
	fixed, err := gold.Files[0].ApplyBytes(corrupted)
	if err != nil || !bytes.Equal(fixed, src) {
		t.Fatalf("gold patch does not restore the source: %v", err)
	}
	s, err := p.ToSWE()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	if s.Patch != p.GoldPatch || s.BaseCommit != p.Commit || !reflect.DeepEqual([]string(s.FailToPass), []string(p.FailToPass)) {
		t.Fatalf("ToSWE: %+v", s)
	}
	if string(s.Extra["breakpoint_mode"]) != `"discovery"` || string(s.Extra["breakpoint_seed"]) != "42" {
		t.Fatalf("ToSWE extras %s %s", s.Extra["breakpoint_mode"], s.Extra["breakpoint_seed"])
	}

	tests := []struct {
		name  string
		edit  func(*BreakpointProblem)
		field string
	}{
		{"mode", func(b *BreakpointProblem) { b.Mode = "delete" }, "mode"},
		{"repo", func(b *BreakpointProblem) { b.Repo = "" }, "repo"},
		{"no functions", func(b *BreakpointProblem) { b.Functions = nil }, "functions"},
		{"traversal", func(b *BreakpointProblem) {
			b.Functions = []CorruptedFunction{{Path: "../x.py", Name: "f", Line: 1, EndLine: 1}}
		}, "functions[0].path"},
		{"lines", func(b *BreakpointProblem) { b.Functions[0].EndLine = 0 }, "functions[0].line"},
		{"metric", func(b *BreakpointProblem) { b.Functions[0].Metrics = map[string]float64{"pagerank": math.NaN()} }, "functions[0].metrics.pagerank"},
		{"gold not reverse", func(b *BreakpointProblem) { b.GoldPatch = b.CorruptionPatch }, "gold_patch"},
		{"patch elsewhere", func(b *BreakpointProblem) { b.Functions[0].Path = "other.py" }, "corruption_patch"},
		{"message of a passing test", func(b *BreakpointProblem) { b.FailureMessages = map[string]string{"tests/test_b.py::test_z": "x"} }, "failure_messages"},
		{"no F2P", func(b *BreakpointProblem) { b.FailToPass = nil }, "FAIL_TO_PASS"},
		{"not_run with a verdict", func(b *BreakpointProblem) { b.NotRun = TestList{b.FailToPass[0]} }, "not_run[0]"},
		{"not_run empty id", func(b *BreakpointProblem) { b.NotRun = TestList{"tests/x.py::t", " "} }, "not_run[1]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, _, _ := breakpointFixture(t)
			tc.edit(&b)
			err := b.Validate()
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field != tc.field {
				t.Fatalf("error %v, want a *FieldError for %s", err, tc.field)
			}
		})
	}
	b, _, _ := breakpointFixture(t)
	b.Functions[0].Metrics["x"] = math.Inf(1)
	if _, err := json.Marshal(b); err == nil || !strings.Contains(err.Error(), "metrics.x") {
		t.Fatalf("infinite metric encoded: %v", err)
	}
}

// assertSortedKeys checks that the top-level object's keys are in sorted order.
func assertSortedKeys(t *testing.T, data []byte) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	prev := ""
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		k := tok.(string)
		if k < prev {
			t.Fatalf("key %q after %q", k, prev)
		}
		prev = k
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
}

// byteDifference describes where two byte strings first differ.
func byteDifference(got, want []byte) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	lo := max(i-40, 0)
	return fmt.Sprintf("at byte %d: got %q, want %q", i, got[lo:min(i+40, len(got))], want[lo:min(i+40, len(want))])
}

// TestFeatureBenchID checks ids against the ones Python's hashlib and pathlib computed
// (testdata/instances/gen.py).
func TestFeatureBenchID(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "instances", "featurebench_ids.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Repo, Commit, Test, ID string
		Level                  int
	}
	if err := json.Unmarshal(data, &cases); err != nil || len(cases) == 0 {
		t.Fatalf("%d cases: %v", len(cases), err)
	}
	for _, c := range cases {
		got, err := FeatureBenchID(c.Repo, c.Commit, c.Test, c.Level)
		if err != nil || got != c.ID {
			t.Errorf("FeatureBenchID(%q, %q, %q, %d) = %q, %v; want %q", c.Repo, c.Commit, c.Test, c.Level, got, err, c.ID)
		}
	}
	for _, bad := range [][4]any{{"noslash", "abc", "t.py", 1}, {"a/b", "", "t.py", 1}, {"a/b", "abc", "../t.py", 1}, {"a/b", "abc", "t.py", 3}} {
		if _, err := FeatureBenchID(bad[0].(string), bad[1].(string), bad[2].(string), bad[3].(int)); err == nil || !strings.HasPrefix(err.Error(), "task: featurebench id") {
			t.Errorf("FeatureBenchID%v: %v", bad, err)
		}
	}
}
