package main

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzReadInputs: the JSONL readers never fail on content (only on I/O), give every
// example line an id, and key every prediction by a non-empty task id.
func FuzzReadInputs(f *testing.F) {
	f.Add(`{"task_id": "a", "buggy_code": "x", "gt_diff": {"1": {"type": "modify", "original": "x", "modified": "y"}}}`)
	f.Add(`{"task_id": 3, "solution": 4}` + "\n" + `{"task_id": "b", "debug_results": [{"solution": "s"}]}`)
	f.Add("{\"task_id\": \"c\", \"gt_diff\": \"{}\"}\r\n\r\n[1,2]\n{")
	f.Add(`{"task_id": "d", "debug_results": {"solution": null}}`)
	f.Fuzz(func(t *testing.T, content string) {
		p := filepath.Join(t.TempDir(), "in.jsonl")
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		items, err := readExamples(p)
		if err != nil {
			t.Fatalf("readExamples: %v", err)
		}
		for _, it := range items {
			if it.id == "" {
				t.Fatalf("item without id: %+v", it)
			}
		}
		preds, err := readPredictions(p)
		if err != nil {
			t.Fatalf("readPredictions: %v", err)
		}
		for id := range preds {
			if id == "" {
				t.Fatal("prediction without id")
			}
		}
	})
}
