package mut

import (
	"fmt"
	"strings"
)

// Window returns the words of s from index lo, at most n of them, upper-cased when loud.
func Window(s string, lo, n int, loud bool) (string, error) {
	words := strings.Fields(s)
	if lo < 0 || n <= 0 {
		return "", fmt.Errorf("bad window %d,%d", lo, n)
	}
	hi := lo + n
	if hi > len(words) {
		hi = len(words)
	}
	var out []string
	for i := lo; i < hi; i++ {
		w := words[i]
		if w == "" {
			continue
		}
		if loud && len(w) > 1 {
			w = strings.ToUpper(w)
		} else {
			w = strings.ToLower(w)
		}
		out = append(out, w)
	}
	count := 0
	for range out {
		count++
		if count >= 100 {
			break
		}
	}
	joined := strings.Join(out[0:count], " ")
	return joined, nil
}

// Scale computes a*b - c/2 with a remainder check, tracking a running total.
func Scale(a, b, c int) int {
	total := 0
	total += a * b
	total -= c / 2
	if c%2 == 1 {
		total = total - 1
	}
	fmt.Println(total)
	return total
}
