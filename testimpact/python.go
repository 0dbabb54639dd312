package testimpact

import (
	"context"
	"fmt"
	"slices"

	"github.com/faultline-dev/faultline/corrupt"
	"github.com/faultline-dev/faultline/extract"
	"github.com/faultline-dev/faultline/task"
)

// recordPython traces each test file alone, then the collection of the whole suite.
func recordPython(ctx context.Context, r task.Runner, req task.RunRequest, passing []string, opts Options) (*corrupt.Impact, Stats, error) {
	files, groups := groupBy(passing, pytestFile)
	b := newBuilder(groups)
	traces := make([][]region, len(files))
	ok := make([]bool, len(files))
	st := Stats{Runs: len(files) + 1}
	err := forEach(ctx, len(files), opts.Jobs, opts.Progress, func(ctx context.Context, i int) error {
		tr, _, err := extract.TracePython(ctx, r, req, files[i], false, extract.TraceOptions{Limits: opts.Limits})
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return nil // the file's tests go into every subset
		}
		traces[i], ok[i] = objectRegions(tr, false), true
		return nil
	})
	if err != nil {
		return nil, st, err
	}
	for i := range files {
		if !ok[i] {
			st.Failed++
			b.always = append(b.always, groups[i]...)
			continue
		}
		b.add(i, traces[i])
	}
	// What runs while the suite is collected runs outside any test.
	coll, err := collectTrace(ctx, r, req, files, opts.Limits)
	if err != nil {
		return nil, st, err
	}
	b.add(-1, objectRegions(coll, true))
	im, err := b.impact()
	return im, st, err
}

// objectRegions turns the executed objects of a trace into point regions at their first
// line (the first decorator's for a decorated definition).
func objectRegions(tr *extract.Trace, outside bool) []region {
	out := make([]region, 0, len(tr.Objects))
	for _, o := range tr.Objects {
		if o.Line < 1 || o.File == "" {
			continue
		}
		out = append(out, region{file: o.File, line: o.Line, end: o.Line, outsideAny: outside})
	}
	return out
}

// collectTrace collects the test files under the tracer (pytest --collect-only) and returns
// the trace: the code that runs at import and collection time.
func collectTrace(ctx context.Context, r task.Runner, base task.RunRequest, files []string, lim task.Limits) (*extract.Trace, error) {
	req := base
	req.Kind = task.Pytest
	req.Overlay = base.Overlay.Clone()
	if req.Overlay == nil {
		req.Overlay = task.Overlay{}
	}
	req.Overlay.Set(extract.TracerModule+".py", extract.TracerSource())
	req.Select = task.Selection{Files: slices.Clone(files)}
	req.Limits = lim
	if req.Limits.OutputBytes == 0 {
		req.Limits.OutputBytes = 256 << 20
	}
	req.Args = append(append([]string{"-p", extract.TracerModule}, base.Args...), "--collect-only")
	rep, err := r.Run(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("testimpact: collecting under the tracer: %w", err)
	}
	tr, err := extract.ParseTraceOutput(rep.Output)
	if err != nil {
		return nil, fmt.Errorf("testimpact: collecting under the tracer (run %s): %w", rep.Cause(), err)
	}
	return tr, nil
}
