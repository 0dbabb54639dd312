package stats

import (
	"errors"
	"math"
	"testing"
)

func TestBoxPlotStatsBadInput(t *testing.T) {
	for _, c := range []struct {
		name string
		x    []float64
		whis float64
		want error
	}{
		{"empty", nil, 1.5, ErrTooFew},
		{"nan", []float64{1, math.NaN()}, 1.5, ErrNotFinite},
		{"inf", []float64{math.Inf(-1), 2}, 1.5, ErrNotFinite},
		{"negative whis", []float64{1, 2}, -1, ErrRange},
		{"nan whis", []float64{1, 2}, math.NaN(), ErrRange},
		{"infinite whis", []float64{1, 2}, math.Inf(1), ErrRange},
	} {
		if _, err := BoxPlotStats(c.x, c.whis); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}

// TestBoxPlotStatsExtreme: values near the float64 limit give finite quartiles and
// whiskers inside the data range (numpy's interpolation would return -inf for the median
// of ±1e308).
func TestBoxPlotStatsExtreme(t *testing.T) {
	for _, x := range [][]float64{
		{-1e308, 1e308},
		{-math.MaxFloat64, 0, math.MaxFloat64},
		{1e308, 1e308, 1e308},
		{-1e308, -1e308, 5, 1e308},
	} {
		b, err := BoxPlotStats(x, 1.5)
		if err != nil {
			t.Fatalf("%v: %v", x, err)
		}
		lo, hi := x[0], x[len(x)-1]
		for _, v := range []float64{b.Q1, b.Median, b.Q3, b.WhiskerLo, b.WhiskerHi, b.Mean} {
			if math.IsNaN(v) || v < lo || v > hi {
				t.Errorf("%v: %+v has a value outside the data", x, b)
			}
		}
		if !(b.WhiskerLo <= b.Q1 && b.Q1 <= b.Median && b.Median <= b.Q3 && b.Q3 <= b.WhiskerHi) {
			t.Errorf("%v: unordered %+v", x, b)
		}
	}
	if m, err := Percentile([]float64{-1e308, 1e308}, 50); err != nil || m != 0 {
		t.Errorf("median of ±1e308 = %v, %v; want 0", m, err)
	}
	if q, err := Percentile([]float64{-1e308, 1e308}, 75); err != nil || q != 5e307 {
		t.Errorf("75th percentile of ±1e308 = %v, %v; want 5e307", q, err)
	}
}

func TestOverflow(t *testing.T) {
	big := []float64{1e308, -1e308, 3, 1e200}
	if _, err := ZScore(big, 0); !errors.Is(err, ErrOverflow) {
		t.Errorf("zscore: %v", err)
	}
	y := []float64{0, 1, 0, 1}
	if _, err := Logit(y, [][]float64{big}, nil); !errors.Is(err, ErrOverflow) {
		t.Errorf("logit: %v", err)
	}
}
