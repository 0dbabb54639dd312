package stats

import (
	"fmt"
	"slices"
)

// Rank returns the ranks of x, 1-based, with tied values given the average of the ranks they
// span (scipy.stats.rankdata's default method "average"). x must be finite.
func Rank(x []float64) ([]float64, error) {
	if err := checkFinite("rank", "x", x); err != nil {
		return nil, err
	}
	r, _ := rankTies(x)
	return r, nil
}

// rankTies returns the average ranks of x and the tie term Σ(t³ - t) over the groups of t
// tied values.
func rankTies(x []float64) (ranks []float64, tieTerm float64) {
	n := len(x)
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case x[a] < x[b]:
			return -1
		case x[a] > x[b]:
			return 1
		}
		return 0
	})
	ranks = make([]float64, n)
	for i := 0; i < n; {
		j := i + 1
		for j < n && x[idx[j]] == x[idx[i]] {
			j++
		}
		// Positions i..j-1 (0-based) hold ranks i+1..j; their average is (i+1+j)/2.
		avg := float64(i+1+j) / 2
		for k := i; k < j; k++ {
			ranks[idx[k]] = avg
		}
		t := float64(j - i)
		tieTerm += t*t*t - t
		i = j
	}
	return ranks, tieTerm
}

func checkPair(fn string, x, y []float64) error {
	if len(x) != len(y) {
		return fmt.Errorf("stats: %s: len(x) = %d, len(y) = %d: %w", fn, len(x), len(y), ErrLength)
	}
	if err := checkFinite(fn, "x", x); err != nil {
		return err
	}
	return checkFinite(fn, "y", y)
}
