package task

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

func TestReadJSONLLinesAndErrors(t *testing.T) {
	long := strings.Repeat("x", 3<<20) // far beyond bufio.Scanner's 64 KiB token limit
	in := "\xef\xbb\xbf{\"instance_id\":\"a\",\"FAIL_TO_PASS\":[\"t\"]}\r\n" +
		"\n   \t\n" +
		"{\"instance_id\":\"b\",\"problem_statement\":\"" + long + "\"}\n" +
		"{\"instance_id\":\"c\"}" // no final newline
	var got []string
	var lines []int
	err := ReadJSONL(iotest.HalfReader(strings.NewReader(in)), func(line int, s SWEInstance) error {
		got = append(got, s.InstanceID)
		lines = append(lines, line)
		if s.InstanceID == "b" && len(s.ProblemStatement) != len(long) {
			t.Errorf("long line truncated to %d bytes", len(s.ProblemStatement))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, []string{"a", "b", "c"}) || !reflect.DeepEqual(lines, []int{1, 4, 5}) {
		t.Fatalf("got %v at lines %v", got, lines)
	}

	tests := []struct {
		name  string
		in    string
		line  int
		field string
		msg   string
	}{
		{"type error in a member", "{}\n\n{\"instance_id\":\"x\",\"FAIL_TO_PASS\":5}\n", 3, "FAIL_TO_PASS",
			"task: jsonl line 3: field FAIL_TO_PASS: task: test list: json: cannot unmarshal number"},
		{"syntax error", "{}\n{\"instance_id\": \"x\",, }\n", 2, "",
			"task: jsonl line 2: offset 21: invalid character ',' looking for beginning of object key"},
		{"two values on a line", "{} {}\n", 1, "", "invalid character '{' after top-level value"},
		{"not an object", "[1]\n", 1, "", "cannot unmarshal array"},
		{"nested field", "{\"id\":\"p\",\"functions\":[{\"path\":3}]}\n", 1, "functions.path", "field functions.path"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			if strings.Contains(tc.in, "functions") {
				err = ReadJSONL(strings.NewReader(tc.in), func(int, BreakpointProblem) error { return nil })
			} else {
				err = ReadJSONL(strings.NewReader(tc.in), func(int, SWEInstance) error { return nil })
			}
			var je *JSONLError
			if !errors.As(err, &je) {
				t.Fatalf("error %v (%T), want *JSONLError", err, err)
			}
			if je.Line != tc.line || je.Field != tc.field || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("got line %d field %q: %v", je.Line, je.Field, err)
			}
		})
	}

	// An error from the callback stops the read and keeps its identity.
	stop := errors.New("stop here")
	n := 0
	err = ReadJSONL(strings.NewReader("1\n2\n3\n"), func(line int, v int) error {
		n++
		if v == 2 {
			return stop
		}
		return nil
	})
	var je *JSONLError
	if !errors.Is(err, stop) || !errors.As(err, &je) || je.Line != 2 || n != 2 {
		t.Fatalf("callback error: %v after %d calls", err, n)
	}
	// A read error is reported, not mistaken for the end.
	err = ReadJSONL(iotest.TimeoutReader(strings.NewReader("1\n2\n")), func(int, int) error { return nil })
	if !errors.Is(err, iotest.ErrTimeout) {
		t.Fatalf("read error: %v", err)
	}
}

func TestJSONLWriterRoundTrip(t *testing.T) {
	n := 3
	recs := []SWEInstance{
		{InstanceID: "a<b>&c", Patch: "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-x\n+y\n", FailToPass: TestList{"t"}, Files: &n,
			Extra: map[string]json.RawMessage{"z": json.RawMessage(`{"q": [1, 2]}`), "aa": json.RawMessage(`"\u2028"`)}},
		{InstanceID: "é", ProblemStatement: "line1\nline2\ttab"},
	}
	var buf bytes.Buffer
	w := NewJSONLWriter(&buf)
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if w.Count() != 2 || strings.Count(buf.String(), "\n") != 2 {
		t.Fatalf("%d records, output %q", w.Count(), buf.String())
	}
	first := strings.SplitN(buf.String(), "\n", 2)[0]
	want := `{"FAIL_TO_PASS":["t"],"PASS_TO_PASS":[],"aa":"\u2028","base_commit":"","created_at":"","environment_setup_commit":"","files":3,"hints_text":"","instance_id":"a<b>&c","patch":"--- a/f\n+++ b/f\n@@ -1 +1 @@\n-x\n+y\n","problem_statement":"","repo":"","test_patch":"","version":"","z":{"q":[1,2]}}`
	if first != want {
		t.Fatalf("line 1:\n got %s\nwant %s", first, want)
	}
	back, err := ReadAllJSONL[SWEInstance](&buf)
	if err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	if err := WriteJSONL(&again, back); err != nil {
		t.Fatal(err)
	}
	var once bytes.Buffer
	if err := WriteJSONL(&once, recs); err != nil {
		t.Fatal(err)
	}
	if again.String() != once.String() {
		t.Fatalf("write(read(write(x))) != write(x):\n%s\n%s", again.String(), once.String())
	}
	// Maps are written with sorted keys, whatever their iteration order.
	var m bytes.Buffer
	if err := WriteJSONL(&m, []map[string]int{{"b": 1, "a": 2, "c": 3}}); err != nil || m.String() != "{\"a\":2,\"b\":1,\"c\":3}\n" {
		t.Fatalf("map line %q: %v", m.String(), err)
	}
	// An unencodable value is an error naming the record.
	err = NewJSONLWriter(io.Discard).Write(func() {})
	if err == nil || !strings.Contains(err.Error(), "task: jsonl record 1") {
		t.Fatalf("unencodable: %v", err)
	}
	err = NewJSONLWriter(errWriter{}).Write(1)
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("write error: %v", err)
	}
}

type errWriter struct{}

func (errWriter) Write([]byte) (int, error) { return 0, fmt.Errorf("disk full") }

// FuzzReadJSONL feeds arbitrary bytes to the JSONL reader of each record type: it must not
// panic, must report *JSONLError with a positive line, and whatever decodes must encode to
// a fixed point (encode(decode(encode(x))) == encode(x)).
func FuzzReadJSONL(f *testing.F) {
	f.Add([]byte("{\"instance_id\":\"a\",\"FAIL_TO_PASS\":\"[\\\"t\\\"]\",\"x\":{\"b\":1}}\n\n{\"version\":3.10}"))
	f.Add([]byte("{\"task_id\":7,\"gt_diff\":\"{\\\"3\\\":{\\\"type\\\":\\\"add\\\",\\\"original\\\":\\\"\\\",\\\"modified\\\":\\\"x\\\"}}\",\"debug_results\":{\"solution\":\"s\"}}\r\n"))
	f.Add([]byte("{\"id\":\"p\",\"functions\":[{\"path\":\"a.py\",\"name\":\"f\",\"span\":{\"start\":0,\"end\":3},\"metrics\":{\"h\":0.5}}],\"seed\":-1}\n"))
	f.Add([]byte("{\"repo_settings\":{\"a\":[1,2]},\"lines\":null}\n{}\n"))
	f.Add([]byte("{,}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzJSONL[SWEInstance](t, data)
		fuzzJSONL[PDBExample](t, data)
		fuzzJSONL[BreakpointProblem](t, data)
	})
}

func fuzzJSONL[T any](t *testing.T, data []byte) {
	var vals []T
	err := ReadJSONL(bytes.NewReader(data), func(line int, v T) error {
		if line < 1 {
			t.Fatalf("line %d", line)
		}
		vals = append(vals, v)
		return nil
	})
	if err != nil {
		var je *JSONLError
		if !errors.As(err, &je) || je.Line < 1 {
			t.Fatalf("error %v (%T) is not a *JSONLError with a line", err, err)
		}
	}
	for _, v := range vals {
		enc, err := EncodeJSON(v)
		if err != nil {
			continue // e.g. gt_diff with duplicate keys or a NaN cannot be written; that is reported
		}
		var back T
		if err := json.Unmarshal(enc, &back); err != nil {
			t.Fatalf("%T: own encoding does not decode: %v\n%s", v, err, enc)
		}
		enc2, err := EncodeJSON(back)
		if err != nil || !bytes.Equal(enc, enc2) {
			t.Fatalf("%T: encoding is not a fixed point: %v\n%s\n%s", v, err, enc, enc2)
		}
	}
}
