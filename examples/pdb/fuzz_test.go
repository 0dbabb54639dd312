package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// FuzzLoadTasks: the readers never panic on any content; either they return tasks that
// all have an id, a ground truth that fits their buggy code and a prediction, or an error
// whose every listed problem names the file and, when it is about a record, its line.
func FuzzLoadTasks(f *testing.F) {
	f.Add(`{"task_id": "a", "buggy_code": "x", "gt_diff": {"1": {"type": "Modify", "original": "x", "modified": "y"}}, "debug_results": {"solution": "y"}}`)
	f.Add(`{"task_id": 3, "solution": 4}` + "\n" + `{"task_id": "b", "debug_results": [{"solution": "s"}]}`)
	f.Add("{\"task_id\": \"c\", \"gt_diff\": \"{}\"}\r\n\r\n[1,2]\n{")
	f.Add("[\n  {\"task_id\": \"d\", \"buggy_code\": \"a\\nb\", \"gt_solution\": \"a\\nc\", \"debug_results\": {\"solution\": null}}\n]")
	f.Add(`[{"task_id": "e", "buggy_code": "a", "gt_solution": "b", "bug_count": 1, "debug_results": {"solution": "b", "pred_diff": {"1": {"type": "Modify", "original": "a", "modified": "b"}}}}]`)
	line := regexp.MustCompile(`^.*in\.json(:\d+)?: `)
	f.Fuzz(func(t *testing.T, content string) {
		p := filepath.Join(t.TempDir(), "in.json")
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		tasks, _, _, err := loadTasks(scoreFlags{in: p})
		if err != nil {
			msg := err.Error()
			_, list, _ := strings.Cut(msg, ":\n")
			if list == "" {
				list = msg
			}
			for _, l := range strings.Split(list, "\n") {
				if !strings.HasPrefix(l, "… and ") && !line.MatchString(l) {
					t.Fatalf("error line does not name the file: %q", l)
				}
			}
			return
		}
		for _, tk := range tasks {
			if tk.ex.TaskID == "" || len(tk.ex.GTDiff) == 0 || tk.pred.line == 0 {
				t.Fatalf("task without id, ground truth or prediction: %+v", tk)
			}
		}
	})
}
