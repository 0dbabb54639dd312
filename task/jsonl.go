package task

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// JSONL (JSON Lines): one JSON value per line, as datasets and prediction files are
// exchanged. The reader takes lines of any length (no bufio.Scanner token limit), skips
// blank lines, accepts "\r\n" line ends, a missing final newline and a UTF-8 byte order
// mark at the start, and reports errors
// with the 1-based line number and, when known, the member that failed to decode.

// JSONLError is an error on one line of a JSONL stream. Field names the JSON member that
// failed (from a *FieldError or a *json.UnmarshalTypeError), or is empty.
type JSONLError struct {
	Line  int
	Field string
	Err   error
}

func (e *JSONLError) Error() string {
	s := fmt.Sprintf("task: jsonl line %d", e.Line)
	if e.Field != "" {
		s += ": field " + e.Field
	}
	err := e.Err
	var fe *FieldError
	if errors.As(err, &fe) && fe.Field == e.Field {
		err = fe.Err
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%s: offset %d: %v", s, se.Offset, err)
	}
	return s + ": " + err.Error()
}

// Unwrap returns the underlying error.
func (e *JSONLError) Unwrap() error { return e.Err }

func jsonlError(line int, err error) *JSONLError {
	e := &JSONLError{Line: line, Err: err}
	var fe *FieldError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &fe):
		e.Field = fe.Field
	case errors.As(err, &te):
		e.Field = te.Field
	}
	return e
}

// ReadJSONL decodes every non-blank line of r as a T and calls fn with the line's 1-based
// number and the value, in order. It stops at the first error: a read error, a line
// that does not decode (a *JSONLError), or an error fn returns (wrapped in a *JSONLError
// carrying the line, so errors.Is/As still see it).
func ReadJSONL[T any](r io.Reader, fn func(line int, v T) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	n := 0
	for {
		line, readErr := br.ReadBytes('\n')
		if len(line) > 0 {
			n++
			trimmed := bytes.TrimSpace(line)
			if n == 1 {
				trimmed = bytes.TrimPrefix(trimmed, []byte("\xef\xbb\xbf")) // a UTF-8 byte order mark
			}
			if len(trimmed) > 0 {
				var v T
				if err := json.Unmarshal(trimmed, &v); err != nil {
					return jsonlError(n, err)
				}
				if err := fn(n, v); err != nil {
					return &JSONLError{Line: n, Err: err}
				}
			}
		}
		if readErr == io.EOF {
			return nil
		}
		if readErr != nil {
			return fmt.Errorf("task: jsonl after line %d: %w", n, readErr)
		}
	}
}

// ReadAllJSONL decodes every non-blank line of r into a slice.
func ReadAllJSONL[T any](r io.Reader) ([]T, error) {
	var out []T
	err := ReadJSONL(r, func(_ int, v T) error {
		out = append(out, v)
		return nil
	})
	return out, err
}

// JSONLWriter writes one compact JSON value per line. Key order is deterministic: the
// record types of this package write sorted keys, maps are written with sorted keys
// (encoding/json's rule) and structs in field order. HTML characters are not escaped.
// A JSONLWriter is not safe for concurrent use.
type JSONLWriter struct {
	w   io.Writer
	buf bytes.Buffer
	enc *json.Encoder
	n   int
}

// NewJSONLWriter returns a writer of JSON lines to w. Each Write issues one Write call
// on w with one complete line.
func NewJSONLWriter(w io.Writer) *JSONLWriter {
	jw := &JSONLWriter{w: w}
	jw.enc = json.NewEncoder(&jw.buf)
	jw.enc.SetEscapeHTML(false)
	return jw
}

// Write encodes v as one line.
func (w *JSONLWriter) Write(v any) error {
	w.buf.Reset()
	if err := w.enc.Encode(v); err != nil {
		return fmt.Errorf("task: jsonl record %d: %w", w.n+1, err)
	}
	if _, err := w.w.Write(w.buf.Bytes()); err != nil {
		return fmt.Errorf("task: jsonl record %d: %w", w.n+1, err)
	}
	w.n++
	return nil
}

// Count returns the number of lines written.
func (w *JSONLWriter) Count() int { return w.n }

// WriteJSONL writes vs to w, one line each.
func WriteJSONL[T any](w io.Writer, vs []T) error {
	jw := NewJSONLWriter(w)
	for _, v := range vs {
		if err := jw.Write(v); err != nil {
			return err
		}
	}
	return nil
}
