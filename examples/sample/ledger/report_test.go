package ledger

import (
	"strings"
	"testing"
)

func TestTrialBalanceFlat(t *testing.T) {
	got := TrialBalance(Balances(mustJournal(t)), false)
	want := strings.Join([]string{
		"assets:bank            1,800.00",
		"assets:cash              -16.70",
		"expenses:food             12.50",
		"expenses:food:coffee       4.20",
		"expenses:housing       1,200.00",
		"income:salary         -3,000.00",
		"-------------------------------",
		"total                      0.00",
		"",
	}, "\n")
	if got != want {
		t.Errorf("TrialBalance:\n%s\nwant:\n%s", got, want)
	}
}

func TestTrialBalanceIndented(t *testing.T) {
	got := TrialBalance(Rollup(Balances(mustJournal(t)), 2), true)
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if len(lines) != 10 { // 8 accounts, the rule, the total
		t.Fatalf("got %d lines:\n%s", len(lines), got)
	}
	if !strings.HasPrefix(lines[0], "assets ") || !strings.HasPrefix(lines[1], "  bank ") {
		t.Errorf("indentation wrong:\n%s", got)
	}
	if !strings.HasSuffix(lines[len(lines)-1], " 0.00") {
		t.Errorf("total line %q, want a zero total counting top-level accounts only", lines[len(lines)-1])
	}
}

func TestPadding(t *testing.T) {
	cases := []struct{ got, want string }{
		{padLeft("7", 3), "  7"},
		{padLeft("1234", 3), "1234"},
		{padRight("ab", 4), "ab  "},
		{padRight("é", 2), "é "},
		{lastSegment("a:b:c"), "c"},
		{lastSegment("top"), "top"},
	}
	for i, c := range cases {
		if c.got != c.want {
			t.Errorf("case %d: got %q, want %q", i, c.got, c.want)
		}
	}
	if maxWidth([]string{"a", "ééé", "bb"}) != 3 {
		t.Errorf("maxWidth counts bytes, want runes")
	}
}
