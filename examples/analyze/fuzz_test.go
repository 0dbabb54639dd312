package main

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// FuzzParseTable feeds arbitrary text to the CSV reader: it must never panic, every record it
// accepts has as many fields as the header, and a cell error names a line of the file and an
// existing column.
func FuzzParseTable(f *testing.F) {
	f.Add("a,b\n1,2\n3,4\n")
	f.Add("a,b\n1,\n,4\n")
	f.Add("\ufeffx\n1e3\nNaN\n-Inf\n")
	f.Add("a,\"b,c\"\n\"1\n2\",3\n4,5\n")
	f.Add("a,a\n1,2\n")
	f.Add("")
	f.Fuzz(func(t *testing.T, text string) {
		tb, err := parseTable("f.csv", strings.NewReader(text))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "analyze: ") {
				t.Fatalf("error without prefix: %v", err)
			}
			return
		}
		lines := strings.Count(text, "\n") + 1
		for i, r := range tb.rows {
			if len(r) != len(tb.header) {
				t.Fatalf("row %d has %d fields, header %d", i, len(r), len(tb.header))
			}
			if tb.lines[i] < 2 || tb.lines[i] > lines {
				t.Fatalf("row %d at line %d of %d", i, tb.lines[i], lines)
			}
		}
		for j, h := range tb.header {
			vals, err := tb.numbers(h)
			var ce *CSVError
			switch {
			case err == nil:
				// Every parsed value must round-trip through its cell.
				k := 0
				for i := range tb.rows {
					if s := strings.TrimSpace(tb.rows[i][j]); s != "" {
						want, _ := strconv.ParseFloat(s, 64)
						if vals[k] != want {
							t.Fatalf("column %q row %d: %v, cell %q", h, i, vals[k], s)
						}
						k++
					}
				}
				if k != len(vals) {
					t.Fatalf("column %q: %d values from %d cells", h, len(vals), k)
				}
			case errors.As(err, &ce):
				if ce.Column != h || ce.Index != j+1 || ce.Line < 2 || ce.Line > lines {
					t.Fatalf("error %+v for column %d %q", ce, j+1, h)
				}
			default:
				t.Fatalf("untyped cell error %v", err)
			}
		}
	})
}
