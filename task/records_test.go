package task

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

type rec struct {
	ID string `json:"id"`
	N  int    `json:"n"`
}

func readAll(t *testing.T, in string) ([]int, []rec, error) {
	t.Helper()
	var lines []int
	var out []rec
	err := ReadRecords(strings.NewReader(in), func(line int, v rec) error {
		lines = append(lines, line)
		out = append(out, v)
		return nil
	})
	return lines, out, err
}

// TestReadRecords reads both forms, with the line on which each value starts, and names
// the line of every error.
func TestReadRecords(t *testing.T) {
	// An array as json.dump(indent=2) writes it (the PDB release's form), after a BOM and
	// blank lines.
	arr := "\xef\xbb\xbf\n\n[\n  {\n    \"id\": \"a\",\n    \"n\": 1\n  },\n  {\n    \"id\": \"b\", \"n\": 2\n  }\n]\n"
	lines, got, err := readAll(t, arr)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(lines, []int{4, 8}) || !reflect.DeepEqual(got, []rec{{"a", 1}, {"b", 2}}) {
		t.Errorf("array: lines %v, records %v", lines, got)
	}
	// Compact, one line.
	lines, got, err = readAll(t, `[{"id":"a","n":1},{"id":"b","n":2}]`)
	if err != nil || !reflect.DeepEqual(lines, []int{1, 1}) || len(got) != 2 {
		t.Errorf("compact array: %v %v %v", lines, got, err)
	}
	// JSON Lines.
	lines, got, err = readAll(t, "{\"id\":\"a\",\"n\":1}\r\n\n{\"id\":\"b\",\"n\":2}")
	if err != nil || !reflect.DeepEqual(lines, []int{1, 3}) || len(got) != 2 {
		t.Errorf("jsonl: %v %v %v", lines, got, err)
	}
	// Empty inputs hold no records.
	for _, in := range []string{"", "\n \n", "[]", " [\n]\n"} {
		if lines, _, err := readAll(t, in); err != nil || len(lines) != 0 {
			t.Errorf("%q: %v %v", in, lines, err)
		}
	}
	// A blank prefix longer than the read buffer.
	long := strings.Repeat("\n", 70<<10) + `[{"id":"z"}]`
	if lines, got, err := readAll(t, long); err != nil || len(got) != 1 || lines[0] != 70<<10+1 {
		t.Errorf("long blank prefix: %v %v", lines, err)
	}

	bad := []struct {
		name, in string
		line     int
		field    string
	}{
		{"wrong type", "[\n  {\"id\": \"a\"},\n  {\"id\": 7}\n]", 3, "id"},
		{"truncated element", "[\n  {\"id\": \"a\"},\n  {\"id\": \n", 4, ""},
		{"missing comma", "[\n  {\"id\": \"a\"}\n  {\"id\": \"b\"}\n]", 3, ""},
		{"no closing bracket", "[\n  {\"id\": \"a\"}\n", 3, ""},
		{"data after", "[{\"id\": \"a\"}]\n\n{}", 3, ""},
		{"jsonl truncated", "{\"id\": \"a\"}\n{\"id\": ", 2, ""},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := readAll(t, c.in)
			var je *JSONLError
			if !errors.As(err, &je) {
				t.Fatalf("error %v is not a *JSONLError", err)
			}
			if je.Line != c.line || je.Field != c.field {
				t.Errorf("line %d field %q, want %d %q (%v)", je.Line, je.Field, c.line, c.field, err)
			}
		})
	}
	// An error from fn carries the line.
	stop := errors.New("stop")
	err = ReadRecords(strings.NewReader(arr), func(line int, v rec) error {
		if v.ID == "b" {
			return stop
		}
		return nil
	})
	var je *JSONLError
	if !errors.Is(err, stop) || !errors.As(err, &je) || je.Line != 8 {
		t.Errorf("fn error: %v", err)
	}
}

// FuzzReadRecords: the array and the JSON Lines form of the same records read back the
// same values, and each array element's line is the line its text starts on.
func FuzzReadRecords(f *testing.F) {
	f.Add("a\nb", 3, true)
	f.Add("", 0, false)
	f.Add("x\"y\\z", 9, true)
	f.Fuzz(func(t *testing.T, ids string, n int, indent bool) {
		var want []rec
		for i, id := range strings.Split(ids, "\n") {
			want = append(want, rec{id, n + i})
		}
		var arr []byte
		var err error
		if indent {
			arr, err = json.MarshalIndent(want, "", "  ")
		} else {
			arr, err = json.Marshal(want)
		}
		if err != nil {
			t.Skip()
		}
		var jl bytes.Buffer
		if err := WriteJSONL(&jl, want); err != nil {
			t.Fatal(err)
		}
		lines, got, err := readAll(t, string(arr))
		if err != nil {
			t.Fatal(err)
		}
		_, got2, err := readAll(t, jl.String())
		if err != nil {
			t.Fatal(err)
		}
		// Round trip through JSON (invalid UTF-8 becomes U+FFFD).
		var norm []rec
		json.Unmarshal(arr, &norm)
		if !reflect.DeepEqual(got, norm) || !reflect.DeepEqual(got2, norm) {
			t.Fatalf("array %v, jsonl %v, want %v", got, got2, norm)
		}
		text := string(arr)
		for i, l := range lines {
			// The i-th occurrence of an element opening brace is on that line.
			at := -1
			for k := 0; k <= i; k++ {
				at++
				next := strings.Index(text[at:], `{"id":`)
				if indent {
					next = strings.Index(text[at:], "{\n")
				}
				at += next
			}
			if strings.Count(text[:at], "\n")+1 != l {
				t.Fatalf("element %d: line %d, text starts on %d", i, l, strings.Count(text[:at], "\n")+1)
			}
		}
	})
}
