package metrics

import (
	"context"
	"encoding/json"
	"hash/crc32"
	"os"
	"testing"

	"github.com/faultline-dev/faultline/task"
)

// TestReferenceVectors compares Reference mode with testdata/reference.py, an independent
// literal Python reading of the spec's Reference algorithm on Python's own difflib and
// list indexing (see the script for how to regenerate the vectors).
func TestReferenceVectors(t *testing.T) {
	data, err := os.ReadFile("testdata/reference_vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Buggy      string     `json:"buggy"`
		Fixed      string     `json:"fixed"`
		GTDiff     task.Edits `json:"gt_diff"`
		Prediction string     `json:"prediction"`
		Precision  float64    `json:"precision"`
		Recall     float64    `json:"recall"`
		Unit       float64    `json:"unit"`
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 500 {
		t.Fatalf("only %d vectors", len(cases))
	}
	nonzero, differ := 0, 0
	for i, c := range cases {
		want := task.Normalize(c.Fixed)
		if got := task.DiffLines(c.Buggy, c.Fixed); !sameEdits(got, c.GTDiff) {
			t.Fatalf("case %d: edit model differs from Python's: %v vs %v", i, got, c.GTDiff)
		}
		o := task.OracleFunc(func(_ context.Context, p string) (bool, error) {
			return p == want || crc32.ChecksumIEEE([]byte(p))%3 == 0, nil
		})
		r, err := Score(context.Background(), Input{Buggy: c.Buggy, GT: c.GTDiff, Prediction: c.Prediction}, o, Options{Mode: Reference})
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if !near(r.Precision, c.Precision) || !near(r.Recall, c.Recall) || r.Unit != c.Unit {
			t.Errorf("case %d: got P %v R %v U %v, reference P %v R %v U %v\nbuggy %q\nprediction %q\nmatches %+v",
				i, r.Precision, r.Recall, r.Unit, c.Precision, c.Recall, c.Unit, c.Buggy, c.Prediction, r.Matches)
		}
		if c.Precision > 0 {
			nonzero++
		}
		if pr, _ := Score(context.Background(), Input{Buggy: c.Buggy, GT: c.GTDiff, Prediction: c.Prediction}, o, Options{Mode: Paper}); pr.Precision != r.Precision || pr.Recall != r.Recall {
			differ++
		}
	}
	// The two modes must disagree somewhere on these inputs (windows, essential search).
	t.Logf("%d of %d vectors score differently in Paper mode", differ, len(cases))
	if differ == 0 {
		t.Error("Paper and Reference modes agree on every vector")
	}
	if nonzero < len(cases)/4 {
		t.Errorf("only %d of %d vectors have a positive precision", nonzero, len(cases))
	}
}
