package ledger

import (
	"errors"
	"strings"
	"testing"
	"time"
)

const journal = `# household journal
2024-01-03 assets:cash -12.50 lunch
2024-01-03 Expenses:Food 12.50 lunch

2024-01-15 assets:bank -1,200.00 rent
2024-01-15 expenses:housing 1,200.00 rent for january
2024-02-01 assets:bank 3,000.00 salary
2024-02-01 income:salary -3,000.00
2024-03-20 assets:cash -4.20 coffee
2024-03-20 expenses:food:coffee 4.20
`

func mustJournal(t *testing.T) []Entry {
	t.Helper()
	entries, err := ParseJournal(strings.NewReader(journal))
	if err != nil {
		t.Fatal(err)
	}
	return entries
}

func TestParseLine(t *testing.T) {
	cases := []struct {
		name, line string
		want       Entry
	}{
		{"basic", "2024-01-31 expenses:food 12.50 lunch", Entry{date(2024, 1, 31), "expenses:food", 1250, "lunch"}},
		{"no memo", "2024-01-31 assets:cash -3", Entry{date(2024, 1, 31), "assets:cash", -300, ""}},
		{"normalised account", "2024-02-29 Assets::Bank: 10.00", Entry{date(2024, 2, 29), "assets:bank", 1000, ""}},
		{"memo with spaces", "2024-03-01 expenses:rent 1,100.00 rent for march", Entry{date(2024, 3, 1), "expenses:rent", 110000, "rent for march"}},
		{"accounting negative", "2024-03-01 income:salary (2,500.00)", Entry{date(2024, 3, 1), "income:salary", -250000, ""}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseLine(c.line)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("ParseLine(%q) = %+v, want %+v", c.line, got, c.want)
			}
		})
	}
}

func TestParseLineErrors(t *testing.T) {
	for _, line := range []string{"2024-01-01 cash", "yesterday cash 1.00", "2024-01-01 : 1.00", "2024-01-01 cash 1.2.3", "2024-13-01 cash 1"} {
		t.Run(line, func(t *testing.T) {
			if _, err := ParseLine(line); err == nil {
				t.Errorf("ParseLine(%q) succeeded, want an error", line)
			}
		})
	}
}

func TestParseJournal(t *testing.T) {
	entries := mustJournal(t)
	if len(entries) != 8 {
		t.Fatalf("got %d entries, want 8", len(entries))
	}
	if entries[1].Account != "expenses:food" || entries[1].Amount != 1250 {
		t.Errorf("entry 1 = %+v", entries[1])
	}
	if entries[3].Memo != "rent for january" {
		t.Errorf("memo = %q", entries[3].Memo)
	}
}

func TestParseJournalLineError(t *testing.T) {
	_, err := ParseJournal(strings.NewReader("2024-01-01 cash 1.00\n\n2024-01-02 cash oops\n"))
	var le *LineError
	if !errors.As(err, &le) || le.Line != 3 {
		t.Fatalf("error = %v, want a LineError at line 3", err)
	}
	if !errors.Is(err, ErrAmount) {
		t.Errorf("error %v does not wrap ErrAmount", err)
	}
}

func date(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
