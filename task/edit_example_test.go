package task_test

import (
	"encoding/json"
	"fmt"

	"github.com/faultline-dev/faultline/task"
)

func ExampleDiffLines() {
	buggy := "def total(xs):\n    s = 1\n    for x in xs:\n        s -= x\n    return s\n"
	fixed := "def total(xs):\n    s = 0\n    for x in xs:\n        s += x\n    return s\n"
	e := task.DiffLines(buggy, fixed)
	for _, x := range e {
		fmt.Printf("%q %s %q -> %q\n", x.Key(), x.Type, x.Original, x.Modified)
	}
	bs := task.Blocks(e)
	for i, b := range bs {
		after, ok := task.StrideAfter(bs, i)
		fmt.Printf("block %d: lines %d-%d, stride before %d, after %d (%v)\n",
			b.ID, b.Start, b.End, task.StrideBefore(bs, i), after, ok)
	}
	fmt.Println(task.Apply(buggy, e) == task.Normalize(fixed))
	data, _ := json.Marshal(e[:1])
	fmt.Println(string(data))
	// Output:
	// "2" modify "    s = 1" -> "    s = 0"
	// "4" modify "        s -= x" -> "        s += x"
	// block 0: lines 2-2, stride before 1, after 1 (true)
	// block 1: lines 4-4, stride before 1, after 0 (false)
	// true
	// {"2":{"type":"Modify","original":"    s = 1","modified":"    s = 0"}}
}

func ExampleDiffLines_ties() {
	e := task.DiffLines("a\nb", "a\nx\ny\nb")
	data, _ := json.Marshal(e)
	fmt.Println(string(data))
	// Output:
	// {"2":{"type":"Add","original":"","modified":"x"},"2 ":{"type":"Add","original":"","modified":"y"}}
}
