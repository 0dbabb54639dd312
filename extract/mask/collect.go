package mask

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/faultline-dev/faultline/task"
)

// ErrNotCollected is wrapped by the error MaskUntilCollects returns when the masked tree
// still does not collect after the allowed runs.
var ErrNotCollected = errors.New("mask: masked tree does not collect")

// CollectRequest says what must still collect after masking.
type CollectRequest struct {
	Root    string        // repository root (read only)
	Targets []Target      // definitions to remove
	Kind    task.TestKind // task.Pytest or task.GoTest
	// Select chooses the tests that must collect (typically the F2P test file).
	Select task.Selection
	// Overlay is applied under the mask (for example other changes the caller makes).
	Overlay task.Overlay
	Limits  task.Limits
}

// LoopOptions configure MaskUntilCollects. The zero value works.
type LoopOptions struct {
	Options
	// MaxRuns bounds the collection runs (default 16). Bisection steps count as runs.
	MaxRuns int
}

// CollectArgs returns the extra test-command arguments that make a run collect or build
// the selected tests without running any: `--collect-only -q` for pytest, `-run ^$` for
// Go (the test binaries are built and no test runs).
func CollectArgs(kind task.TestKind) []string {
	if kind == task.GoTest {
		return []string{"-run", "^$"}
	}
	return []string{"--collect-only", "-q"}
}

// Collected reports whether a collection run succeeded: it ran (RunOK), or it found
// nothing to run (RunNoTests) without an error.
func Collected(rep *task.Report) bool {
	return rep.State == task.RunOK || rep.State == task.RunNoTests
}

var pyErrRE = []*regexp.Regexp{
	regexp.MustCompile(`NameError: name '([A-Za-z_]\w*)' is not defined`),
	regexp.MustCompile(`ImportError: cannot import name '([A-Za-z_]\w*)'`),
	regexp.MustCompile(`AttributeError: .*has no attribute '([A-Za-z_]\w*)'`),
}

var goPosRE = regexp.MustCompile(`^\S+\.go:\d+(:\d+)?: `)

// BlamedNames extracts the names a failed collection's output blames: NameError,
// ImportError ("cannot import name") and AttributeError messages for pytest; `undefined:
// X`, `x.M undefined` and missing-method build errors for Go. Sorted, without duplicates.
func BlamedNames(kind task.TestKind, output string) []string {
	seen := map[string]bool{}
	for _, line := range strings.Split(output, "\n") {
		line = strings.TrimSpace(line)
		if kind == task.GoTest {
			line = goPosRE.ReplaceAllString(line, "")
			for _, n := range namedBy(line) {
				seen[n] = true
			}
			continue
		}
		for _, re := range pyErrRE {
			for _, m := range re.FindAllStringSubmatch(line, -1) {
				seen[m[1]] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// MaskUntilCollects masks the targets and checks with runner that the selected tests still
// collect (see CollectArgs). On failure it protects the removed targets whose last name
// component is blamed by the output (BlamedNames) and masks again; when nothing removed is
// blamed, it bisects: it finds the shortest prefix of the removals (in Result.Removed
// order) whose removal fails to collect and protects the last target of that prefix. Each
// protection made here has ReasonCollect or ReasonBisect, followed by the blamed names.
// Runs are bounded by LoopOptions.MaxRuns; when they run out, the error wraps
// ErrNotCollected. A runner error is returned as it is.
func MaskUntilCollects(ctx context.Context, runner task.Runner, req CollectRequest, opts LoopOptions) (*Result, error) {
	maxRuns := opts.MaxRuns
	if maxRuns <= 0 {
		maxRuns = 16
	}
	extra := map[Target]string{} // protections made here
	runs := 0
	collect := func(o task.Overlay) (bool, string, error) {
		runs++
		rr := task.RunRequest{Root: req.Root, Overlay: req.Overlay.Merge(o), Kind: req.Kind, Select: req.Select,
			Limits: req.Limits, Args: CollectArgs(req.Kind)}
		rep, err := runner.Run(ctx, rr)
		if err != nil {
			return false, "", fmt.Errorf("mask: collection run: %w", err)
		}
		if Collected(rep) {
			return true, "", nil
		}
		return false, rep.Detail + "\n" + rep.Output, nil
	}
	mask := func() (*Result, error) {
		o := opts.Options
		o.Keep = append(append([]Target(nil), opts.Keep...), keys(extra)...)
		res, err := Mask(ctx, req.Root, req.Targets, o)
		if err != nil {
			return nil, err
		}
		for i, p := range res.Protected {
			if why, ok := extra[p.Target]; ok {
				res.Protected[i].Reason = why
			}
		}
		return res, nil
	}
	for {
		res, err := mask()
		if err != nil {
			return nil, err
		}
		if len(res.Removed) == 0 {
			res.Runs = runs
			return res, nil
		}
		if runs >= maxRuns {
			return nil, fmt.Errorf("%w after %d runs", ErrNotCollected, runs)
		}
		ok, out, err := collect(res.Overlay)
		if err != nil {
			return nil, err
		}
		if ok {
			res.Runs = runs
			return res, nil
		}
		names := BlamedNames(req.Kind, out)
		blamed := map[string]bool{}
		for _, n := range names {
			blamed[n] = true
		}
		grew := false
		for _, r := range res.Removed {
			last := r.Target.Name[strings.LastIndexByte(r.Target.Name, '.')+1:]
			if blamed[last] {
				if _, ok := extra[r.asked]; !ok {
					extra[r.asked] = ReasonCollect + ": " + strings.Join(names, ", ")
					grew = true
				}
			}
		}
		if grew {
			continue
		}
		// Bisection over prefixes of the removal list: the removals of one prefix are
		// masked by protecting every other removed target.
		culprit, err := bisect(ctx, req, opts, res, extra, collect, maxRuns, &runs)
		if err != nil {
			return nil, err
		}
		why := ReasonBisect
		if len(names) > 0 {
			why += ": " + strings.Join(names, ", ")
		}
		extra[culprit] = why
	}
}

// bisect finds the shortest failing prefix of res.Removed and returns its last target.
func bisect(ctx context.Context, req CollectRequest, opts LoopOptions, res *Result, extra map[Target]string,
	collect func(task.Overlay) (bool, string, error), maxRuns int, runs *int) (Target, error) {
	rem := res.Removed
	lo, hi := 0, len(rem) // prefix rem[:hi] fails (the whole set does); rem[:lo] collects
	for hi-lo > 1 {
		if *runs >= maxRuns {
			return Target{}, fmt.Errorf("%w after %d runs (bisecting)", ErrNotCollected, *runs)
		}
		mid := (lo + hi) / 2
		o := opts.Options
		o.Keep = append(append([]Target(nil), opts.Keep...), keys(extra)...)
		for _, r := range rem[mid:] {
			o.Keep = append(o.Keep, r.asked)
		}
		part, err := Mask(ctx, req.Root, askedOf(rem[:mid]), o)
		if err != nil {
			return Target{}, err
		}
		ok, _, err := collect(part.Overlay)
		if err != nil {
			return Target{}, err
		}
		if ok {
			lo = mid
		} else {
			hi = mid
		}
	}
	return rem[hi-1].asked, nil
}

func askedOf(rs []Removal) []Target {
	out := make([]Target, len(rs))
	for i, r := range rs {
		out[i] = r.asked
	}
	return out
}

func keys(m map[Target]string) []Target {
	out := make([]Target, 0, len(m))
	for t := range m {
		out = append(out, t)
	}
	sortTargets(out)
	return out
}
