package corrupt

// Test-impact validation: which tests can notice a corruption, so that a candidate runs
// those first and the whole suite only when it is about to be kept.

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/faultline-dev/faultline/task"
)

// Impact records, for one state of a repository (its files and its baseline), which tests
// executed which code. A recorder (package testimpact) builds it from coverage or traces;
// Generate uses it through Options.Impact.
//
// The unit of observation is a group: the tests one recording run executed together (a
// Python test file's tests, a Go top-level test with its subtests). A region is code that
// ran: a Python definition (a point: its first line, the first decorator's for a decorated
// one) or a Go coverage block (a line range), with the groups whose run executed it.
type Impact struct {
	// Groups holds the test IDs of each group, as the baseline names them.
	Groups [][]string `json:"groups"`
	// Regions holds the code that ran, with the indices of the groups that ran it.
	Regions []ImpactRegion `json:"regions"`
	// Always holds the tests no recording observed (their group's recording failed, or
	// they are in no group): they are in every subset, since nothing says what they run.
	Always []string `json:"always,omitempty"`
}

// ImpactRegion is code of one file that ran during the recording.
type ImpactRegion struct {
	File    string `json:"file"` // slash path relative to the repository root
	Line    int    `json:"line"` // first line, 1-based
	EndLine int    `json:"end_line"`
	Groups  []int  `json:"groups,omitempty"`
	// Global marks code that ran outside any test: at import or collection time, in an
	// init function, a package-level variable or TestMain. A corruption there can change
	// every test (or stop the suite from collecting), so it impacts all of them.
	Global bool `json:"global,omitempty"`
}

// impactSpan is the source lines of a corrupted function.
type impactSpan struct {
	file       string
	start, end int
}

// affected returns the groups whose recording ran code inside one of the spans, and
// whether the whole suite must run instead: a span holds code that ran outside any test
// (ImpactRegion.Global), or no recorded test reached a span at all. The latter is not a
// proof that no test can reach it (a test may reach it only through state another test
// left behind, which a recording of tests apart does not see), so such a corruption is
// judged by the whole suite rather than rejected.
func (im *Impact) affected(spans []impactSpan) (groups []int, full bool) {
	seen := map[int]bool{}
	for _, s := range spans {
		reached := false
		for _, r := range im.Regions {
			if r.File != s.file || r.EndLine < s.start || r.Line > s.end {
				continue
			}
			if r.Global {
				return nil, true
			}
			for _, gi := range r.Groups {
				reached = true
				if !seen[gi] {
					seen[gi] = true
					groups = append(groups, gi)
				}
			}
		}
		if !reached {
			return nil, true
		}
	}
	sort.Ints(groups)
	return groups, false
}

// subset returns the baseline-passing, non-flaky tests that can notice the corruption of
// spans (sorted), or ok false when the whole suite must run: see affected; also when the
// subset is every such test (one run of the suite is then cheaper than two).
func (im *Impact) subset(spans []impactSpan, base Baseline) (ids []string, ok bool) {
	groups, full := im.affected(spans)
	if full {
		return nil, false
	}
	want := map[string]bool{}
	for _, gi := range groups {
		if gi < 0 || gi >= len(im.Groups) {
			return nil, false // a malformed impact: trust nothing
		}
		for _, id := range im.Groups[gi] {
			want[id] = true
		}
	}
	for _, id := range im.Always {
		want[id] = true
	}
	flaky := map[string]bool{}
	for _, id := range base.Flaky {
		flaky[id] = true
	}
	total := 0
	for _, id := range base.Passing {
		if flaky[id] {
			continue
		}
		total++
		if want[id] {
			ids = append(ids, id)
		}
	}
	if len(ids) == total {
		return nil, false
	}
	sort.Strings(ids)
	return ids, true
}

// Validate validates one set of chosen mutants of unit (the overlay req carries). Without
// an impact it is Validate on the whole suite. With one, the tests that can notice the
// corruption run first; a run of them that completes (task.RunOK) with fewer than
// MinFailures failures rejects the candidate — no other test can fail, so the whole suite
// would not have kept it either — and any other outcome (enough failures, a timeout, a run
// that could not run) is decided by the whole suite, so an accepted candidate's
// FAIL_TO_PASS and PASS_TO_PASS are those of a full run. The whole suite also runs directly
// when the subset cannot be trusted: an edit outside the corrupted functions (a pruned Go
// import changes which init functions run), code that runs outside any test, a function no
// recorded test reaches.
func (g *generator) validate(ctx context.Context, req task.RunRequest, unit []Candidate, chosen []Mutant) (*Validation, error) {
	if g.o.Impact != nil {
		if spans, ok := g.impactSpans(unit, chosen); ok {
			if ids, ok := g.o.Impact.subset(spans, g.base); ok {
				// The ids come from the baseline, which ran the template's selection: the
				// subset stays inside it.
				sub := req
				sub.Select = task.Selection{IDs: ids}
				v, err := Validate(ctx, g.r, sub, g.base, g.o.MinFailures, g.o.MessageLen)
				if err != nil {
					return nil, err
				}
				if v.State == task.RunOK && !v.Accepted && len(v.FailToPass) < g.o.MinFailures {
					v.Reason = fmt.Sprintf("%d test(s) fail, want at least %d (%d test(s) that reach the corruption run)", len(v.FailToPass), g.o.MinFailures, len(ids))
					v.NotRun, v.NotRunWhy = nil, nil // the tests left out were not run on purpose
					return v, nil
				}
			}
		}
	}
	return Validate(ctx, g.r, req, g.base, g.o.MinFailures, g.o.MessageLen)
}

// impactSpans returns the lines of each corrupted function (from the first decorator to
// the end), or ok false when an edit lies outside them.
func (g *generator) impactSpans(unit []Candidate, chosen []Mutant) ([]impactSpan, bool) {
	spans := make([]impactSpan, 0, len(unit))
	for i, cand := range unit {
		fn := cand.Node.Function
		start := fn.Line
		if fn.DecoratorLine > 0 && fn.DecoratorLine < start {
			start = fn.DecoratorLine
		}
		s := impactSpan{file: fn.File, start: start, end: fn.EndLine}
		if i >= len(chosen) || chosen[i].File != fn.File {
			return nil, false
		}
		src, err := g.read(fn.File)
		if err != nil {
			return nil, false
		}
		for _, e := range chosen[i].Edits {
			if e.Start < 0 || e.End > len(src) || e.End < e.Start {
				return nil, false
			}
			// The lines of the bytes replaced (an insertion: the line it lands on).
			first := 1 + bytes.Count(src[:e.Start], []byte("\n"))
			last := first
			if e.End > e.Start {
				last += bytes.Count(src[e.Start:e.End-1], []byte("\n"))
			}
			if first < s.start || last > s.end {
				return nil, false
			}
		}
		spans = append(spans, s)
	}
	return spans, true
}

// Check reports the first inconsistency of an impact: a group index out of range, a region
// without a file or with its lines reversed, a test ID in two groups.
func (im *Impact) Check() error {
	owner := map[string]int{}
	for gi, ids := range im.Groups {
		for _, id := range ids {
			if prev, ok := owner[id]; ok && prev != gi {
				return fmt.Errorf("corrupt: impact: test %s is in groups %d and %d", id, prev, gi)
			}
			owner[id] = gi
		}
	}
	for _, r := range im.Regions {
		if r.File == "" || strings.HasPrefix(r.File, "/") || r.Line < 1 || r.EndLine < r.Line {
			return fmt.Errorf("corrupt: impact: bad region %q lines %d-%d", r.File, r.Line, r.EndLine)
		}
		for _, gi := range r.Groups {
			if gi < 0 || gi >= len(im.Groups) {
				return fmt.Errorf("corrupt: impact: region %s:%d names group %d of %d", r.File, r.Line, gi, len(im.Groups))
			}
		}
	}
	return nil
}
