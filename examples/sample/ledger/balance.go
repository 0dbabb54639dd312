package ledger

import (
	"sort"
	"strings"
	"time"
)

// Balance is the total of one account.
type Balance struct {
	Account string
	Total   Cents
}

// Balances sums the entries per account and returns them sorted by account name.
func Balances(entries []Entry) []Balance {
	totals := map[string]Cents{}
	for _, e := range entries {
		totals[e.Account] += e.Amount
	}
	return sortedBalances(totals)
}

func sortedBalances(totals map[string]Cents) []Balance {
	out := make([]Balance, 0, len(totals))
	for a, t := range totals {
		out = append(out, Balance{Account: a, Total: t})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Account < out[j].Account })
	return out
}

// Rollup adds every account's total to each of its parent accounts ("expenses:food" also
// counts towards "expenses"), so a report can show subtotals. Depth limits the levels kept
// (0 keeps all).
func Rollup(balances []Balance, depth int) []Balance {
	totals := map[string]Cents{}
	for _, b := range balances {
		for _, parent := range ancestors(b.Account) {
			if depth > 0 && segments(parent) > depth {
				continue
			}
			totals[parent] += b.Total
		}
	}
	return sortedBalances(totals)
}

// ancestors returns the account and all its parents, outermost first.
func ancestors(account string) []string {
	parts := strings.Split(account, ":")
	out := make([]string, 0, len(parts))
	for i := 1; i <= len(parts); i++ {
		out = append(out, strings.Join(parts[:i], ":"))
	}
	return out
}

func segments(account string) int { return strings.Count(account, ":") + 1 }

// Filter keeps the entries whose account is prefix or below it, dated in [from, to).
// A zero from or to leaves that side open.
func Filter(entries []Entry, prefix string, from, to time.Time) []Entry {
	prefix = normalizeAccount(prefix)
	var out []Entry
	for _, e := range entries {
		if prefix != "" && e.Account != prefix && !strings.HasPrefix(e.Account, prefix+":") {
			continue
		}
		if !from.IsZero() && e.Date.Before(from) {
			continue
		}
		if !to.IsZero() && !e.Date.Before(to) {
			continue
		}
		out = append(out, e)
	}
	return out
}

// Month identifies a calendar month.
type Month struct {
	Year  int
	Month time.Month
}

// MonthlyTotals sums the entries of one account (and its children) per calendar month, in
// chronological order, including months without entries between the first and the last.
func MonthlyTotals(entries []Entry, account string) ([]Month, []Cents) {
	selected := Filter(entries, account, time.Time{}, time.Time{})
	if len(selected) == 0 {
		return nil, nil
	}
	sums := map[Month]Cents{}
	first, last := monthOf(selected[0].Date), monthOf(selected[0].Date)
	for _, e := range selected {
		m := monthOf(e.Date)
		sums[m] += e.Amount
		if before(m, first) {
			first = m
		}
		if before(last, m) {
			last = m
		}
	}
	var months []Month
	var totals []Cents
	for m := first; !before(last, m); m = next(m) {
		months = append(months, m)
		totals = append(totals, sums[m])
	}
	return months, totals
}

func monthOf(t time.Time) Month { return Month{t.Year(), t.Month()} }

func before(a, b Month) bool {
	if a.Year != b.Year {
		return a.Year < b.Year
	}
	return a.Month < b.Month
}

func next(m Month) Month {
	if m.Month == time.December {
		return Month{m.Year + 1, time.January}
	}
	return Month{m.Year, m.Month + 1}
}

// Unbalanced returns the dates on which the postings do not sum to zero, in order — in
// double-entry bookkeeping every day's transactions must balance.
func Unbalanced(entries []Entry) []time.Time {
	sums := map[time.Time]Cents{}
	for _, e := range entries {
		sums[e.Date] += e.Amount
	}
	var out []time.Time
	for d, s := range sums {
		if s != 0 {
			out = append(out, d)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Before(out[j]) })
	return out
}
