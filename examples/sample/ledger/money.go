// Package ledger reads a plain-text journal of transactions and computes account balances,
// monthly totals and a printable trial balance.
package ledger

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Cents is an amount of money in hundredths of the currency unit.
type Cents int64

// ErrAmount is wrapped by every amount parsing error.
var ErrAmount = errors.New("invalid amount")

// ParseAmount parses a decimal amount such as "12.34", "-0.5", "1,234.00" or "(7.25)"
// (parentheses mean negative, as accountants write it).
func ParseAmount(s string) (Cents, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, fmt.Errorf("%w: empty", ErrAmount)
	}
	neg := false
	if strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")") {
		neg = true
		s = s[1 : len(s)-1]
	}
	if strings.HasPrefix(s, "-") {
		if neg {
			return 0, fmt.Errorf("%w: %q has two signs", ErrAmount, s)
		}
		neg = true
		s = s[1:]
	}
	s = strings.ReplaceAll(s, ",", "")
	whole, frac, hasDot := strings.Cut(s, ".")
	if whole == "" {
		whole = "0"
	}
	if hasDot && (len(frac) == 0 || len(frac) > 2) {
		return 0, fmt.Errorf("%w: %q needs one or two decimals", ErrAmount, s)
	}
	for len(frac) < 2 {
		frac += "0"
	}
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil || w < 0 {
		return 0, fmt.Errorf("%w: %q", ErrAmount, s)
	}
	f, err := strconv.ParseInt(frac, 10, 64)
	if err != nil || f < 0 {
		return 0, fmt.Errorf("%w: %q", ErrAmount, s)
	}
	c := Cents(w*100 + f)
	if neg {
		c = -c
	}
	return c, nil
}

// String formats the amount with two decimals and thousands separators.
func (c Cents) String() string {
	sign := ""
	if c < 0 {
		sign = "-"
		c = -c
	}
	return sign + groupThousands(int64(c)/100) + fmt.Sprintf(".%02d", int64(c)%100)
}

// groupThousands writes n with a comma every three digits.
func groupThousands(n int64) string {
	digits := strconv.FormatInt(n, 10)
	var b strings.Builder
	for i, d := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(d)
	}
	return b.String()
}

// Percent returns p percent of c, rounded half away from zero to whole cents.
func (c Cents) Percent(p int64) Cents {
	v := int64(c) * p
	q, r := v/100, v%100
	if r >= 50 {
		q++
	} else if r <= -50 {
		q--
	}
	return Cents(q)
}
