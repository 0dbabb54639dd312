package ledger

import (
	"strings"
)

// TrialBalance renders balances as an aligned two-column table with a total line. Account
// names are indented by depth when indent is true.
func TrialBalance(balances []Balance, indent bool) string {
	names := make([]string, len(balances))
	amounts := make([]string, len(balances))
	var total Cents
	for i, b := range balances {
		names[i] = b.Account
		if indent {
			names[i] = strings.Repeat("  ", segments(b.Account)-1) + lastSegment(b.Account)
		}
		amounts[i] = b.Total.String()
		if !indent || segments(b.Account) == 1 {
			total += b.Total
		}
	}
	totalText := total.String()
	nameWidth := maxWidth(append(names, "total"))
	amountWidth := maxWidth(append(amounts, totalText))

	var sb strings.Builder
	for i := range balances {
		sb.WriteString(padRight(names[i], nameWidth))
		sb.WriteString("  ")
		sb.WriteString(padLeft(amounts[i], amountWidth))
		sb.WriteByte('\n')
	}
	sb.WriteString(strings.Repeat("-", nameWidth+2+amountWidth))
	sb.WriteByte('\n')
	sb.WriteString(padRight("total", nameWidth))
	sb.WriteString("  ")
	sb.WriteString(padLeft(totalText, amountWidth))
	sb.WriteByte('\n')
	return sb.String()
}

func lastSegment(account string) string {
	if i := strings.LastIndex(account, ":"); i >= 0 {
		return account[i+1:]
	}
	return account
}

func maxWidth(ss []string) int {
	w := 0
	for _, s := range ss {
		if n := len([]rune(s)); n > w {
			w = n
		}
	}
	return w
}

func padRight(s string, w int) string {
	if n := len([]rune(s)); n < w {
		return s + strings.Repeat(" ", w-n)
	}
	return s
}

func padLeft(s string, w int) string {
	if n := len([]rune(s)); n < w {
		return strings.Repeat(" ", w-n) + s
	}
	return s
}
