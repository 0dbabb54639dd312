package main

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

// CSVError is a problem with one line, cell or the header of the input: the file, the
// 1-based line of the record, and the column by name and 1-based position (Column is empty
// for a line that does not parse).
type CSVError struct {
	File   string
	Line   int
	Column string
	Index  int // 1-based column position; 0 when the column does not exist
	Err    error
}

func (e *CSVError) Error() string {
	if e.Column == "" {
		return fmt.Sprintf("analyze: %s:%d: %v", e.File, e.Line, e.Err)
	}
	if e.Index == 0 {
		return fmt.Sprintf("analyze: %s:%d: column %q: %v", e.File, e.Line, e.Column, e.Err)
	}
	return fmt.Sprintf("analyze: %s:%d: column %q (%d): %v", e.File, e.Line, e.Column, e.Index, e.Err)
}

func (e *CSVError) Unwrap() error { return e.Err }

// Errors wrapped by CSVError.
var (
	errNoColumn   = errors.New("no such column")
	errNotNumber  = errors.New("not a number")
	errNotFinite  = errors.New("NaN or infinite value")
	errEmptyCell  = errors.New("empty cell")
	errDuplicated = errors.New("column name appears twice in the header")
)

// table is a CSV file with a header row.
type table struct {
	path   string
	header []string
	rows   [][]string
	lines  []int // lines[i] is the 1-based line where rows[i] starts
}

func readTable(path string) (*table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("analyze: %w", err)
	}
	defer f.Close()
	return parseTable(path, f)
}

// parseTable reads a CSV with a header row. Every record must have as many fields as the
// header; surrounding spaces of a field are ignored.
func parseTable(path string, r io.Reader) (*table, error) {
	cr := csv.NewReader(r)
	cr.TrimLeadingSpace = true
	header, err := cr.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("analyze: %s: empty file, want a header row", path)
	}
	if err != nil {
		return nil, lineError(path, err, 0)
	}
	t := &table{path: path, header: make([]string, len(header))}
	seen := map[string]bool{}
	for j, h := range header {
		h = strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))
		if seen[h] {
			return nil, &CSVError{File: path, Line: 1, Column: h, Index: j + 1, Err: errDuplicated}
		}
		seen[h] = true
		t.header[j] = h
	}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, lineError(path, err, len(t.header))
		}
		line, _ := cr.FieldPos(0)
		t.rows = append(t.rows, rec)
		t.lines = append(t.lines, line)
	}
	return t, nil
}

// lineError names the file and line of a CSV syntax error (a record with the wrong number
// of fields, a bad quote); fields is the header's width, 0 while reading the header.
func lineError(path string, err error, fields int) error {
	var pe *csv.ParseError
	if !errors.As(err, &pe) {
		return fmt.Errorf("analyze: %s: %w", path, err)
	}
	e := pe.Err
	if errors.Is(e, csv.ErrFieldCount) {
		e = fmt.Errorf("%w (the header has %d)", e, fields)
	} else if pe.StartLine != pe.Line {
		e = fmt.Errorf("%w (in the record that starts on line %d)", e, pe.StartLine)
	}
	return &CSVError{File: path, Line: pe.Line, Err: e}
}

func (t *table) column(name string) (int, error) {
	for j, h := range t.header {
		if h == name {
			return j, nil
		}
	}
	return 0, &CSVError{File: t.path, Line: 1, Column: name, Err: fmt.Errorf("%w (header: %s)", errNoColumn, strings.Join(t.header, ", "))}
}

// cell parses row i of column j as a finite number; ok is false for an empty cell.
func (t *table) cell(i, j int) (v float64, ok bool, err error) {
	s := strings.TrimSpace(t.rows[i][j])
	if s == "" {
		return 0, false, nil
	}
	v, perr := strconv.ParseFloat(s, 64)
	if perr != nil && !errors.Is(perr, strconv.ErrRange) {
		return 0, false, t.cellError(i, j, fmt.Errorf("%q is %w", s, errNotNumber))
	}
	if perr != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false, t.cellError(i, j, fmt.Errorf("%q: %w", s, errNotFinite))
	}
	return v, true, nil
}

func (t *table) cellError(i, j int, err error) error {
	return &CSVError{File: t.path, Line: t.lines[i], Column: t.header[j], Index: j + 1, Err: err}
}

// numbers returns the values of a column, skipping empty cells.
func (t *table) numbers(name string) ([]float64, error) {
	j, err := t.column(name)
	if err != nil {
		return nil, err
	}
	var out []float64
	for i := range t.rows {
		v, ok, err := t.cell(i, j)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, v)
		}
	}
	return out, nil
}

// paired returns the values of several columns row by row; an empty cell is an error
// because it would misalign the columns.
func (t *table) paired(names ...string) ([][]float64, error) {
	idx := make([]int, len(names))
	for k, name := range names {
		j, err := t.column(name)
		if err != nil {
			return nil, err
		}
		idx[k] = j
	}
	out := make([][]float64, len(names))
	for k := range out {
		out[k] = make([]float64, len(t.rows))
	}
	for i := range t.rows {
		for k, j := range idx {
			v, ok, err := t.cell(i, j)
			if err != nil {
				return nil, err
			}
			if !ok {
				return nil, t.cellError(i, j, errEmptyCell)
			}
			out[k][i] = v
		}
	}
	return out, nil
}

// strings returns the raw values of a column.
func (t *table) strings(name string) ([]string, error) {
	j, err := t.column(name)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(t.rows))
	for i, r := range t.rows {
		out[i] = strings.TrimSpace(r[j])
	}
	return out, nil
}
