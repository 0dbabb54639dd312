package ledger

import (
	"reflect"
	"testing"
	"time"
)

func TestBalances(t *testing.T) {
	got := Balances(mustJournal(t))
	want := []Balance{
		{"assets:bank", 180000},
		{"assets:cash", -1670},
		{"expenses:food", 1250},
		{"expenses:food:coffee", 420},
		{"expenses:housing", 120000},
		{"income:salary", -300000},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Balances = %v\nwant %v", got, want)
	}
}

func TestRollup(t *testing.T) {
	b := Balances(mustJournal(t))
	t.Run("all levels", func(t *testing.T) {
		got := Rollup(b, 0)
		want := []Balance{
			{"assets", 178330},
			{"assets:bank", 180000},
			{"assets:cash", -1670},
			{"expenses", 121670},
			{"expenses:food", 1670},
			{"expenses:food:coffee", 420},
			{"expenses:housing", 120000},
			{"income", -300000},
			{"income:salary", -300000},
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Rollup = %v\nwant %v", got, want)
		}
	})
	t.Run("top level", func(t *testing.T) {
		got := Rollup(b, 1)
		want := []Balance{{"assets", 178330}, {"expenses", 121670}, {"income", -300000}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Rollup = %v\nwant %v", got, want)
		}
	})
	t.Run("sums to zero", func(t *testing.T) {
		var total Cents
		for _, x := range Rollup(b, 1) {
			total += x.Total
		}
		if total != 0 {
			t.Errorf("top-level rollup sums to %v, want 0", total)
		}
	})
}

func TestFilter(t *testing.T) {
	entries := mustJournal(t)
	cases := []struct {
		name     string
		prefix   string
		from, to time.Time
		want     int
	}{
		{"all", "", time.Time{}, time.Time{}, 8},
		{"expenses", "expenses", time.Time{}, time.Time{}, 3},
		{"prefix is not a segment", "expense", time.Time{}, time.Time{}, 0},
		{"child account", "expenses:food", time.Time{}, time.Time{}, 2},
		{"january", "", date(2024, 1, 1), date(2024, 2, 1), 4},
		{"from is inclusive", "", date(2024, 2, 1), time.Time{}, 4},
		{"to is exclusive", "", time.Time{}, date(2024, 1, 15), 2},
		{"case insensitive", "ASSETS", time.Time{}, time.Time{}, 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Filter(entries, c.prefix, c.from, c.to); len(got) != c.want {
				t.Errorf("Filter(%q, %v, %v) kept %d entries, want %d", c.prefix, c.from, c.to, len(got), c.want)
			}
		})
	}
}

func TestMonthlyTotals(t *testing.T) {
	entries := mustJournal(t)
	t.Run("expenses", func(t *testing.T) {
		months, totals := MonthlyTotals(entries, "expenses")
		wantMonths := []Month{{2024, time.January}, {2024, time.February}, {2024, time.March}}
		wantTotals := []Cents{121250, 0, 420}
		if !reflect.DeepEqual(months, wantMonths) || !reflect.DeepEqual(totals, wantTotals) {
			t.Errorf("MonthlyTotals = %v %v, want %v %v", months, totals, wantMonths, wantTotals)
		}
	})
	t.Run("across a year end", func(t *testing.T) {
		e := []Entry{
			{Date: date(2023, 11, 5), Account: "a", Amount: 1},
			{Date: date(2024, 2, 5), Account: "a", Amount: 2},
		}
		months, totals := MonthlyTotals(e, "a")
		if len(months) != 4 || months[1] != (Month{2023, time.December}) || months[2] != (Month{2024, time.January}) {
			t.Errorf("months = %v", months)
		}
		if !reflect.DeepEqual(totals, []Cents{1, 0, 0, 2}) {
			t.Errorf("totals = %v", totals)
		}
	})
	t.Run("unknown account", func(t *testing.T) {
		if months, totals := MonthlyTotals(entries, "nothing"); months != nil || totals != nil {
			t.Errorf("got %v %v, want nil", months, totals)
		}
	})
}

func TestUnbalanced(t *testing.T) {
	entries := mustJournal(t)
	if got := Unbalanced(entries); len(got) != 0 {
		t.Errorf("Unbalanced = %v, want none", got)
	}
	entries = append(entries, Entry{Date: date(2024, 4, 1), Account: "assets:cash", Amount: 5})
	entries = append(entries, Entry{Date: date(2024, 1, 2), Account: "assets:cash", Amount: -5})
	got := Unbalanced(entries)
	want := []time.Time{date(2024, 1, 2), date(2024, 4, 1)}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Unbalanced = %v, want %v", got, want)
	}
}
