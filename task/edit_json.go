package task

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// MarshalJSON encodes e as a gt_diff object (see Edits) with the release's type names
// "Add", "Delete" and "Modify"; no edits, nil included, is {} as in the release. Two edits
// with the same key, a negative line or tie, or an unknown type are an error.
func (e Edits) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	seen := make(map[string]bool, len(e))
	for i, x := range e {
		if x.Type < Add || x.Type > Modify {
			return nil, fmt.Errorf("task: edit %d: invalid edit type %d", i, int(x.Type))
		}
		if x.Line < 0 || x.Tie < 0 {
			return nil, fmt.Errorf("task: edit %d: negative line or tie in %d/%d", i, x.Line, x.Tie)
		}
		k := x.Key()
		if seen[k] {
			return nil, fmt.Errorf("task: edit %d: duplicate key %q", i, k)
		}
		seen[k] = true
		if i > 0 {
			buf.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		buf.Write(kb)
		buf.WriteByte(':')
		vb, err := json.Marshal(struct {
			Type     string `json:"type"`
			Original string `json:"original"`
			Modified string `json:"modified"`
		}{releaseTypeName[x.Type], x.Original, x.Modified})
		if err != nil {
			return nil, fmt.Errorf("task: edit %d: %w", i, err)
		}
		buf.Write(vb)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// UnmarshalJSON decodes a gt_diff object, or a JSON string holding one, into *e (see
// Edits for the accepted variants).
func (e *Edits) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '"' {
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return fmt.Errorf("task: gt_diff string: %w", err)
		}
		data = bytes.TrimSpace([]byte(s))
		if len(data) > 0 && data[0] == '"' {
			return fmt.Errorf("task: gt_diff: string nested in a string")
		}
	}
	if bytes.Equal(data, []byte("null")) {
		*e = nil
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("task: gt_diff: %w", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("task: gt_diff: want an object, got %v", tok)
	}
	out := Edits{}
	index := map[[2]int]int{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return fmt.Errorf("task: gt_diff: %w", err)
		}
		key := tok.(string) // object keys are always strings
		line, tie, err := parseEditKey(key)
		if err != nil {
			return err
		}
		var v struct {
			Type     *string `json:"type"`
			Original *string `json:"original"`
			Modified *string `json:"modified"`
		}
		if err := dec.Decode(&v); err != nil {
			return fmt.Errorf("task: gt_diff key %q: %w", clip(key), err)
		}
		if v.Type == nil {
			return fmt.Errorf("task: gt_diff key %q: missing type", clip(key))
		}
		typ, err := parseEditType(*v.Type)
		if err != nil {
			return fmt.Errorf("task: gt_diff key %q: %w", clip(key), err)
		}
		x := LineEdit{Line: line, Tie: tie, Type: typ}
		if v.Original != nil {
			x.Original = *v.Original
		}
		if v.Modified != nil {
			x.Modified = *v.Modified
		}
		if at, dup := index[[2]int{line, tie}]; dup {
			out[at] = x
			continue
		}
		index[[2]int{line, tie}] = len(out)
		out = append(out, x)
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return fmt.Errorf("task: gt_diff: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("task: gt_diff: data after the object")
	}
	*e = out
	return nil
}

// parseEditKey reads "12", "12 ", "12  " as (12, 0), (12, 1), (12, 2).
func parseEditKey(key string) (line, tie int, err error) {
	digits := strings.TrimRight(key, " ")
	tie = len(key) - len(digits)
	digits = strings.TrimSpace(digits)
	line, err = strconv.Atoi(digits)
	if err != nil || line < 0 || strings.HasPrefix(digits, "+") {
		return 0, 0, fmt.Errorf("task: gt_diff key %q: not a line number", clip(key))
	}
	return line, tie, nil
}

// releaseTypeName spells the edit types as the PDB release writes and compares them
// (case-sensitively): its block parser and apply step ignore any other spelling.
var releaseTypeName = [...]string{Add: "Add", Delete: "Delete", Modify: "Modify"}

func parseEditType(s string) (EditType, error) {
	switch strings.ToLower(s) {
	case "add":
		return Add, nil
	case "delete":
		return Delete, nil
	case "modify":
		return Modify, nil
	}
	return 0, fmt.Errorf("unknown edit type %q", clip(s))
}
