package ledger

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"
)

// Entry is one posting of a transaction to an account.
type Entry struct {
	Date    time.Time
	Account string // colon-separated hierarchy, e.g. "expenses:food"
	Amount  Cents
	Memo    string
}

// LineError reports a journal line that could not be parsed.
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

func (e *LineError) Unwrap() error { return e.Err }

// ParseLine parses "2024-01-31 expenses:food 1,012.50 team lunch": a date, an account, an
// amount and an optional memo, separated by white space.
func ParseLine(line string) (Entry, error) {
	fields := strings.Fields(line)
	if len(fields) < 3 {
		return Entry{}, fmt.Errorf("want date, account, amount [memo]; got %d fields", len(fields))
	}
	date, err := time.Parse("2006-01-02", fields[0])
	if err != nil {
		return Entry{}, fmt.Errorf("bad date %q", fields[0])
	}
	account := normalizeAccount(fields[1])
	if account == "" {
		return Entry{}, fmt.Errorf("empty account %q", fields[1])
	}
	amount, err := ParseAmount(fields[2])
	if err != nil {
		return Entry{}, err
	}
	return Entry{Date: date, Account: account, Amount: amount, Memo: strings.Join(fields[3:], " ")}, nil
}

// normalizeAccount lower-cases an account name, trims each segment and drops empty ones.
func normalizeAccount(name string) string {
	var parts []string
	for _, p := range strings.Split(name, ":") {
		p = strings.ToLower(strings.TrimSpace(p))
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, ":")
}

// ParseJournal reads one entry per line, skipping blank lines and lines starting with '#'.
func ParseJournal(r io.Reader) ([]Entry, error) {
	var entries []Entry
	sc := bufio.NewScanner(r)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		e, err := ParseLine(line)
		if err != nil {
			return nil, &LineError{Line: n, Err: err}
		}
		entries = append(entries, e)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return entries, nil
}
