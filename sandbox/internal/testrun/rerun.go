package testrun

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/faultline-dev/faultline/task"
)

// DefaultRerunAttempts is the least default bound on the re-runs of one run
// (sandbox.Reruns.Attempts 0): the bound is twice the run's known tests when that is more.
const DefaultRerunAttempts = 100

// Attempt is one command that Resolve asks a runner to run.
type Attempt struct {
	// Seq numbers the attempts of one run; 0 is the whole request.
	Seq int
	// Unit is the test binary a re-run is about: a Go package's import path. It is "" for
	// the first attempt (the request's selection as it is) and for every pytest attempt
	// (one interpreter runs the whole selection).
	Unit string
	// Select is what to run: the request's selection, its part in Unit, or one test id.
	Select task.Selection
	// Skip lists test ids already decided, to leave out (go test -skip; pytest deselection
	// by the reporter plugin).
	Skip []string
	// Ignore lists files (slash paths relative to the root) pytest is not to collect: an
	// earlier interpreter died collecting them.
	Ignore []string
	// List asks for the tests of Unit instead of running them (go test -list).
	List bool
	// Limits are the attempt's filled limits; Timeout is what is left of the budget.
	Limits task.Limits
}

// Execute runs one attempt of a run in a fresh copy of the tree with the request's overlay
// and says what it observed (see AttemptOutput). An error aborts the run.
type Execute func(ctx context.Context, a Attempt) (CommandResult, error)

// Resolve runs req through exec and returns a report in which every selected test has a
// verdict of its own or is NotRun with the reason — the rule the package doc states. The
// first attempt runs the request as it is. When a test binary or an interpreter ended before
// all its tests had a verdict (a panic or os.Exit in a test, a package's -timeout, a
// crash, a file pytest died collecting), the tests without one are re-run, one binary or
// interpreter at a time, leaving out the decided ones: a test that was running alone when
// its binary died is run alone to confirm its Fail, tests that were running together are
// each run alone, and the rest run together again until their binary ends normally, stops
// making progress, or the budget is spent: maxAttempts re-runs (0: twice the tests known so
// far — the selection's, or those the attempts reported or listed — and at least
// DefaultRerunAttempts; negative: none), each within the run's time limit, and, when maxTime > 0, taking maxTime
// together (0: the re-runs that end at a time limit take the run's time limit together, the
// others no wall-time budget, so which tests keep no verdict does not depend on the
// machine's load; see budgetLeft), as sandbox.Reruns documents. Limits must be filled
// (FillLimits).
func Resolve(ctx context.Context, req task.RunRequest, lim task.Limits, maxAttempts int, maxTime time.Duration, exec Execute) (*task.Report, error) {
	auto := maxAttempts == 0
	if auto {
		maxAttempts = DefaultRerunAttempts
	}
	first, err := exec(ctx, Attempt{Select: req.Select, Limits: lim})
	if err != nil {
		return nil, err
	}
	a0 := assess(req.Kind, req.Select, lim, first)
	r := &resolver{req: req, lim: lim, maxAttempts: maxAttempts, autoAttempts: auto, maxTime: maxTime, exec: exec, first: a0,
		decided: map[string]task.TestResult{}, open: map[string]task.TestResult{},
		units: map[string]*unitWork{}, gaveUp: map[string]string{}, lost: map[string]string{}}
	if len(a0.conflicts) > 0 {
		return r.finishUntrusted(a0.rep, a0.conflicts), nil
	}
	r.merge(a0, "")
	if !a0.final && maxAttempts > 0 {
		if err := r.loop(ctx); err != nil {
			return nil, err
		}
		if r.conflicts != nil {
			return r.finishUntrusted(r.mergedReport(), r.conflicts), nil
		}
	} else {
		for _, u := range a0.units {
			r.unit(u.unit).why = u.why
		}
	}
	return r.finish(ctx)
}

type resolver struct {
	req         task.RunRequest
	lim         task.Limits
	maxAttempts int // re-runs allowed (with autoAttempts, the least: see attemptCap)
	// autoAttempts: the bound grows with the tests known (the default, Attempts 0).
	autoAttempts bool
	maxTime      time.Duration // their wall time together (0: see budgetLeft)
	exec         Execute
	first        *assessment

	decided map[string]task.TestResult // verdicts of their own
	open    map[string]task.TestResult // no verdict yet (NotRun), or an inferred one pending confirmation
	gaveUp  map[string]string          // ids that will not be run again, and why
	lost    map[string]string          // files whose tests cannot run, and why
	units   map[string]*unitWork

	attempts, alone int
	spent           time.Duration // wall time of every re-run
	hung            time.Duration // wall time of the re-runs that ended at a time limit
	wall            time.Duration
	conflicts       []string
	outOfBudget     bool
}

type unitWork struct {
	name       string
	alone      []string // ids to run alone, in order
	pending    map[string]bool
	incomplete map[string]bool
	known      map[string]bool
	ignore     []string
	done       bool
	why        string
	runs       int
}

func (r *resolver) unit(name string) *unitWork {
	w := r.units[name]
	if w == nil {
		w = &unitWork{name: name, pending: map[string]bool{}, incomplete: map[string]bool{}, known: map[string]bool{}}
		r.units[name] = w
	}
	return w
}

// merge takes an attempt's results: first verdicts win; with only set (a test run alone)
// just that test and its subtests count.
func (r *resolver) merge(a *assessment, only string) (progress int) {
	r.wall += a.rep.Wall
	for f, why := range a.lost {
		if _, ok := r.lost[f]; !ok {
			r.lost[f] = why
		}
	}
	culprits := map[string]bool{}
	for _, u := range a.units {
		if u.culprit != "" {
			culprits[u.culprit] = true
		}
	}
	for _, t := range a.rep.Tests {
		if only != "" && t.ID != only && !strings.HasPrefix(t.ID, only+"/") {
			continue
		}
		if _, ok := r.decided[t.ID]; ok {
			continue
		}
		if _, ok := r.gaveUp[t.ID]; ok {
			continue
		}
		switch {
		case culprits[t.ID] && t.ID != only:
			// Inferred, not observed: a run alone decides.
			r.open[t.ID] = t
		case t.Outcome.Decided():
			t.Alone = t.Alone || t.ID == only
			r.decided[t.ID] = t
			delete(r.open, t.ID)
			progress++
		default:
			if _, ok := r.open[t.ID]; !ok || r.open[t.ID].Outcome == task.NotRun {
				r.open[t.ID] = t
			}
		}
	}
	for _, u := range a.units {
		w := r.unit(u.unit)
		if u.why != "" {
			w.why = u.why
		}
		for _, id := range u.known {
			w.known[id] = true
		}
		w.ignore = appendNew(w.ignore, u.ignore...)
		for _, id := range u.incomplete {
			w.incomplete[id] = true
		}
		for _, id := range append([]string{u.culprit}, u.suspects...) {
			if id == "" || id == only || w.pending[id] {
				continue
			}
			if _, ok := r.decided[id]; ok {
				continue
			}
			w.pending[id] = true
			w.alone = append(w.alone, id)
		}
	}
	return progress
}

func appendNew(s []string, add ...string) []string {
	for _, a := range add {
		found := false
		for _, x := range s {
			if x == a {
				found = true
				break
			}
		}
		if !found {
			s = append(s, a)
		}
	}
	return s
}

// loop re-runs until no unit has work or the budget is spent.
func (r *resolver) loop(ctx context.Context) error {
	for _, u := range r.first.units {
		r.unit(u.unit)
	}
	for {
		w := r.nextUnit()
		if w == nil {
			return nil
		}
		left := r.budgetLeft()
		if r.attempts >= r.attemptCap() || left < time.Second {
			r.outOfBudget = true
			return nil
		}
		a := Attempt{Seq: r.attempts + 1, Unit: w.name, Limits: r.lim, Ignore: append([]string(nil), w.ignore...)}
		a.Limits.Timeout = min(r.lim.Timeout, left)
		only := ""
		if len(w.alone) > 0 {
			only = w.alone[0]
			w.alone = w.alone[1:]
			a.Select = task.Selection{IDs: []string{only}}
			r.alone++
		} else {
			a.Select = r.unitSelection(w.name)
			a.Skip = r.skipFor(w)
		}
		if r.req.Kind != task.GoTest {
			a.Unit = ""
		}
		res, err := r.exec(ctx, a)
		if err != nil {
			return err
		}
		r.attempts++
		r.spent += res.Wall
		as := assess(r.req.Kind, a.Select, a.Limits, res)
		if res.TimedOut || endedAtLimit(as) {
			r.hung += res.Wall
		}
		if len(as.conflicts) > 0 {
			r.conflicts = as.conflicts
			r.merge(as, only)
			return nil
		}
		// Units of this attempt: only the one asked about counts.
		var kept []unitState
		for _, u := range as.units {
			if u.unit == a.Unit || r.req.Kind != task.GoTest {
				u.unit = w.name
				kept = append(kept, u)
			}
		}
		as.units = kept
		progress := r.merge(as, only)
		w.runs++
		if only != "" {
			delete(w.pending, only)
			if t, ok := r.open[only]; ok {
				// Run alone, it still has no verdict of its own: if it was the culprit
				// again, that confirms it; otherwise give up on it.
				if len(as.units) > 0 && as.units[0].culprit == only {
					t.Alone = true
					r.decided[only] = t
					delete(r.open, only)
				} else if _, ok := r.decided[only]; !ok {
					r.gaveUp[only] = "run alone, it got no verdict of its own either: " + FirstLine(t.Message)
				}
			}
			continue
		}
		switch {
		case as.final && as.rep.State != task.RunTimeout:
			w.done, w.why = true, fmt.Sprintf("a re-run ended with %s: %s", as.rep.State, FirstLine(as.rep.Detail))
		case len(as.units) == 0:
			w.done = true // ran to its end
		case progress == 0 && len(w.alone) == 0:
			w.done = true
			if w.why == "" {
				w.why = "its test binary keeps ending before these tests run"
			}
		}
	}
}

// attemptCap is the most re-runs allowed now. By default it is twice the tests known so far
// (at least DefaultRerunAttempts): an attempt that makes progress decides at least one test,
// and confirming a culprit alone takes one more, so a suite whose tests take their binary
// down one after another (a corrupted function every table case reaches) gets every verdict
// it can, at the cost of one binary start per test; an attempt that decides nothing ends
// its unit's re-runs anyway. An explicit maxAttempts is the cap as given.
func (r *resolver) attemptCap() int {
	if !r.autoAttempts {
		return r.maxAttempts
	}
	// Every test a run reported is decided or open (one given up on stays open).
	return max(r.maxAttempts, 2*(len(r.decided)+len(r.open)))
}

// budgetLeft is the wall time the re-runs may still take: with maxTime set, what is left of
// it for all of them; by default, what is left of the run's time limit for the re-runs that
// end at a time limit (a hang costs the whole limit each time), while re-runs that end
// otherwise (a panic, an exit, a crash) take no budget: their number alone bounds them, so
// which tests keep no verdict does not depend on how fast the machine is.
func (r *resolver) budgetLeft() time.Duration {
	if r.maxTime > 0 {
		return r.maxTime - r.spent
	}
	return r.lim.Timeout - r.hung
}

// endedAtLimit reports whether an attempt's binary or interpreter ended at a time limit
// (its own, like go test's -timeout, or the runner's).
func endedAtLimit(as *assessment) bool {
	if as.rep.State == task.RunTimeout {
		return true
	}
	for _, u := range as.units {
		if u.died == "timeout" {
			return true
		}
	}
	return false
}

// nextUnit returns the first unit (by name) with work left.
func (r *resolver) nextUnit() *unitWork {
	names := sortedKeys(r.units)
	for _, n := range names {
		w := r.units[n]
		if !w.done || len(w.alone) > 0 {
			return w
		}
	}
	return nil
}

// unitSelection is the request's selection restricted to a Go package (all of it when the
// request names files or nothing), or the request's selection for pytest.
func (r *resolver) unitSelection(unit string) task.Selection {
	if r.req.Kind != task.GoTest || len(r.req.Select.IDs) == 0 {
		if r.req.Kind == task.GoTest {
			return task.Selection{}
		}
		return r.req.Select
	}
	var ids []string
	for _, id := range r.req.Select.IDs {
		if pkg, _, ok := task.SplitGoTestID(id); ok && pkg == unit {
			ids = append(ids, id)
		}
	}
	return task.Selection{IDs: ids}
}

// skipFor lists what a re-run of w leaves out: decided tests (not those whose subtests may
// not all have run), tests waiting to run alone, and tests given up on.
func (r *resolver) skipFor(w *unitWork) []string {
	var skip []string
	inUnit := func(id string) bool {
		if r.req.Kind != task.GoTest {
			return true
		}
		pkg, _, ok := task.SplitGoTestID(id)
		return ok && pkg == w.name
	}
	for id := range r.decided {
		if inUnit(id) && !w.incomplete[id] {
			skip = append(skip, id)
		}
	}
	for id := range w.pending {
		skip = append(skip, id)
	}
	for id := range r.gaveUp {
		if inUnit(id) {
			skip = append(skip, id)
		}
	}
	sort.Strings(skip)
	return dedupe(skip)
}

// shortDuration writes a duration of a second or more to the millisecond: a limit derived
// from the baseline's wall time (13.288006588s) says nothing more with its nanoseconds.
func shortDuration(d time.Duration) string {
	if d >= time.Second {
		d = d.Round(time.Millisecond)
	}
	return d.String()
}

// mergedReport is the first attempt's report with every verdict found since.
func (r *resolver) mergedReport() *task.Report {
	rep := *r.first.rep
	rep.Wall = r.wall
	rep.Tests = nil
	for _, t := range r.decided {
		rep.Tests = append(rep.Tests, t)
	}
	for id, t := range r.open {
		if why, ok := r.gaveUp[id]; ok {
			t = task.TestResult{ID: id, Outcome: task.NotRun, Message: Truncate("not run: "+why, r.lim.MessageLen)}
		}
		rep.Tests = append(rep.Tests, t)
	}
	rep.Notes = append([]string(nil), rep.Notes...)
	return &rep
}

func (r *resolver) finishUntrusted(rep *task.Report, conflicts []string) *task.Report {
	untrusted(rep, conflicts, r.lim)
	rep.Tests = filterSelected(rep.Tests, r.req.Select)
	rep.Sort()
	return rep
}

// finish gives every selected test without a verdict a NotRun with the reason, and states
// what the re-runs did.
func (r *resolver) finish(ctx context.Context) (*task.Report, error) {
	rep := r.mergedReport()
	have := map[string]bool{}
	for _, t := range rep.Tests {
		have[t.ID] = true
	}
	budgetWhy := fmt.Sprintf("the re-run budget (%d attempts, %s for re-runs that end at a time limit) was spent", r.attemptCap(), shortDuration(r.lim.Timeout))
	if r.maxTime > 0 {
		budgetWhy = fmt.Sprintf("the re-run budget (%d attempts, %s) was spent", r.attemptCap(), shortDuration(r.maxTime))
	}
	reason := func(unit string) string {
		w := r.units[unit]
		switch {
		case w != nil && !w.done && r.outOfBudget:
			return budgetWhy
		case w != nil && w.why != "":
			return FirstLine(w.why)
		case r.first.rep.State != task.RunOK:
			return fmt.Sprintf("the run ended with %s", r.first.rep.State)
		}
		return "its test binary ended before it ran"
	}
	addNotRun := func(id, why string) {
		if have[id] {
			return
		}
		have[id] = true
		rep.Tests = append(rep.Tests, task.TestResult{ID: id, Outcome: task.NotRun, Message: Truncate("not run: "+why, r.lim.MessageLen)})
	}
	// Open tests without a verdict keep theirs (NotRun, or an unconfirmed culprit's Fail).
	for i, t := range rep.Tests {
		if t.Outcome == task.NotRun && !strings.HasPrefix(t.Message, "not run: ") {
			unit := ""
			if r.req.Kind == task.GoTest {
				unit, _, _ = task.SplitGoTestID(t.ID)
			}
			if w := r.units[unit]; w != nil && (w.runs > 0 || r.outOfBudget) {
				rep.Tests[i].Message = Truncate("not run: "+reason(unit)+" (first run: "+t.Message+")", r.lim.MessageLen)
			}
		} else if t.Outcome == task.Fail && r.open[t.ID].ID == t.ID {
			rep.Tests[i].Message = Truncate(t.Message+"\n(not confirmed by a run alone: "+budgetWhy+")", r.lim.MessageLen)
		}
	}
	// Known tests (pytest's collection) without a verdict.
	for _, name := range sortedKeys(r.units) {
		w := r.units[name]
		for _, id := range sortedKeys(w.known) {
			addNotRun(id, reason(name))
		}
	}
	// Explicitly selected ids.
	for _, id := range r.req.Select.IDs {
		if have[id] {
			continue
		}
		unit := ""
		if r.req.Kind == task.GoTest {
			unit, _, _ = task.SplitGoTestID(id)
		}
		why := reason(unit)
		if r.first.rep.State == task.RunOK && r.units[unit] == nil {
			why = "the run reported no such test"
		}
		file, _, _ := strings.Cut(id, "::")
		if lost, ok := r.lost[file]; ok && r.req.Kind == task.Pytest {
			why = "its file did not collect: " + lastLines(strings.TrimSpace(lost), 1)
		}
		addNotRun(id, why)
	}
	// Go packages that never ran to their end, when the request named no ids: ask the
	// package which tests it has.
	if r.req.Kind == task.GoTest && len(r.req.Select.IDs) == 0 {
		for _, name := range sortedKeys(r.units) {
			w := r.units[name]
			if name == "" || (w.done && w.why == "") {
				continue
			}
			res, err := r.exec(ctx, Attempt{Seq: r.attempts + 1, Unit: name, List: true, Limits: r.lim})
			if err != nil {
				return nil, err
			}
			r.wall += res.Wall
			ids, lerr := []string(nil), error(nil)
			if res.list != nil {
				ids, lerr = res.list.result(res.Stderr, res.ExitCode, r.lim.MessageLen)
			}
			if lerr != nil || res.list == nil {
				rep.Notes = append(rep.Notes, fmt.Sprintf("the tests of %s that never ran could not be listed", name))
				continue
			}
			for _, id := range ids {
				covered := have[id]
				for h := range have {
					if strings.HasPrefix(h, id+"/") {
						covered = true
						break
					}
				}
				if !covered {
					addNotRun(id, reason(name))
				}
			}
		}
	}
	if len(r.lost) > 0 && (rep.State == task.RunOK || rep.State == task.RunCrashed) {
		// An interpreter died collecting a file: as for a collection error, the run did not
		// run everything it was asked to.
		rep.State = task.RunCollectionError
		var lines []string
		for _, f := range sortedKeys(r.lost) {
			lines = append(lines, f+": "+r.lost[f])
		}
		rep.Detail = Truncate(strings.Join(lines, "\n"), r.lim.MessageLen*4)
	}
	rep.Wall = r.wall
	rep.Tests = filterSelected(rep.Tests, r.req.Select)
	if r.req.Kind == task.GoTest {
		deriveParents(rep)
	}
	rep.Sort()
	if r.attempts > 0 {
		if rep.State == task.RunCrashed && len(rep.Passing())+len(rep.Failing()) > 0 {
			rep.State = task.RunOK
		}
		note := fmt.Sprintf("re-runs: %d (%d of a single test) after a test binary or interpreter ended early", r.attempts, r.alone)
		if r.outOfBudget {
			note += "; " + budgetWhy
		}
		rep.Notes = append(rep.Notes, note)
	}
	if n := len(rep.NotRun()); n > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%d selected tests did not run (not_run)", n))
	}
	return rep, nil
}

func FirstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
