package plot

import (
	"encoding/binary"
	"errors"
	"io"
	"math"
	"testing"

	"github.com/faultline-dev/faultline/stats"
)

// fuzzValue decodes one value from 9 bytes: the first picks a special value (the ones that
// broke plots before: ±1e308, the float64 limits, NaN, ±Inf, zero, tiny numbers) or the
// raw float64 in the other 8, so the fuzzer reaches them without guessing bit patterns.
func fuzzValue(b []byte) float64 {
	raw := math.Float64frombits(binary.LittleEndian.Uint64(b[1:9]))
	switch b[0] % 16 {
	case 0:
		return 1e308
	case 1:
		return -1e308
	case 2:
		return math.MaxFloat64
	case 3:
		return math.NaN()
	case 4:
		return math.Inf(1)
	case 5:
		return math.Inf(-1)
	case 6:
		return 0
	case 7:
		return 5e-324
	case 8, 9, 10:
		return float64(int8(b[1])) // small integers: ties and constants
	}
	return raw
}

// plotErrors are the sentinel errors a chart function may return for bad data.
var plotErrors = []error{
	stats.ErrTooFew, stats.ErrNotFinite, stats.ErrOverflow, stats.ErrConstant, stats.ErrRange,
	stats.ErrLength, stats.ErrNotBinary, stats.ErrSeparation, stats.ErrOutcomeConstant,
	stats.ErrSingular, stats.ErrNoConvergence,
}

func checkPlotError(t *testing.T, what string, err error) {
	t.Helper()
	for _, e := range plotErrors {
		if errors.Is(err, e) {
			return
		}
	}
	t.Fatalf("%s: error %v wraps none of the package's sentinels", what, err)
}

// renderSmall renders c as PNG and SVG at a small size; it must not fail (a recovered
// panic inside gonum/plot would show as an error here).
func renderSmall(t *testing.T, what string, c Chart) {
	t.Helper()
	for _, f := range []Format{PNG, SVG} {
		if err := Render(io.Discard, c, f, RenderOptions{Width: 160, Height: 120, DPI: 36}); err != nil {
			t.Fatalf("%s: render %s: %v", what, f, err)
		}
	}
}

// FuzzCharts feeds arbitrary values to every chart: each call must return a chart that
// renders, or an error wrapping one of the package's sentinels — never panic or hang.
func FuzzCharts(f *testing.F) {
	rec := func(vals ...float64) []byte {
		var out []byte
		for _, v := range vals {
			var b [9]byte
			b[0] = 15 // raw
			binary.LittleEndian.PutUint64(b[1:], math.Float64bits(v))
			out = append(out, b[:]...)
		}
		return out
	}
	f.Add(uint8(2), rec(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12))
	f.Add(uint8(1), rec(1e308, -1e308, 5, 3))
	f.Add(uint8(1), rec(1e308, 1e308, 1e308))
	f.Add(uint8(1), rec(math.NaN(), 1))
	f.Add(uint8(3), rec(math.Inf(1), 0, 2))
	f.Add(uint8(1), rec(7))
	f.Add(uint8(3), rec())
	f.Add(uint8(2), rec(1e16, 1e16+2, 1e16+4, 1e16, 1e16+2, 1e16+4))
	f.Add(uint8(2), rec(5e-324, 1e-320, 0, 5e-324, 1e-300, 2e-300))
	f.Add(uint8(1), []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, ngroups uint8, data []byte) {
		var vals []float64
		for len(data) >= 9 && len(vals) < 64 {
			vals = append(vals, fuzzValue(data[:9]))
			data = data[9:]
		}
		k := int(ngroups%4) + 1
		// Groups: value i goes to group i mod k, so some groups may be empty.
		groups := make([]Values, k)
		for i := range groups {
			groups[i].Model = string(rune('a' + i))
		}
		for i, v := range vals {
			groups[i%k].Values = append(groups[i%k].Values, v)
		}
		// The distribution chart fails exactly on NaN or ±Inf, on no values at all, and on
		// values whose span overflows; everything else is drawn.
		var want error
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, v := range vals {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				want = stats.ErrNotFinite
			}
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		switch {
		case want != nil:
		case len(vals) == 0:
			want = stats.ErrTooFew
		case math.IsInf(hi-lo, 0):
			want = stats.ErrOverflow
		}
		for _, kind := range []DistKind{Box, Violin} {
			p, g, err := SolvedDistribution(groups, DistOptions{Kind: kind, Subset: "fuzz", Points: 20})
			if (err == nil) != (want == nil) || (want != nil && !errors.Is(err, want)) {
				t.Fatalf("distribution of %v: error %v, want %v", groups, err, want)
			}
			if err == nil {
				if len(g) != k {
					t.Fatalf("%d groups reported, %d given", len(g), k)
				}
				renderSmall(t, "distribution", p)
			}
		}
		// Pairs (x1, x2) with a 0/1 outcome from the sign bit of x1's position.
		var x1, x2, y []float64
		for i := 0; i+1 < len(vals); i += 2 {
			x1, x2 = append(x1, vals[i]), append(x2, vals[i+1])
			y = append(y, float64(i/2%2))
			if ngroups&0x80 != 0 {
				y[len(y)-1] = 1 // a single outcome class
			}
		}
		// The hexbin map is drawn whenever both predictors can be z-scored.
		_, err1 := stats.ZScore(x1, 0)
		_, err2 := stats.ZScore(x2, 0)
		c, hb, err := SuccessHexbin(x1, x2, y, HexbinOptions{Radius: 0.5, Counts: true})
		if (err == nil) != (err1 == nil && err2 == nil) {
			t.Fatalf("hexbin of %v, %v: error %v; z-scores: %v, %v", x1, x2, err, err1, err2)
		}
		if err != nil {
			checkPlotError(t, "hexbin", err)
		} else {
			total := 0
			for _, b := range hb.Bins {
				total += b.Count
			}
			if total != len(y) {
				t.Fatalf("hexagons hold %d tasks of %d", total, len(y))
			}
			renderSmall(t, "hexbin", c)
		}
		p, _, err := DifficultyCurves([]Outcomes{{Model: "m", X: x1, Solved: y}}, CurveOptions{Points: 10, Reps: 5, Seed: 1})
		if err != nil {
			checkPlotError(t, "curves", err)
		} else {
			renderSmall(t, "curves", p)
		}
	})
}
