package extract

import (
	"bytes"
	"compress/zlib"
	"context"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/faultline-dev/faultline/task"
)

//go:embed tracer.py
var tracerSource []byte

// TracerModule is the module name under which the tracer is placed at the repository root
// of a run's overlay and loaded with `-p`.
const TracerModule = "_faultline_tracer"

// Markers delimiting the tracer's payload in a run's output.
const (
	traceBegin = "@@FAULTLINE-TRACE-BEGIN@@"
	traceEnd   = "@@FAULTLINE-TRACE-END@@"
)

// maxTraceBytes caps the decompressed size of a trace payload.
const maxTraceBytes = 1 << 30

// ErrNoTrace is wrapped when a run's output holds no trace payload (the tracer did not run
// or its output was cut).
var ErrNoTrace = errors.New("extract: no trace in the run output")

// ErrBadTrace is wrapped when a trace payload does not decode or is inconsistent.
var ErrBadTrace = errors.New("extract: malformed trace")

// TracerSource returns the embedded Python tracer (a pytest plugin; see the package doc).
func TracerSource() []byte { return slices.Clone(tracerSource) }

// Object is one executed repository object of a trace: a function, method or class body.
type Object struct {
	// ID is `file::Qualified.Name::line` (see the package doc).
	ID   string `json:"id"`
	File string `json:"file"`
	Name string `json:"name"`
	Line int    `json:"line"`
	// Calls counts the times the object was entered.
	Calls int `json:"calls"`
	// Callees are the ids of the repository objects it called, sorted.
	Callees []string `json:"callees"`
}

// Import is one import statement executed in a repository file: File imported Name from
// Module (Name is empty for `import module`); Target is the id of the repository object
// the name is bound to, empty when it is not one (a module, a constant, a third-party
// object).
type Import struct {
	File   string `json:"file"`
	Module string `json:"module"`
	Name   string `json:"name"`
	Target string `json:"target"`
}

// Trace is the dynamic trace of one test file: the repository objects that ran, with
// their callees, and the imports executed in repository files. Objects are sorted by ID,
// imports by (File, Module, Name, Target).
type Trace struct {
	// Python is the interpreter version that produced the trace (empty for Go traces).
	Python  string   `json:"python,omitempty"`
	Objects []Object `json:"objects"`
	Imports []Import `json:"imports"`
}

// Lookup returns the object with the given id.
func (t *Trace) Lookup(id string) (*Object, bool) {
	i, ok := slices.BinarySearchFunc(t.Objects, id, func(o Object, id string) int { return strings.Compare(o.ID, id) })
	if !ok {
		return nil, false
	}
	return &t.Objects[i], true
}

// IDs returns the ids of the trace's objects, sorted.
func (t *Trace) IDs() []string {
	ids := make([]string, len(t.Objects))
	for i, o := range t.Objects {
		ids[i] = o.ID
	}
	return ids
}

// ParseObjectID splits an object id `file::Qualified.Name::line` into its parts.
func ParseObjectID(id string) (file, name string, line int, err error) {
	i := strings.Index(id, "::")
	j := strings.LastIndex(id, "::")
	if i <= 0 || j <= i+2 {
		return "", "", 0, fmt.Errorf("%w: object id %q is not file::name::line", ErrBadTrace, id)
	}
	line, err = strconv.Atoi(id[j+2:])
	if err != nil || line < 0 {
		return "", "", 0, fmt.Errorf("%w: object id %q has no line", ErrBadTrace, id)
	}
	return id[:i], id[i+2 : j], line, nil
}

// ObjectID builds an object id.
func ObjectID(file, name string, line int) string {
	return file + "::" + name + "::" + strconv.Itoa(line)
}

// ParseTraceOutput finds the last trace payload in a run's output (base64 of the
// zlib-compressed JSON, between marker lines) and decodes it. The trace is validated:
// objects sorted by unique ID, each ID consistent with its file, name and line, callees
// sorted, unique and present among the objects, imports sorted.
func ParseTraceOutput(output string) (*Trace, error) {
	b := strings.LastIndex(output, traceBegin)
	if b < 0 {
		return nil, ErrNoTrace
	}
	rest := output[b+len(traceBegin):]
	e := strings.Index(rest, traceEnd)
	if e < 0 {
		return nil, fmt.Errorf("%w: the payload has no end marker", ErrNoTrace)
	}
	payload := strings.Join(strings.Fields(rest[:e]), "")
	raw, err := base64.StdEncoding.DecodeString(payload)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadTrace, err)
	}
	zr, err := zlib.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadTrace, err)
	}
	data, err := io.ReadAll(io.LimitReader(zr, maxTraceBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadTrace, err)
	}
	if len(data) > maxTraceBytes {
		return nil, fmt.Errorf("%w: payload larger than %d bytes", ErrBadTrace, maxTraceBytes)
	}
	return DecodeTrace(data)
}

// DecodeTrace decodes and validates the tracer's JSON document (see ParseTraceOutput).
func DecodeTrace(data []byte) (*Trace, error) {
	var doc struct {
		Version int    `json:"version"`
		Python  string `json:"python"`
		Objects []Object
		Imports []Import
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadTrace, err)
	}
	if doc.Version != 1 {
		return nil, fmt.Errorf("%w: version %d, want 1", ErrBadTrace, doc.Version)
	}
	t := &Trace{Python: doc.Python, Objects: doc.Objects, Imports: doc.Imports}
	if t.Objects == nil {
		t.Objects = []Object{}
	}
	if t.Imports == nil {
		t.Imports = []Import{}
	}
	if err := t.Validate(); err != nil {
		return nil, err
	}
	return t, nil
}

// Validate checks the invariants ParseTraceOutput promises.
func (t *Trace) Validate() error {
	for i := range t.Objects {
		o := &t.Objects[i]
		if i > 0 && t.Objects[i-1].ID >= o.ID {
			return fmt.Errorf("%w: objects not sorted or duplicated at %q", ErrBadTrace, o.ID)
		}
		f, n, l, err := ParseObjectID(o.ID)
		if err != nil {
			return err
		}
		if f != o.File || n != o.Name || l != o.Line {
			return fmt.Errorf("%w: object %q disagrees with its file, name or line", ErrBadTrace, o.ID)
		}
		if o.Callees == nil {
			o.Callees = []string{}
		}
		for k, c := range o.Callees {
			if k > 0 && o.Callees[k-1] >= c {
				return fmt.Errorf("%w: callees of %q not sorted or duplicated", ErrBadTrace, o.ID)
			}
		}
	}
	for i := range t.Objects {
		for _, c := range t.Objects[i].Callees {
			if _, ok := t.Lookup(c); !ok {
				return fmt.Errorf("%w: callee %q of %q is not an object", ErrBadTrace, c, t.Objects[i].ID)
			}
		}
	}
	for i := 1; i < len(t.Imports); i++ {
		if !importLess(t.Imports[i-1], t.Imports[i]) {
			return fmt.Errorf("%w: imports not sorted or duplicated at %q", ErrBadTrace, t.Imports[i].File)
		}
	}
	return nil
}

func importLess(a, b Import) bool {
	if a.File != b.File {
		return a.File < b.File
	}
	if a.Module != b.Module {
		return a.Module < b.Module
	}
	if a.Name != b.Name {
		return a.Name < b.Name
	}
	return a.Target < b.Target
}

// TraceOptions configure TracePython. The zero value works.
type TraceOptions struct {
	// Limits for the traced run; a zero OutputBytes is raised to 256 MiB so that the
	// payload at the end of the output is never cut.
	Limits task.Limits
	// Args are extra pytest arguments.
	Args []string
}

// TracePython runs the pytest file testFile of base.Root (with base.Overlay) under the
// tracer and returns its trace together with the run's report. With collectOnly the run
// only collects (`--collect-only`): the objects of that trace are those executed at import
// and collection time, which extraction must protect.
//
// The tracer is added to the overlay as TracerModule at the root and loaded with `-p`,
// so any task.Runner that runs `python -m pytest` in the tree's root works. A run whose
// output holds no trace comes back with an error wrapping ErrNoTrace that quotes the
// report's state and detail.
func TracePython(ctx context.Context, r task.Runner, base task.RunRequest, testFile string, collectOnly bool, opts TraceOptions) (*Trace, *task.Report, error) {
	f, err := task.CleanRelPath(testFile)
	if err != nil {
		return nil, nil, fmt.Errorf("extract: trace %s: %w", testFile, err)
	}
	req := base
	req.Kind = task.Pytest
	req.Overlay = base.Overlay.Clone()
	if req.Overlay == nil {
		req.Overlay = task.Overlay{}
	}
	req.Overlay.Set(TracerModule+".py", tracerSource)
	req.Select = task.Selection{Files: []string{f}}
	req.Limits = opts.Limits
	if req.Limits.OutputBytes == 0 {
		req.Limits.OutputBytes = 256 << 20
	}
	req.Args = append(append([]string{"-p", TracerModule}, base.Args...), opts.Args...)
	if collectOnly {
		req.Args = append(req.Args, "--collect-only")
	}
	rep, err := r.Run(ctx, req)
	if err != nil {
		return nil, nil, fmt.Errorf("extract: trace %s: %w", f, err)
	}
	t, err := ParseTraceOutput(rep.Output)
	if err != nil {
		return nil, rep, fmt.Errorf("extract: trace %s (run %s: %s): %w", f, rep.State, firstLine(rep.Detail), err)
	}
	return t, rep, nil
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}
