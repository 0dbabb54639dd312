package task

import (
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
)

// Instance formats. Three record types travel between faultline's producers and the
// benchmarks' harnesses:
//
//   - SWEInstance: a SWE-bench / FeatureBench task instance (instance.json, one line of a
//     dataset's JSONL).
//   - BreakpointProblem: a Breakpoint task record (docs/breakpoint.md, Records).
//   - PDBExample: one PDB program with its ground-truth edits (docs/pdb.md).
//
// All three decode leniently and encode canonically: members the type does not know are
// kept in Extra and written back; every object is written with its keys in sorted order
// (like Python's json.dumps(sort_keys=True)) and without HTML escaping, so equal records
// give byte-identical JSON (write them with EncodeJSON or a JSONLWriter: json.Marshal
// escapes <, > and & as \u003c, \u003e and \u0026). Extra values are kept compacted,
// their own key order unchanged. Decoding errors name the member: *FieldError, which JSONL
// readers report as JSONLError.Field.

// FieldError is an error about one member of a JSON object or one field of a record.
// Field is a path such as "FAIL_TO_PASS" or "functions[2].path".
type FieldError struct {
	Field string
	Err   error
}

func (e *FieldError) Error() string { return "task: field " + e.Field + ": " + e.Err.Error() }

// Unwrap returns the underlying error.
func (e *FieldError) Unwrap() error { return e.Err }

func fieldErr(field string, err error) error {
	var fe *FieldError
	if errors.As(err, &fe) {
		return &FieldError{Field: field + "." + fe.Field, Err: fe.Err}
	}
	return &FieldError{Field: field, Err: err}
}

func fieldErrorf(field, format string, args ...any) error {
	return &FieldError{Field: field, Err: fmt.Errorf(format, args...)}
}

// members is a decoded JSON object whose members are taken one by one; what remains is
// the Extra of the record.
type members map[string]json.RawMessage

func decodeMembers(data []byte, what string) (members, error) {
	var m members
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("task: %s: %w", what, err)
	}
	if m == nil {
		return nil, fmt.Errorf("task: %s: want a JSON object, got null", what)
	}
	return m, nil
}

// take decodes member key into dst (absent and null leave dst as it is) and removes it.
func (m members) take(key string, dst any) error {
	raw, ok := m[key]
	if !ok {
		return nil
	}
	delete(m, key)
	if err := json.Unmarshal(raw, dst); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return fieldErr(key, &FieldError{Field: te.Field, Err: err})
		}
		return fieldErr(key, err)
	}
	return nil
}

// extra returns the remaining members, compacted, or nil.
func (m members) extra() map[string]json.RawMessage {
	if len(m) == 0 {
		return nil
	}
	for k, v := range m {
		var b bytes.Buffer
		if json.Compact(&b, v) == nil { // always valid: it was decoded
			m[k] = b.Bytes()
		}
	}
	return map[string]json.RawMessage(m)
}

// object writes a JSON object with sorted keys and no HTML escaping.
type object struct {
	keys []string
	vals map[string][]byte
	err  error
}

func newObject(extra map[string]json.RawMessage) *object {
	o := &object{vals: map[string][]byte{}}
	for k, v := range extra {
		var b bytes.Buffer
		if err := json.Compact(&b, v); err != nil {
			o.err = fieldErr(k, err)
			continue
		}
		o.set(k, b.Bytes())
	}
	return o
}

func (o *object) set(k string, v []byte) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

// put encodes v as member k.
func (o *object) put(k string, v any) {
	b, err := marshalNoEscape(v)
	if err != nil {
		if o.err == nil {
			o.err = fieldErr(k, err)
		}
		return
	}
	o.set(k, b)
}

// putIf encodes v as member k when keep is true.
func (o *object) putIf(keep bool, k string, v any) {
	if keep {
		o.put(k, v)
	}
}

func (o *object) bytes() ([]byte, error) {
	if o.err != nil {
		return nil, o.err
	}
	sort.Strings(o.keys)
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := marshalNoEscape(k)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(o.vals[k])
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// EncodeJSON returns the compact JSON encoding of v without HTML escaping of <, > and &
// (json.Marshal escapes them in every value, including the output of MarshalJSON
// methods); it is what JSONLWriter writes on each line, without the newline.
func EncodeJSON(v any) ([]byte, error) { return marshalNoEscape(v) }

// marshalNoEscape is json.Marshal without HTML escaping of <, > and &.
func marshalNoEscape(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'}), nil
}

// TestList is a list of test ids. It decodes from a JSON list or from a JSON string that
// holds a JSON list (the form SWE-bench's dataset files use: "[\"test_a\", \"test_b\"]");
// null and the empty string decode to an empty list. It always encodes as a JSON list
// ([] when empty).
type TestList []string

// MarshalJSON encodes the list, [] when empty.
func (l TestList) MarshalJSON() ([]byte, error) {
	if l == nil {
		return []byte("[]"), nil
	}
	return marshalNoEscape([]string(l))
}

// UnmarshalJSON decodes a list or a string holding a list.
func (l *TestList) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '"' {
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return err
		}
		data = []byte(strings.TrimSpace(s))
		if len(data) == 0 {
			*l = TestList{}
			return nil
		}
		if data[0] != '[' {
			return fmt.Errorf("task: test list: string %q does not hold a JSON list", clip(s))
		}
	}
	if bytes.Equal(data, []byte("null")) {
		*l = TestList{}
		return nil
	}
	var ids []string
	if err := json.Unmarshal(data, &ids); err != nil {
		return fmt.Errorf("task: test list: %w", err)
	}
	if ids == nil {
		ids = []string{}
	}
	*l = ids
	return nil
}

// looseString decodes a JSON string, or a number or boolean as its literal text (some
// datasets store "version": 3.0), into a string.
type looseString string

func (s *looseString) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	switch {
	case len(data) > 0 && data[0] == '"':
		var v string
		if err := json.Unmarshal(data, &v); err != nil {
			return err
		}
		*s = looseString(v)
	case bytes.Equal(data, []byte("null")):
	case bytes.Equal(data, []byte("true")), bytes.Equal(data, []byte("false")):
		*s = looseString(data)
	default:
		var n json.Number
		if err := json.Unmarshal(data, &n); err != nil {
			return fmt.Errorf("want a string or a number: %w", err)
		}
		*s = looseString(n.String())
	}
	return nil
}

// jsonText decodes a JSON string holding JSON text, or any other JSON value (stored as
// its compact text).
type jsonText string

func (s *jsonText) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	switch {
	case len(data) > 0 && data[0] == '"':
		var v string
		if err := json.Unmarshal(data, &v); err != nil {
			return err
		}
		*s = jsonText(v)
	case bytes.Equal(data, []byte("null")):
	default:
		var b bytes.Buffer
		if err := json.Compact(&b, data); err != nil {
			return err
		}
		*s = jsonText(b.String())
	}
	return nil
}

// SWEInstance is a SWE-bench / FeatureBench task instance (docs/featurebench.md,
// Pipeline: Instances): the repository and commit, the gold patch, the test patch, the tests
// that must go from failing to passing and those that must keep passing, and the problem
// statement. FeatureBench adds the Docker image, the repository settings (a JSON text)
// and counts of what was removed; nil counts are absent from the JSON.
//
// JSON: every field of the SWE-bench dataset schema (SWEDatasetFields) is always written,
// empty strings included, so a harness that indexes them finds them. FAIL_TO_PASS and
// PASS_TO_PASS are written as lists (AsDataset writes them as JSON-encoded strings, as the
// Hugging Face datasets store them) and read from lists or from JSON strings holding lists;
// repo_settings is written as a JSON string and read from a string or from any JSON value
// (kept as its compact text); version is read from a string or a number. The FeatureBench
// members are omitted when empty; members listed nowhere here are kept in Extra and written
// back. Keys are written in sorted order.
type SWEInstance struct {
	InstanceID             string
	Repo                   string // owner/name
	BaseCommit             string
	Patch                  string // the gold patch (unified diff)
	TestPatch              string // the patch that adds or restores the tests (may be empty)
	ProblemStatement       string
	HintsText              string
	CreatedAt              string
	Version                string
	EnvironmentSetupCommit string
	FailToPass             TestList
	PassToPass             TestList
	ImageName              string
	RepoSettings           string // JSON text

	// FeatureBench counts: removed lines, files and functions, and test points of the
	// F2P and P2P tests.
	Lines, Files, Functions      *int
	F2PTestPoints, P2PTestPoints *int

	// Extra holds the members this type does not know, by key.
	Extra map[string]json.RawMessage
}

// MarshalJSON writes the instance with sorted keys.
func (s SWEInstance) MarshalJSON() ([]byte, error) {
	o := newObject(s.Extra)
	o.put("instance_id", s.InstanceID)
	o.put("repo", s.Repo)
	o.put("base_commit", s.BaseCommit)
	o.put("patch", s.Patch)
	o.put("test_patch", s.TestPatch)
	o.put("problem_statement", s.ProblemStatement)
	o.put("FAIL_TO_PASS", s.FailToPass)
	o.put("PASS_TO_PASS", s.PassToPass)
	o.put("hints_text", s.HintsText)
	o.put("created_at", s.CreatedAt)
	o.put("version", s.Version)
	o.put("environment_setup_commit", s.EnvironmentSetupCommit)
	o.putIf(s.ImageName != "", "image_name", s.ImageName)
	o.putIf(s.RepoSettings != "", "repo_settings", s.RepoSettings)
	o.putIf(s.Lines != nil, "lines", s.Lines)
	o.putIf(s.Files != nil, "files", s.Files)
	o.putIf(s.Functions != nil, "functions", s.Functions)
	o.putIf(s.F2PTestPoints != nil, "f2p_test_points", s.F2PTestPoints)
	o.putIf(s.P2PTestPoints != nil, "p2p_test_points", s.P2PTestPoints)
	return o.bytes()
}

// SWEDatasetFields are the members of the SWE-bench dataset schema (every one a string in
// the Hugging Face datasets), in the datasets' column order.
var SWEDatasetFields = []string{"repo", "instance_id", "base_commit", "patch", "test_patch", "problem_statement",
	"hints_text", "created_at", "version", "FAIL_TO_PASS", "PASS_TO_PASS", "environment_setup_commit"}

// DatasetInstance is an SWEInstance whose JSON is the Hugging Face dataset's form:
// FAIL_TO_PASS and PASS_TO_PASS are strings holding the JSON lists, written the way Python's
// json.dumps writes them (`["a", "b"]`). Readers of SWEInstance accept both forms.
type DatasetInstance struct{ SWEInstance }

// AsDataset returns the instance in the Hugging Face dataset's form (see DatasetInstance).
func (s SWEInstance) AsDataset() DatasetInstance { return DatasetInstance{s} }

// MarshalJSON writes the instance with sorted keys and string-encoded test lists.
func (d DatasetInstance) MarshalJSON() ([]byte, error) {
	b, err := d.SWEInstance.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	extra := map[string]json.RawMessage{}
	for k, v := range m {
		extra[k] = v
	}
	for key, ids := range map[string]TestList{"FAIL_TO_PASS": d.FailToPass, "PASS_TO_PASS": d.PassToPass} {
		text, err := pyDumpsList(ids)
		if err != nil {
			return nil, err
		}
		enc, err := marshalNoEscape(text)
		if err != nil {
			return nil, err
		}
		extra[key] = enc
	}
	return newObject(extra).bytes()
}

// pyDumpsList writes a list of strings as Python's json.dumps does by default: ", "
// between items, and every character outside printable ASCII escaped (\n \r \t \b \f by
// name, the rest as \uXXXX with surrogate pairs).
func pyDumpsList(ids []string) (string, error) {
	var b strings.Builder
	b.WriteByte('[')
	for i, id := range ids {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('"')
		for _, r := range id {
			switch {
			case r == '"' || r == '\\':
				b.WriteByte('\\')
				b.WriteRune(r)
			case r == '\n':
				b.WriteString(`\n`)
			case r == '\r':
				b.WriteString(`\r`)
			case r == '\t':
				b.WriteString(`\t`)
			case r == '\b':
				b.WriteString(`\b`)
			case r == '\f':
				b.WriteString(`\f`)
			case r > 0xFFFF:
				r1, r2 := utf16.EncodeRune(r)
				fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
			case r < 0x20 || r >= 0x7f:
				fmt.Fprintf(&b, `\u%04x`, r)
			default:
				b.WriteRune(r)
			}
		}
		b.WriteByte('"')
	}
	b.WriteByte(']')
	return b.String(), nil
}

// UnmarshalJSON reads an instance; see the type's documentation for the accepted forms.
func (s *SWEInstance) UnmarshalJSON(data []byte) error {
	m, err := decodeMembers(data, "swe instance")
	if err != nil {
		return err
	}
	var v SWEInstance
	var version looseString
	var settings jsonText
	for _, f := range []struct {
		key string
		dst any
	}{
		{"instance_id", &v.InstanceID}, {"repo", &v.Repo}, {"base_commit", &v.BaseCommit},
		{"patch", &v.Patch}, {"test_patch", &v.TestPatch}, {"problem_statement", &v.ProblemStatement},
		{"hints_text", &v.HintsText}, {"created_at", &v.CreatedAt}, {"version", &version},
		{"environment_setup_commit", &v.EnvironmentSetupCommit},
		{"FAIL_TO_PASS", &v.FailToPass}, {"PASS_TO_PASS", &v.PassToPass},
		{"image_name", &v.ImageName}, {"repo_settings", &settings},
		{"lines", &v.Lines}, {"files", &v.Files}, {"functions", &v.Functions},
		{"f2p_test_points", &v.F2PTestPoints}, {"p2p_test_points", &v.P2PTestPoints},
	} {
		if err := m.take(f.key, f.dst); err != nil {
			return err
		}
	}
	v.Version, v.RepoSettings = string(version), string(settings)
	v.Extra = m.extra()
	*s = v
	return nil
}

// Validate checks that the instance can be evaluated: an id, a gold patch that parses and
// has at least one file patch, a test patch that parses (when present), at least one
// FAIL_TO_PASS test, no test id listed twice or in both lists, repo_settings that is
// valid JSON (when present) and non-negative counts. Errors are *FieldError.
func (s *SWEInstance) Validate() error {
	if strings.TrimSpace(s.InstanceID) == "" {
		return fieldErrorf("instance_id", "empty")
	}
	p, err := ParsePatch([]byte(s.Patch))
	if err != nil {
		return fieldErr("patch", err)
	}
	if len(p.Files) == 0 {
		return fieldErrorf("patch", "no file patch")
	}
	if _, err := ParsePatch([]byte(s.TestPatch)); err != nil {
		return fieldErr("test_patch", err)
	}
	if err := checkTests(s.FailToPass, s.PassToPass); err != nil {
		return err
	}
	if s.RepoSettings != "" && !json.Valid([]byte(s.RepoSettings)) {
		return fieldErrorf("repo_settings", "not valid JSON text")
	}
	for _, c := range []struct {
		key string
		n   *int
	}{{"lines", s.Lines}, {"files", s.Files}, {"functions", s.Functions}, {"f2p_test_points", s.F2PTestPoints}, {"p2p_test_points", s.P2PTestPoints}} {
		if c.n != nil && *c.n < 0 {
			return fieldErrorf(c.key, "negative count %d", *c.n)
		}
	}
	return nil
}

// checkTests checks FAIL_TO_PASS / PASS_TO_PASS lists: at least one F2P test, no empty
// id, no duplicate, no test in both.
func checkTests(f2p, p2p []string) error {
	if len(f2p) == 0 {
		return fieldErrorf("FAIL_TO_PASS", "no test")
	}
	seen := map[string]string{}
	for _, l := range []struct {
		key string
		ids []string
	}{{"FAIL_TO_PASS", f2p}, {"PASS_TO_PASS", p2p}} {
		for i, id := range l.ids {
			if strings.TrimSpace(id) == "" {
				return fieldErrorf(fmt.Sprintf("%s[%d]", l.key, i), "empty test id")
			}
			if prev, ok := seen[id]; ok {
				return fieldErrorf(fmt.Sprintf("%s[%d]", l.key, i), "test %q already listed in %s", id, prev)
			}
			seen[id] = l.key
		}
	}
	return nil
}

// Breakpoint modes (docs/breakpoint.md, Corruption modes).
const (
	ModeRemove    = "remove"    // function bodies replaced by stubs
	ModeDiscovery = "discovery" // subtle adversarial corruption
)

// CorruptedFunction is one function a Breakpoint problem corrupted: its path relative to
// the repository root, its qualified name, its definition's byte span and 1-based lines
// in the original file, and named difficulty metrics (e.g. "code_lines", "cyclomatic",
// "harmonic_centrality", "betweenness", "pagerank", "degree"; callgraph defines them).
type CorruptedFunction struct {
	Path    string             `json:"path"`
	Name    string             `json:"name"`
	Span    Span               `json:"span"`
	Line    int                `json:"line"`
	EndLine int                `json:"end_line"`
	Metrics map[string]float64 `json:"metrics,omitempty"`
}

// BreakpointProblem is a Breakpoint task record (docs/breakpoint.md, Records): the
// repository and commit, the mode, the corrupted functions, the corruption patch (clean →
// corrupted) and the gold patch (corrupted → clean, its reverse), what produced the
// corruption (a rule-based operator or an LLM model) and the seed, the tests that fail
// because of it and those that still pass, and the failing tests' messages (truncated).
//
// JSON keys are written in sorted order; members this type does not know are kept in
// Extra. FailureMessages is written with sorted keys.
type BreakpointProblem struct {
	ID              string              `json:"id"`
	Repo            string              `json:"repo"`
	Commit          string              `json:"commit,omitempty"` // absent when the repository was not a git checkout
	Mode            string              `json:"mode"`
	Functions       []CorruptedFunction `json:"functions"`
	CorruptionPatch string              `json:"corruption_patch"`
	GoldPatch       string              `json:"gold_patch"`
	Rule            string              `json:"rule,omitempty"`  // rule-based operator name(s)
	Model           string              `json:"model,omitempty"` // LLM that wrote the corruption
	Seed            uint64              `json:"seed"`
	FailToPass      TestList            `json:"FAIL_TO_PASS"`
	PassToPass      TestList            `json:"PASS_TO_PASS"`
	// NotRun lists the baseline-passing tests that got no verdict of their own on the
	// corrupted tree (their test binary or interpreter kept ending before they ran): in
	// neither FAIL_TO_PASS nor PASS_TO_PASS, never counted as failing. Absent when every
	// test ran.
	NotRun TestList `json:"not_run,omitempty"`
	// OnlyWithOthers lists the tests that failed on the corrupted tree with the rest of the
	// suite but passed when run alone there (state the corruption leaks between tests): in
	// no other list either. Absent when there is none.
	OnlyWithOthers   TestList          `json:"only_with_others,omitempty"`
	FailureMessages  map[string]string `json:"failure_messages,omitempty"`
	ProblemStatement string            `json:"problem_statement,omitempty"`

	Extra map[string]json.RawMessage `json:"-"`
}

// breakpointFields is BreakpointProblem without methods, for the default codec.
type breakpointFields BreakpointProblem

// MarshalJSON writes the problem with sorted keys.
func (b BreakpointProblem) MarshalJSON() ([]byte, error) {
	if b.Functions == nil {
		b.Functions = []CorruptedFunction{}
	}
	for i, f := range b.Functions {
		for k, v := range f.Metrics {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fieldErrorf(fmt.Sprintf("functions[%d].metrics.%s", i, k), "%v is not representable in JSON", v)
			}
		}
	}
	known, err := marshalNoEscape(breakpointFields(b))
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(known, &m); err != nil {
		return nil, err
	}
	o := newObject(b.Extra)
	for k, v := range m {
		o.set(k, v)
	}
	return o.bytes()
}

// UnmarshalJSON reads a problem; unknown members go to Extra.
func (b *BreakpointProblem) UnmarshalJSON(data []byte) error {
	m, err := decodeMembers(data, "breakpoint problem")
	if err != nil {
		return err
	}
	var v breakpointFields
	for _, f := range []struct {
		key string
		dst any
	}{
		{"id", &v.ID}, {"repo", &v.Repo}, {"commit", &v.Commit}, {"mode", &v.Mode},
		{"functions", &v.Functions}, {"corruption_patch", &v.CorruptionPatch}, {"gold_patch", &v.GoldPatch},
		{"rule", &v.Rule}, {"model", &v.Model}, {"seed", &v.Seed},
		{"FAIL_TO_PASS", &v.FailToPass}, {"PASS_TO_PASS", &v.PassToPass}, {"not_run", &v.NotRun},
		{"only_with_others", &v.OnlyWithOthers},
		{"failure_messages", &v.FailureMessages}, {"problem_statement", &v.ProblemStatement},
	} {
		if err := m.take(f.key, f.dst); err != nil {
			return err
		}
	}
	v.Extra = m.extra()
	*b = BreakpointProblem(v)
	return nil
}

// Validate checks the record: repository present (the commit may be absent: a directory
// that is not a git checkout has none), a known mode, at least one
// corrupted function with a safe relative path, a name, an ordered span and lines, finite
// metrics; a corruption patch that parses, touches only files of corrupted functions and
// whose reverse is the gold patch (same files, added and removed lines swapped); tests as
// SWEInstance.Validate checks them; not_run and only_with_others tests in no other list; failure messages only
// for FAIL_TO_PASS tests.
// Errors are *FieldError.
func (b *BreakpointProblem) Validate() error {
	if b.Repo == "" {
		return fieldErrorf("repo", "empty")
	}
	if b.Mode != ModeRemove && b.Mode != ModeDiscovery {
		return fieldErrorf("mode", "%q is neither %q nor %q", b.Mode, ModeRemove, ModeDiscovery)
	}
	if len(b.Functions) == 0 {
		return fieldErrorf("functions", "no corrupted function")
	}
	paths := map[string]bool{}
	for i, f := range b.Functions {
		key := fmt.Sprintf("functions[%d]", i)
		c, err := CleanRelPath(f.Path)
		if err != nil {
			return fieldErr(key+".path", err)
		}
		paths[c] = true
		if f.Name == "" {
			return fieldErrorf(key+".name", "empty")
		}
		if f.Span.Start < 0 || f.Span.End < f.Span.Start {
			return fieldErrorf(key+".span", "bad span [%d,%d)", f.Span.Start, f.Span.End)
		}
		if f.Line < 1 || f.EndLine < f.Line {
			return fieldErrorf(key+".line", "bad lines %d-%d", f.Line, f.EndLine)
		}
		for _, k := range sortedKeys(f.Metrics) {
			if v := f.Metrics[k]; math.IsNaN(v) || math.IsInf(v, 0) {
				return fieldErrorf(key+".metrics."+k, "not finite: %v", v)
			}
		}
	}
	corr, err := ParsePatch([]byte(b.CorruptionPatch))
	if err != nil {
		return fieldErr("corruption_patch", err)
	}
	if len(corr.Files) == 0 {
		return fieldErrorf("corruption_patch", "no file patch")
	}
	for _, f := range corr.Files {
		if c, err := CleanRelPath(f.Path()); err != nil || !paths[c] {
			return fieldErrorf("corruption_patch", "changes %s, which holds no corrupted function", f.Path())
		}
	}
	gold, err := ParsePatch([]byte(b.GoldPatch))
	if err != nil {
		return fieldErr("gold_patch", err)
	}
	if !reversePatches(corr, gold) {
		return fieldErrorf("gold_patch", "is not the reverse of corruption_patch")
	}
	if err := checkTests(b.FailToPass, b.PassToPass); err != nil {
		return err
	}
	f2p := map[string]bool{}
	for _, id := range b.FailToPass {
		f2p[id] = true
	}
	decided := map[string]bool{}
	for _, id := range append(append([]string(nil), b.FailToPass...), b.PassToPass...) {
		decided[id] = true
	}
	for _, l := range []struct {
		key string
		ids TestList
	}{{"not_run", b.NotRun}, {"only_with_others", b.OnlyWithOthers}} {
		for i, id := range l.ids {
			if strings.TrimSpace(id) == "" || decided[id] {
				return fieldErrorf(fmt.Sprintf("%s[%d]", l.key, i), "%q is empty or already listed", id)
			}
			decided[id] = true
		}
	}
	for _, id := range sortedKeys(b.FailureMessages) {
		if !f2p[id] {
			return fieldErrorf("failure_messages", "message for %q, which is not a FAIL_TO_PASS test", id)
		}
	}
	return nil
}

// reversePatches reports whether b undoes a: per file, the same paths swapped and, hunk
// by hunk, the same ranges swapped and the same lines with added and removed swapped
// (the order of lines within a run of changes may differ).
func reversePatches(a, b *Patch) bool {
	r := a.Reverse()
	if len(r.Files) != len(b.Files) {
		return false
	}
	for i := range r.Files {
		x, y := &r.Files[i], &b.Files[i]
		if x.OldPath != y.OldPath || x.NewPath != y.NewPath || x.Created != y.Created || x.Deleted != y.Deleted || len(x.Hunks) != len(y.Hunks) {
			return false
		}
		for j := range x.Hunks {
			hx, hy := x.Hunks[j], y.Hunks[j]
			if hx.OldStart != hy.OldStart || hx.OldLines != hy.OldLines || hx.NewStart != hy.NewStart || hx.NewLines != hy.NewLines {
				return false
			}
			if !sameSides(hx, hy) {
				return false
			}
		}
	}
	return true
}

// sameSides reports whether two hunks have the same old side and the same new side.
func sameSides(a, b Hunk) bool {
	side := func(h Hunk, skip byte) []HunkLine {
		var out []HunkLine
		for _, l := range h.Lines {
			if l.Op != skip {
				out = append(out, HunkLine{Text: l.Text, NoNewline: l.NoNewline})
			}
		}
		return out
	}
	eq := func(x, y []HunkLine) bool {
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if x[i] != y[i] {
				return false
			}
		}
		return true
	}
	return eq(side(a, '+'), side(b, '+')) && eq(side(a, '-'), side(b, '-'))
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// ToSWE converts the problem to a SWE-bench-style instance: instance_id = ID, patch =
// the gold patch, base_commit = Commit, FAIL_TO_PASS / PASS_TO_PASS and the problem
// statement. The tests are unchanged by a Breakpoint corruption, so test_patch is empty.
// The Breakpoint specifics (mode, rule, model, seed, corrupted functions) go to Extra
// under "breakpoint_" keys so that nothing is lost.
func (b *BreakpointProblem) ToSWE() (*SWEInstance, error) {
	s := &SWEInstance{
		InstanceID:       b.ID,
		Repo:             b.Repo,
		BaseCommit:       b.Commit,
		Patch:            b.GoldPatch,
		ProblemStatement: b.ProblemStatement,
		FailToPass:       append(TestList{}, b.FailToPass...),
		PassToPass:       append(TestList{}, b.PassToPass...),
		Extra:            map[string]json.RawMessage{},
	}
	for _, x := range []struct {
		key string
		v   any
	}{
		{"breakpoint_mode", b.Mode}, {"breakpoint_rule", b.Rule}, {"breakpoint_model", b.Model},
		{"breakpoint_seed", b.Seed}, {"breakpoint_functions", b.Functions},
		{"breakpoint_corruption_patch", b.CorruptionPatch},
	} {
		raw, err := marshalNoEscape(x.v)
		if err != nil {
			return nil, fieldErr(x.key, err)
		}
		s.Extra[x.key] = raw
	}
	for _, l := range []struct {
		key string
		ids TestList
	}{{"not_run", b.NotRun}, {"only_with_others", b.OnlyWithOthers}} {
		if len(l.ids) == 0 {
			continue
		}
		raw, err := marshalNoEscape(l.ids)
		if err != nil {
			return nil, fieldErr(l.key, err)
		}
		s.Extra["breakpoint_"+l.key] = raw
	}
	return s, nil
}

// DebugResult is one model's debugging attempt in a PDB prediction file: the repaired
// program (Solution) and whatever else the harness recorded (Extra).
type DebugResult struct {
	Solution string
	Extra    map[string]json.RawMessage
}

// MarshalJSON writes the result with sorted keys.
func (d DebugResult) MarshalJSON() ([]byte, error) {
	o := newObject(d.Extra)
	o.put("solution", d.Solution)
	return o.bytes()
}

// UnmarshalJSON reads a result; unknown members go to Extra.
func (d *DebugResult) UnmarshalJSON(data []byte) error {
	m, err := decodeMembers(data, "debug result")
	if err != nil {
		return err
	}
	var v DebugResult
	if err := m.take("solution", &v.Solution); err != nil {
		return err
	}
	v.Extra = m.extra()
	*d = v
	return nil
}

// PDBExample is one PDB program (docs/pdb.md), in the record format of the PDB release's
// *_pdb_*.json files (a JSON array of such objects) and of its evaluator's prediction
// records (the same object with debug_results and round added): the buggy program, the
// ground-truth solution and the ground-truth edits turning one into the other (GTDiff,
// the edit model's gt_diff), the number of bugs composed into it, the problem statement a
// debugger is given (task_prompt), the model or tool that generated the bugs
// (source_model), for a single bug its ODC category and sub-category (bug_type,
// bug_subtype), where the task came from (Source, e.g. a benchmark name); in prediction
// files also the model's attempts (DebugResults).
//
// JSON: task_id is read from a string or a number; gt_diff is read in the object or
// JSON-string form (see Edits.UnmarshalJSON) and written as an object; debug_results is
// read from a single object or a list and written back in the same form; bug_type and
// bug_subtype are read when they are strings (other values stay in Extra), bug_type also
// from "category" (the name earlier versions of this package wrote). Unknown members
// (the release's frozen_lines, gt_length, editable_lines, deletable_lines, is_buggy,
// round, …) are kept in Extra; keys are written in sorted order.
type PDBExample struct {
	TaskID       string
	BuggyCode    string
	GTSolution   string
	GTDiff       Edits
	BugCount     int
	TaskPrompt   string
	SourceModel  string
	BugType      string
	BugSubtype   string
	Source       string
	DebugResults []DebugResult

	// Extra holds the members this type does not know, by key.
	Extra map[string]json.RawMessage

	singleResult bool // debug_results was a single object
}

// MarshalJSON writes the example with sorted keys.
func (p PDBExample) MarshalJSON() ([]byte, error) {
	o := newObject(p.Extra)
	o.put("task_id", p.TaskID)
	o.put("buggy_code", p.BuggyCode)
	o.put("gt_solution", p.GTSolution)
	gt := p.GTDiff
	if gt == nil {
		gt = Edits{}
	}
	o.put("gt_diff", gt)
	o.put("bug_count", p.BugCount)
	o.putIf(p.TaskPrompt != "", "task_prompt", p.TaskPrompt)
	o.putIf(p.SourceModel != "", "source_model", p.SourceModel)
	o.putIf(p.BugType != "", "bug_type", p.BugType)
	o.putIf(p.BugSubtype != "", "bug_subtype", p.BugSubtype)
	o.putIf(p.Source != "", "source", p.Source)
	switch {
	case p.singleResult && len(p.DebugResults) == 1:
		o.put("debug_results", p.DebugResults[0])
	case p.DebugResults != nil:
		o.put("debug_results", p.DebugResults)
	}
	return o.bytes()
}

// UnmarshalJSON reads an example; see the type's documentation for the accepted forms.
func (p *PDBExample) UnmarshalJSON(data []byte) error {
	m, err := decodeMembers(data, "pdb example")
	if err != nil {
		return err
	}
	var v PDBExample
	var id looseString
	for _, f := range []struct {
		key string
		dst any
	}{
		{"task_id", &id}, {"buggy_code", &v.BuggyCode}, {"gt_solution", &v.GTSolution},
		{"gt_diff", &v.GTDiff}, {"bug_count", &v.BugCount}, {"task_prompt", &v.TaskPrompt},
		{"source_model", &v.SourceModel}, {"source", &v.Source},
	} {
		if err := m.take(f.key, f.dst); err != nil {
			return err
		}
	}
	// The labels are strings in the release's files; its generator's intermediate files
	// hold lists. Anything but a string stays in Extra.
	for _, f := range []struct {
		key string
		dst *string
	}{{"bug_type", &v.BugType}, {"bug_subtype", &v.BugSubtype}, {"category", &v.BugType}} {
		var s string
		if raw, ok := m[f.key]; ok && *f.dst == "" && json.Unmarshal(raw, &s) == nil && s != "" {
			*f.dst = s
			delete(m, f.key)
		}
	}
	v.TaskID = string(id)
	if raw, ok := m["debug_results"]; ok {
		raw = bytes.TrimSpace(raw)
		if len(raw) > 0 && raw[0] == '{' {
			var one DebugResult
			if err := m.take("debug_results", &one); err != nil {
				return err
			}
			v.DebugResults, v.singleResult = []DebugResult{one}, true
		} else if err := m.take("debug_results", &v.DebugResults); err != nil {
			return err
		}
	}
	v.Extra = m.extra()
	*p = v
	return nil
}

// Solution returns the first debug result's solution and whether there is one: the
// prediction to score.
func (p *PDBExample) Solution() (string, bool) {
	if len(p.DebugResults) == 0 {
		return "", false
	}
	return p.DebugResults[0].Solution, true
}

// Validate checks the example: a task id and buggy code; gt_diff applies to the buggy
// code with every edit in range (ApplyStrict) and gives the ground-truth solution (as the
// edit model compares programs: Normalize); bug_count, when set, equals the number of
// edit blocks of gt_diff. Errors are *FieldError.
func (p *PDBExample) Validate() error {
	if strings.TrimSpace(p.TaskID) == "" {
		return fieldErrorf("task_id", "empty")
	}
	if p.BuggyCode == "" {
		return fieldErrorf("buggy_code", "empty")
	}
	if p.BugCount < 0 {
		return fieldErrorf("bug_count", "negative: %d", p.BugCount)
	}
	got, err := ApplyStrict(p.BuggyCode, p.GTDiff)
	if err != nil {
		return fieldErr("gt_diff", err)
	}
	if got != Normalize(p.GTSolution) {
		return fieldErrorf("gt_diff", "does not turn buggy_code into gt_solution (%s)", firstLineDiff(got, Normalize(p.GTSolution)))
	}
	if n := len(Blocks(p.GTDiff)); p.BugCount > 0 && n != p.BugCount {
		return fieldErrorf("bug_count", "is %d but gt_diff has %d edit blocks", p.BugCount, n)
	}
	return nil
}

func firstLineDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) && i < len(bl); i++ {
		if al[i] != bl[i] {
			return "line " + strconv.Itoa(i+1) + ": " + strconv.Quote(clip(al[i])) + " vs " + strconv.Quote(clip(bl[i]))
		}
	}
	return fmt.Sprintf("%d lines vs %d", len(al), len(bl))
}

// FeatureBenchID returns a FeatureBench instance id (docs/featurebench.md, Pipeline:
// Instances):
// `{owner}__{repo}.{commit8}.{test_stem}.{hash8}.lv{level}`, where commit8 is the first 8
// characters of the commit, test_stem the test file's base name without its last
// extension and hash8 the first 8 hex digits of the MD5 of the test file's slash path
// relative to the repository root, as the reference's case converter computes it.
func FeatureBenchID(repo, commit, testFile string, level int) (string, error) {
	owner, name, ok := strings.Cut(repo, "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		return "", fmt.Errorf("task: featurebench id: repository %q is not owner/name", repo)
	}
	if commit == "" {
		return "", fmt.Errorf("task: featurebench id: empty commit")
	}
	if level != 1 && level != 2 {
		return "", fmt.Errorf("task: featurebench id: level %d is neither 1 nor 2", level)
	}
	rel, err := CleanRelPath(testFile)
	if err != nil {
		return "", fmt.Errorf("task: featurebench id: %w", err)
	}
	stem := path.Base(rel)
	if i := strings.LastIndexByte(stem, '.'); 0 < i && i < len(stem)-1 { // pathlib's suffix rule
		stem = stem[:i]
	}
	sum := md5.Sum([]byte(rel))
	return fmt.Sprintf("%s__%s.%s.%s.%s.lv%d", owner, name, commit[:min(8, len(commit))], stem, hex.EncodeToString(sum[:])[:8], level), nil
}
