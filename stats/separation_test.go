package stats

import (
	"encoding/json"
	"errors"
	"os"
	"testing"
)

// TestSeparationVerdicts compares the separation check with scipy's HiGHS solver on an
// independent LP formulation (testdata/gen_separation.py), over random datasets where both
// kinds of separation are common.
func TestSeparationVerdicts(t *testing.T) {
	b, err := os.ReadFile("testdata/separation.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Cases []struct {
			Y          []float64   `json:"y"`
			X          [][]float64 `json:"x"`
			Separation string      `json:"separation"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for i, c := range ref.Cases {
		r, err := Logit(c.Y, c.X, nil)
		var se *SeparationError
		got := "none"
		switch {
		case errors.As(err, &se) && se.Complete:
			got = "complete"
		case errors.As(err, &se):
			got = "quasi"
		case err != nil:
			t.Errorf("case %d: unexpected error %v", i, err)
			continue
		}
		if got != c.Separation {
			t.Errorf("case %d (n=%d, p=%d): %s, HiGHS says %s", i, len(c.Y), len(c.X), got, c.Separation)
		}
		if got == "none" && r.Iterations > 40 {
			t.Errorf("case %d: %d Newton iterations", i, r.Iterations)
		}
		seen[c.Separation]++
	}
	if seen["none"] < 50 || seen["quasi"] < 10 || seen["complete"] < 20 {
		t.Errorf("reference verdicts %v do not exercise every kind", seen)
	}
}
