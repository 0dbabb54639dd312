package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/faultline-dev/faultline/task"
)

// maxListed bounds the input errors printed before giving up.
const maxListed = 20

// inputErrors collects the errors found in the input files, each naming file:line.
type inputErrors struct {
	errs  []string
	total int
}

func (e *inputErrors) add(path string, line int, format string, args ...any) {
	e.total++
	if len(e.errs) < maxListed {
		e.errs = append(e.errs, fmt.Sprintf("%s:%d: %s", path, line, fmt.Sprintf(format, args...)))
	}
}

func (e *inputErrors) err() error {
	if e.total == 0 {
		return nil
	}
	msg := strings.Join(e.errs, "\n")
	if e.total > len(e.errs) {
		msg += fmt.Sprintf("\n… and %d more", e.total-len(e.errs))
	}
	noun := "errors"
	if e.total == 1 {
		noun = "error"
	}
	return fmt.Errorf("%d input %s, nothing was run:\n%s", e.total, noun, msg)
}

// recordsErr turns a reading error of task.ReadRecords into file:line form.
func recordsErr(path string, err error) string {
	var je *task.JSONLError
	if errors.As(err, &je) {
		msg := je.Err.Error()
		if je.Field != "" {
			msg = "field " + je.Field + ": " + strings.TrimPrefix(msg, "task: field "+je.Field+": ")
		}
		return fmt.Sprintf("%s:%d: %s", path, je.Line, msg)
	}
	return fmt.Sprintf("%s: %v", path, err)
}

// rawRecord is one record of an input file with the line it starts on.
type rawRecord struct {
	line int
	raw  json.RawMessage
}

// readRaw reads every record of a JSON-array or JSON Lines file. A syntax error stops
// the reading (nothing after it can be trusted) and is returned in file:line form.
func readRaw(path string) ([]rawRecord, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []rawRecord
	err = task.ReadRecords(f, func(line int, raw json.RawMessage) error {
		out = append(out, rawRecord{line, raw})
		return nil
	})
	if err != nil {
		return nil, errors.New(recordsErr(path, err))
	}
	return out, nil
}

// taskIDOf reads task_id (a string or a number) from a record: "" when absent.
func taskIDOf(raw json.RawMessage) (string, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return "", errors.New("not a JSON object")
	}
	id, ok := m["task_id"]
	if !ok || bytes.Equal(bytes.TrimSpace(id), []byte("null")) {
		return "", nil
	}
	var s string
	if json.Unmarshal(id, &s) == nil {
		return s, nil
	}
	var n json.Number
	if json.Unmarshal(id, &n) == nil {
		return n.String(), nil
	}
	return "", fmt.Errorf("field task_id: want a string or a number, got %s", clip(string(id)))
}

// prediction is a debugger's solution for one task and where it was read.
type prediction struct {
	path     string
	line     int
	solution string
	predDiff task.Edits // the release's debug_results.pred_diff, when present
	hasDiff  bool
}

// predictionOf extracts the prediction a record carries: "solution" (our form), or
// debug_results.solution (the release's form: an object, or the first of a list). found
// is false when the record carries neither; a record that carries one in a broken form is
// an error.
func predictionOf(raw json.RawMessage) (p prediction, found bool, err error) {
	var m struct {
		Solution     json.RawMessage `json:"solution"`
		DebugResults json.RawMessage `json:"debug_results"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return p, false, errors.New("not a JSON object")
	}
	if m.Solution != nil {
		if err := json.Unmarshal(m.Solution, &p.solution); err != nil {
			return p, true, fmt.Errorf("field solution: want a string of code, got %s", clip(string(m.Solution)))
		}
		return p, true, nil
	}
	dr := bytes.TrimSpace(m.DebugResults)
	if len(dr) == 0 || bytes.Equal(dr, []byte("null")) {
		return p, false, nil
	}
	var one struct {
		Solution json.RawMessage `json:"solution"`
		PredDiff json.RawMessage `json:"pred_diff"`
	}
	field := "debug_results"
	switch dr[0] {
	case '{':
		if err := json.Unmarshal(dr, &one); err != nil {
			return p, true, fmt.Errorf("field debug_results: %v", err)
		}
	case '[':
		var list []json.RawMessage
		if err := json.Unmarshal(dr, &list); err != nil {
			return p, true, fmt.Errorf("field debug_results: %v", err)
		}
		if len(list) == 0 {
			return p, true, errors.New("field debug_results: empty list")
		}
		field = "debug_results[0]"
		if err := json.Unmarshal(list[0], &one); err != nil {
			return p, true, fmt.Errorf("field %s: want an object: %v", field, err)
		}
	default:
		return p, true, fmt.Errorf("field debug_results: want an object or a list, got %s", clip(string(dr)))
	}
	if one.Solution == nil {
		return p, true, fmt.Errorf("field %s: no solution", field)
	}
	if err := json.Unmarshal(one.Solution, &p.solution); err != nil {
		return p, true, fmt.Errorf("field %s.solution: want a string of code, got %s", field, clip(string(one.Solution)))
	}
	if pd := bytes.TrimSpace(one.PredDiff); len(pd) > 0 && !bytes.Equal(pd, []byte("null")) {
		if err := json.Unmarshal(pd, &p.predDiff); err != nil {
			return p, true, fmt.Errorf("field %s.pred_diff: %v", field, err)
		}
		p.hasDiff = true
	}
	return p, true, nil
}

func clip(s string) string {
	if r := []rune(s); len(r) > 60 {
		return strconv.Quote(string(r[:60])) + "…"
	}
	return s
}
