package task

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// ReadRecords decodes a file of JSON records in either of the two forms datasets are
// exchanged in: a JSON array of values (the PDB release's *_pdb_*.json files, its
// evaluator's prediction files, HF datasets saved with json.dump), recognised by its
// first byte other than white space or a UTF-8 byte order mark being '[', or JSON Lines
// (see ReadJSONL). It calls fn with each record's 1-based line number — the line on which
// the value starts — and the value, in order.
//
// It stops at the first error: a read error, a value that does not decode or a malformed
// array (a *JSONLError naming the line: for a syntax error, the line where the decoder
// found it), or an error fn returns (wrapped in a *JSONLError carrying the line).
func ReadRecords[T any](r io.Reader, fn func(line int, v T) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	buf, err := br.Peek(br.Size())
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return fmt.Errorf("task: records: %w", err)
	}
	rest := bytes.TrimLeft(bytes.TrimPrefix(buf, []byte("\xef\xbb\xbf")), " \t\r\n")
	if len(rest) == 0 && len(buf) == br.Size() {
		// A blank prefix longer than the buffer: decide on the whole input.
		data, err := io.ReadAll(br)
		if err != nil {
			return fmt.Errorf("task: records: %w", err)
		}
		if t := bytes.TrimLeft(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), " \t\r\n"); len(t) > 0 && t[0] == '[' {
			return readArray(data, fn)
		}
		return ReadJSONL(bytes.NewReader(data), fn)
	}
	if len(rest) == 0 || rest[0] != '[' {
		return ReadJSONL(br, fn)
	}
	data, err := io.ReadAll(br)
	if err != nil {
		return fmt.Errorf("task: records: %w", err)
	}
	return readArray(data, fn)
}

// readArray decodes the elements of the JSON array held in data (possibly after a byte
// order mark and white space), calling fn with each element's starting line.
func readArray[T any](data []byte, fn func(line int, v T) error) error {
	bom := 0
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		bom = 3
	}
	body := data[bom:]
	// lineAt counts lines incrementally: offsets only grow.
	line, seen := 1, 0
	lineAt := func(off int64) int {
		o := min(int(off), len(body))
		if o > seen {
			line += bytes.Count(body[seen:o], []byte("\n"))
			seen = o
		}
		return line
	}
	syntax := func(err error) error {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return &JSONLError{Line: lineAt(se.Offset), Err: err}
		}
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return &JSONLError{Line: lineAt(int64(len(body))), Err: fmt.Errorf("unexpected end of the JSON array")}
		}
		return &JSONLError{Line: line, Err: err}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if _, err := dec.Token(); err != nil { // the opening bracket
		return syntax(err)
	}
	for dec.More() {
		// The element starts after white space and a separating comma.
		start := dec.InputOffset()
		for int(start) < len(body) && bytes.IndexByte([]byte(" \t\r\n,"), body[start]) >= 0 {
			start++
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return syntax(err)
		}
		n := lineAt(start)
		var v T
		if err := json.Unmarshal(raw, &v); err != nil {
			return jsonlError(n, err)
		}
		if err := fn(n, v); err != nil {
			return &JSONLError{Line: n, Err: err}
		}
	}
	if _, err := dec.Token(); err != nil { // the closing bracket
		return syntax(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return &JSONLError{Line: lineAt(dec.InputOffset()), Err: errors.New("data after the JSON array")}
	}
	return nil
}
