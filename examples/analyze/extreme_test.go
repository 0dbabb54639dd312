package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlotDistExtremeValues runs `analyze plot dist` on the values that made it panic (gonum's
// ticks: "illegal range", issue 13 item 8): a group spanning -1e308 to 1e308 is a clear error
// naming the input, with no output file, for both kinds; values near the float64 limit that
// do fit are drawn.
func TestPlotDistExtremeValues(t *testing.T) {
	dir := t.TempDir()
	span := filepath.Join(dir, "span.csv")
	near := filepath.Join(dir, "near.csv")
	if err := os.WriteFile(span, []byte("model,value\na,1e308\na,-1e308\na,5\nb,1e308\nb,1e308\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(near, []byte("model,value\na,1e308\na,1.5e308\na,1.79e308\nb,1e308\nb,1e308\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{"box", "violin"} {
		out := filepath.Join(dir, kind+".png")
		code, stdout, stderr := runCmd("plot", "dist", "-in", span, "-model", "model", "-value", "value", "-kind", kind, "-out", out)
		if code != 1 || stdout != "" || !strings.Contains(stderr, "span.csv") || !strings.Contains(stderr, "overflows float64") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", kind, code, stdout, stderr)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%s: %s written", kind, out)
		}
	}
	out := filepath.Join(dir, "near.svg")
	code, stdout, stderr := runCmd("plot", "dist", "-in", near, "-model", "model", "-value", "value", "-out", out)
	if code != 0 {
		t.Fatalf("near the limit: exit %d: %s", code, stderr)
	}
	var rec struct {
		Models []struct {
			Model     string
			N         int
			Median    float64
			WhiskerHi float64 `json:"whisker_hi"`
		}
	}
	if err := json.Unmarshal([]byte(stdout), &rec); err != nil {
		t.Fatalf("%v: %s", err, stdout)
	}
	if len(rec.Models) != 2 || rec.Models[0].Median != 1.5e308 || rec.Models[0].WhiskerHi != 1.79e308 || rec.Models[1].Median != 1e308 {
		t.Errorf("summary %+v", rec)
	}
	if fi, err := os.Stat(out); err != nil || fi.Size() == 0 {
		t.Errorf("the chart: %v", err)
	}
}
