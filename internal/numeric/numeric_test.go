package numeric

import (
	"math"
	"testing"
)

// The values numpy 1.24 (Debian 12) gives: np.percentile(x, q) with the default method and
// scipy.stats.sem(x).
func TestPercentile(t *testing.T) {
	x := []float64{10, 1, 9, 2, 8, 3, 7, 4, 6, 5}
	for q, want := range map[float64]float64{0: 1, 10: 1.9, 25: 3.25, 50: 5.5, 90: 9.1, 99: 9.91, 100: 10} {
		if got := Percentile(x, q); math.Abs(got-want) > 1e-12 {
			t.Errorf("percentile(%v) = %v, want %v", q, got, want)
		}
	}
	if x[0] != 10 {
		t.Error("input was sorted in place")
	}
	if !math.IsNaN(Percentile(nil, 50)) || !math.IsNaN(Percentile(x, math.NaN())) {
		t.Error("empty input or NaN q must give NaN")
	}
	if got := SortedPercentile([]float64{-1e308, 1e308}, 50); got != 0 {
		t.Errorf("overflowing neighbours: %v, want 0", got)
	}
	if got := SortedPercentile([]float64{1, 2}, 150); got != 2 {
		t.Errorf("q above 100 clamps: %v", got)
	}
}

func TestMeanStdErr(t *testing.T) {
	m, se := MeanStdErr([]float64{0.2, 0.5, 0.9, 1})
	// scipy.stats.sem([0.2, 0.5, 0.9, 1]) = 0.18484227510682363
	if math.Abs(m-0.65) > 1e-15 || math.Abs(se-0.18484227510682363) > 1e-15 {
		t.Errorf("MeanSE = %v, %v", m, se)
	}
	if m, se := MeanStdErr([]float64{3}); m != 3 || se != 0 {
		t.Errorf("one value: %v %v", m, se)
	}
	if m, se := MeanStdErr(nil); m != 0 || se != 0 {
		t.Errorf("none: %v %v", m, se)
	}
}
