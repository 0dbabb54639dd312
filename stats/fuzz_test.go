package stats

import (
	"encoding/binary"
	"math"
	"slices"
	"testing"
)

// floatsFrom decodes the fuzzer's bytes as float64 values in a moderate range.
func floatsFrom(b []byte) []float64 {
	var out []float64
	for len(b) >= 2 {
		v := int16(binary.LittleEndian.Uint16(b))
		out = append(out, float64(v)/8)
		b = b[2:]
	}
	return out
}

func FuzzParseNames(f *testing.F) {
	for _, s := range []string{"two-sided", "less", "greater", "auto", "exact", "asymptotic", "", "Less", "two_sided"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if a, err := ParseAlternative(s); err == nil && a.String() != s {
			t.Errorf("ParseAlternative(%q) = %v", s, a)
		}
		if m, err := ParseMWUMethod(s); err == nil && m.String() != s {
			t.Errorf("ParseMWUMethod(%q) = %v", s, m)
		}
	})
}

func FuzzPercentile(f *testing.F) {
	f.Add([]byte{1, 0, 2, 0, 3, 0, 255, 255}, 90.0)
	f.Add([]byte{7, 7}, 0.0)
	f.Add([]byte{0, 128, 5, 0, 5, 0, 9, 1}, 100.0)
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 33.3)
	f.Fuzz(func(t *testing.T, b []byte, q float64) {
		x := floatsFrom(b)
		if len(x) == 0 || !(q >= 0 && q <= 100) {
			if _, err := Percentile(x, q); err == nil {
				t.Fatalf("no error for n=%d q=%v", len(x), q)
			}
			return
		}
		p, err := Percentile(x, q)
		if err != nil {
			t.Fatal(err)
		}
		s := slices.Sorted(slices.Values(x))
		if p < s[0] || p > s[len(s)-1] {
			t.Fatalf("percentile %v outside [%v, %v]", p, s[0], s[len(s)-1])
		}
		// Type 7 by its textbook formula agrees up to rounding.
		h := float64(len(s)-1) * q / 100
		lo := int(math.Floor(h))
		want := s[lo]
		if lo+1 < len(s) {
			want += (h - float64(lo)) * (s[lo+1] - s[lo])
		}
		if math.Abs(p-want) > 1e-9*(1+math.Abs(want)) {
			t.Fatalf("percentile %v, formula %v", p, want)
		}
		if q2 := math.Min(100, q+1); q2 > q {
			p2, _ := Percentile(x, q2)
			if p2 < p {
				t.Fatalf("not monotone: q=%v → %v, q=%v → %v", q, p, q2, p2)
			}
		}
	})
}

func FuzzMannWhitney(f *testing.F) {
	f.Add([]byte{1, 0, 2, 0, 3, 0}, []byte{4, 0, 5, 0})
	f.Add([]byte{1, 0, 1, 0}, []byte{1, 0, 2, 0, 2, 0})
	f.Add([]byte{9, 9, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 0, 0}, []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20})
	f.Fuzz(func(t *testing.T, a, b []byte) {
		x, y := floatsFrom(a), floatsFrom(b)
		if len(x) == 0 || len(y) == 0 || len(x) > 60 || len(y) > 60 {
			return
		}
		for _, m := range []MWUMethod{MWUAuto, MWUExact, MWUAsymptotic} {
			xy, err := MannWhitneyU(x, y, &MannWhitneyOptions{Method: m})
			if err != nil {
				t.Fatal(err)
			}
			yx, err := MannWhitneyU(y, x, &MannWhitneyOptions{Method: m})
			if err != nil {
				t.Fatal(err)
			}
			n1n2 := float64(len(x) * len(y))
			if xy.U+yx.U != n1n2 || xy.U < 0 || xy.U > n1n2 {
				t.Fatalf("U1 = %v, U2 = %v, n1·n2 = %v", xy.U, yx.U, n1n2)
			}
			if !(xy.P >= 0 && xy.P <= 1) || math.Abs(xy.P-yx.P) > 1e-12 {
				t.Fatalf("two-sided p %v vs swapped %v", xy.P, yx.P)
			}
			less, _ := MannWhitneyU(x, y, &MannWhitneyOptions{Method: m, Alternative: Less})
			greater, _ := MannWhitneyU(y, x, &MannWhitneyOptions{Method: m, Alternative: Greater})
			if math.Abs(less.P-greater.P) > 1e-12 {
				t.Fatalf("less(x, y) = %v, greater(y, x) = %v", less.P, greater.P)
			}
		}
	})
}

func FuzzRank(f *testing.F) {
	f.Add([]byte{1, 0, 1, 0, 3, 0})
	f.Add([]byte{5, 5, 4, 4, 3, 3, 2, 2, 1, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		x := floatsFrom(b)
		r, err := Rank(x)
		if err != nil {
			t.Fatal(err)
		}
		sum := 0.0
		for i := range x {
			sum += r[i]
			for j := range x {
				if (x[i] < x[j]) != (r[i] < r[j]) || (x[i] == x[j]) != (r[i] == r[j]) {
					t.Fatalf("ranks %v do not follow values %v", r, x)
				}
			}
		}
		if n := float64(len(x)); sum != n*(n+1)/2 {
			t.Fatalf("rank sum %v, want %v", sum, n*(n+1)/2)
		}
	})
}
