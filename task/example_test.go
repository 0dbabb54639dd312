package task_test

import (
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/faultline-dev/faultline/task"
)

// A patch is computed with DiffText, printed in git's format, parsed back and applied to
// an in-memory tree (Apply never writes); its reverse restores the original.
func Example() {
	old := []byte("def area(w, h):\n    return w * h\n")
	broken := []byte("def area(w, h):\n    return w + h\n")

	corruption := task.Patch{Files: []task.FilePatch{task.DiffText("geom.py", "geom.py", old, broken, 3)}}
	fmt.Print(corruption.String())

	p, err := task.ParsePatch(corruption.Format())
	if err != nil {
		panic(err)
	}
	tree := map[string][]byte{"geom.py": old}
	read := func(path string) ([]byte, error) {
		if data, ok := tree[path]; ok {
			return data, nil
		}
		return nil, fs.ErrNotExist
	}
	o, err := p.Apply(read)
	if err != nil {
		panic(err)
	}
	fmt.Printf("applied: %q\n", o["geom.py"].Data)

	tree["geom.py"] = o["geom.py"].Data
	gold, err := p.Reverse().Apply(read)
	if err != nil {
		panic(err)
	}
	fmt.Printf("restored: %v\n", string(gold["geom.py"].Data) == string(old))
	// Output:
	// diff --git a/geom.py b/geom.py
	// --- a/geom.py
	// +++ b/geom.py
	// @@ -1,2 +1,2 @@
	//  def area(w, h):
	// -    return w * h
	// +    return w + h
	// applied: "def area(w, h):\n    return w + h\n"
	// restored: true
}

// A hunk that does not match names the file and the hunk.
func ExamplePatch_Apply_error() {
	p, _ := task.ParsePatch([]byte("--- a/f.py\n+++ b/f.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n"))
	_, err := p.Apply(func(string) ([]byte, error) { return []byte("x = 3\n"), nil })
	fmt.Println(err)
	// Output:
	// task: patch: f.py: hunk 1 (@@ -1 +1 @@): does not apply: context differs at line 1: expected "x = 1\n", found "x = 3\n" (and no match elsewhere)
}

// SWE-bench stores test lists as JSON strings; they are read as lists and written as
// lists, with sorted keys and unknown members kept.
func ExampleReadJSONL() {
	in := `{"instance_id": "a__b-1", "FAIL_TO_PASS": "[\"test_x\"]", "PASS_TO_PASS": "[]", "patch": "", "custom": 1}
`
	w := task.NewJSONLWriter(os.Stdout)
	err := task.ReadJSONL(strings.NewReader(in), func(line int, s task.SWEInstance) error {
		fmt.Println(line, s.InstanceID, s.FailToPass)
		return w.Write(s)
	})
	if err != nil {
		panic(err)
	}
	bad := `{"instance_id": "a__b-2", "FAIL_TO_PASS": 3}`
	err = task.ReadJSONL(strings.NewReader(bad), func(int, task.SWEInstance) error { return nil })
	fmt.Println(err)
	// Output:
	// 1 a__b-1 [test_x]
	// {"FAIL_TO_PASS":["test_x"],"PASS_TO_PASS":[],"base_commit":"","created_at":"","custom":1,"environment_setup_commit":"","hints_text":"","instance_id":"a__b-1","patch":"","problem_statement":"","repo":"","test_patch":"","version":""}
	// task: jsonl line 1: field FAIL_TO_PASS: task: test list: json: cannot unmarshal number into Go value of type []string
}
