package testimpact

import (
	"context"
	"slices"
	"strings"

	"github.com/faultline-dev/faultline/corrupt"
	"github.com/faultline-dev/faultline/extract"
	"github.com/faultline-dev/faultline/task"
)

// recordGo runs each top-level test alone with coverage over the module.
func recordGo(ctx context.Context, r task.Runner, req task.RunRequest, passing []string, opts Options) (*corrupt.Impact, Stats, error) {
	mod, err := extract.ModulePath(req.Root)
	if err != nil {
		return nil, Stats{}, err
	}
	tops, groups := groupBy(passing, goTopLevel)
	b := newBuilder(groups)
	covered := make([][]region, len(tops))
	ok := make([]bool, len(tops))
	st := Stats{Runs: len(tops)}
	err = forEach(ctx, len(tops), opts.Jobs, opts.Progress, func(ctx context.Context, i int) error {
		run := req
		run.Kind = task.GoTest
		run.Select = task.Selection{IDs: []string{tops[i]}}
		run.Limits = opts.Limits
		if run.Limits.OutputBytes == 0 {
			run.Limits.OutputBytes = 256 << 20
		}
		run.Args = append(slices.Clone(req.Args), "-coverprofile=/dev/stderr", "-coverpkg=./...")
		rep, err := r.Run(ctx, run)
		if err != nil {
			return err
		}
		if !rep.Ran() {
			return nil // the test goes into every subset
		}
		blocks := extract.ParseCoverProfile(rep.Output)
		if len(blocks) == 0 {
			return nil
		}
		covered[i], ok[i] = blockRegions(mod, blocks), true
		return nil
	})
	if err != nil {
		return nil, st, err
	}
	for i := range tops {
		if !ok[i] {
			st.Failed++
			b.always = append(b.always, groups[i]...)
			continue
		}
		b.add(i, covered[i])
	}
	im, err := b.impact()
	return im, st, err
}

// blockRegions keeps the executed blocks of the module's files, as repository paths.
func blockRegions(mod string, blocks []extract.CoverBlock) []region {
	var out []region
	for _, bl := range blocks {
		if bl.Count <= 0 {
			continue
		}
		rel, ok := strings.CutPrefix(bl.File, mod+"/")
		if !ok {
			continue
		}
		out = append(out, region{file: rel, line: bl.StartLine, end: bl.EndLine})
	}
	return out
}

// goTopLevel returns the top-level test of a Go test id (pkg.TestX/sub → pkg.TestX).
func goTopLevel(id string) string {
	pkg, name, ok := task.SplitGoTestID(id)
	if !ok {
		return id
	}
	top, _, _ := strings.Cut(name, "/")
	return pkg + "." + top
}
