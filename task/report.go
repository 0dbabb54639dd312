package task

import (
	"sort"
	"strings"
	"time"
)

// Outcome is the result of one test.
type Outcome string

// The outcomes a runner reports for a test.
const (
	Pass    Outcome = "pass"
	Fail    Outcome = "fail"
	Error   Outcome = "error"   // the test errored outside its assertions (setup/teardown, panic in a helper)
	Skip    Outcome = "skip"    // skipped by the test itself
	XFail   Outcome = "xfail"   // expected failure that failed (pytest)
	XPass   Outcome = "xpass"   // expected failure that passed (pytest, non-strict)
	Timeout Outcome = "timeout" // started but killed by a time limit before it ended
	// NotRun is a selected test that got no verdict of its own: the run ended before it
	// (another test panicked or called os.Exit and took the test binary down, the interpreter
	// crashed or died collecting its file, the run hit its time limit) and re-running it did
	// not give it one. Runners re-run such tests, leaving out the decided ones, one test
	// binary or interpreter at a time and within a budget, until each has a verdict of its
	// own; a test that was running alone when its binary died is run alone and fails only if
	// it takes the binary down again (package sandbox states the rule). Message says why. A
	// test that did not run neither passed nor failed: it is never counted as a failure and
	// never enters FAIL_TO_PASS or PASS_TO_PASS.
	NotRun Outcome = "not_run"
)

// Passed reports whether the outcome counts as passing: pass, xfail and xpass. This is the
// FeatureBench definition of a passing test case (PASSED or XFAIL), extended with the
// non-strict XPASS that pytest itself reports as a success.
func (o Outcome) Passed() bool { return o == Pass || o == XFail || o == XPass }

// Failed reports whether the outcome counts as failing: fail, error and timeout. NotRun is
// neither passed nor failed.
func (o Outcome) Failed() bool { return o == Fail || o == Error || o == Timeout }

// Decided reports whether the test ran to a verdict of its own (every outcome but NotRun).
func (o Outcome) Decided() bool { return o != NotRun && o != "" }

// TestResult is the outcome of one test, identified by a runner-specific id that is unique
// across the repository: Go `package/path.TestName/subtest`, pytest node ids
// `path/to/test_file.py::Class::test_name[param]`.
type TestResult struct {
	ID       string        `json:"id"`
	Outcome  Outcome       `json:"outcome"`
	Message  string        `json:"message,omitempty"` // failure output, truncated by the runner
	Duration time.Duration `json:"duration,omitempty"`
	// Alone reports that the verdict comes from a re-run of this test alone in its own
	// process (the runner's re-runs after an early end: see package sandbox), as
	// `go test -run '^Name$'` or `pytest ID` would run it.
	Alone bool `json:"alone,omitempty"`
}

// RunState says whether the test command itself ran. "The tests could not run" (a build
// failure, a collection error, a crash, a timeout of the whole run) is distinct from "tests
// ran and some failed".
type RunState string

// The states of a run.
const (
	RunOK              RunState = "ok"               // the command ran and reported its tests
	RunBuildFailed     RunState = "build_failed"     // Go: the package did not compile
	RunCollectionError RunState = "collection_error" // pytest: import or syntax error while collecting
	RunNoTests         RunState = "no_tests"         // nothing was collected / selected (pytest exit 5)
	RunTimeout         RunState = "timeout"          // the whole run exceeded its time limit
	RunCrashed         RunState = "crashed"          // the command died without a usable report
	RunSetupFailed     RunState = "setup_failed"     // the runner could not prepare or start the command
	// RunUntrusted: the run's independent channels of evidence (exit status, the JUnit file,
	// the -rA summary, the go test -json stream) disagree, so the tested code may have forged
	// its verdicts. Its test outcomes are not to be believed; it is never a pass.
	RunUntrusted RunState = "untrusted"
)

// Report is the result of one test run. Tests is sorted by ID and holds at most one entry
// per ID.
type Report struct {
	State    RunState      `json:"state"`
	Detail   string        `json:"detail,omitempty"` // why the run broke, truncated
	ExitCode int           `json:"exit_code"`
	Wall     time.Duration `json:"wall"`
	Tests    []TestResult  `json:"tests"`
	Cached   bool          `json:"cached,omitempty"` // served from a result cache
	// Output is the combined output of the command, truncated by the runner.
	Output string `json:"output,omitempty"`
	// Notes records degraded isolation and similar facts (e.g. "network isolation unavailable").
	Notes []string `json:"notes,omitempty"`
}

// Ran reports whether the tests ran at all (State is RunOK).
func (r *Report) Ran() bool { return r != nil && r.State == RunOK }

// Cause says why a run did not run its tests: its state and its detail (the build error,
// the collection error, the missing module), or, when the runner recorded no detail, what
// the state means ("no_tests: no test was collected or selected"). Every "could not run"
// verdict carries this text into progress lines, records and errors. A run that ran gives
// "ok".
func (r *Report) Cause() string {
	if r == nil {
		return "no report"
	}
	detail := strings.TrimSpace(r.Detail)
	if detail == "" {
		detail = stateMeaning[r.State]
	}
	if detail == "" {
		return string(r.State)
	}
	return string(r.State) + ": " + detail
}

// stateMeaning explains a state whose report carries no detail.
var stateMeaning = map[RunState]string{
	RunBuildFailed:     "the tests did not build",
	RunCollectionError: "the tests could not be collected",
	RunNoTests:         "no test was collected or selected",
	RunTimeout:         "the run exceeded its time limit",
	RunCrashed:         "the test command died without a usable report",
	RunSetupFailed:     "the runner could not prepare or start the test command",
	RunUntrusted:       "the run's exit status and its test reports disagree",
}

// Sort orders Tests by ID, keeping the last entry for duplicated IDs.
func (r *Report) Sort() {
	sort.SliceStable(r.Tests, func(i, j int) bool { return r.Tests[i].ID < r.Tests[j].ID })
	out := r.Tests[:0]
	for i, t := range r.Tests {
		if i+1 < len(r.Tests) && r.Tests[i+1].ID == t.ID {
			continue
		}
		out = append(out, t)
	}
	r.Tests = out
}

// Result returns the result for id and whether the report has one. Tests must be sorted by
// id, as runners return them (Sort).
func (r *Report) Result(id string) (TestResult, bool) {
	i := sort.Search(len(r.Tests), func(i int) bool { return r.Tests[i].ID >= id })
	if i < len(r.Tests) && r.Tests[i].ID == id {
		return r.Tests[i], true
	}
	return TestResult{}, false
}

// IDs returns the IDs of the tests whose outcome satisfies keep, in report order.
func (r *Report) IDs(keep func(Outcome) bool) []string {
	var ids []string
	for _, t := range r.Tests {
		if keep(t.Outcome) {
			ids = append(ids, t.ID)
		}
	}
	return ids
}

// Passing returns the IDs of passing tests (see Outcome.Passed).
func (r *Report) Passing() []string { return r.IDs(Outcome.Passed) }

// Failing returns the IDs of failing tests (see Outcome.Failed).
func (r *Report) Failing() []string { return r.IDs(Outcome.Failed) }

// NotRun returns the IDs of selected tests that got no verdict (see NotRun).
func (r *Report) NotRun() []string { return r.IDs(func(o Outcome) bool { return o == NotRun }) }

// AllPassed reports whether the run ran and every id in ids is present and passed. A test
// that was selected but is missing from the report did not pass.
func (r *Report) AllPassed(ids []string) bool {
	if !r.Ran() {
		return false
	}
	for _, id := range ids {
		t, ok := r.Result(id)
		if !ok || !t.Outcome.Passed() {
			return false
		}
	}
	return true
}

// Green reports whether the run ran, reported at least one test, and no test failed.
func (r *Report) Green() bool {
	return r.Ran() && len(r.Tests) > 0 && len(r.Failing()) == 0
}

// Abbreviate shortens text (a run's cause: a collection error, a build error) to at most n
// bytes (n <= 0: unlimited) keeping what names the error: the first line, which says where,
// and the lines that say what. When pytest's exception lines ("E   ...") are there, those are
// kept with the location line before them; otherwise the last lines that fit. A plain cut
// from the start would keep a traceback's first frames (importlib's) and lose the exception.
// The elided part is marked "[…]".
func Abbreviate(text string, n int) string {
	if n <= 0 || len(text) <= n {
		return text
	}
	const gap = "\n[…]\n"
	lines := strings.Split(text, "\n")
	head := cutRunes(lines[0], n/3)
	room := n - len(head) - len(gap)
	firstE, lastE := -1, -1
	for i, l := range lines {
		if i > 0 && strings.HasPrefix(l, "E ") {
			if firstE < 0 {
				firstE = i
			}
			lastE = i
		}
	}
	var tail string
	if firstE > 0 {
		from := firstE
		for back := 1; back <= 2 && firstE-back > 0; back++ {
			if locationLine(lines[firstE-back]) {
				from = firstE - back
				break
			}
		}
		tail = strings.Join(lines[from:lastE+1], "\n")
		// pytest heads the error of a test file that fails to import with a line naming it
		// ("____ ERROR collecting tests/test_a.py ____"): keep it, and drop the frames before
		// the exception when both do not fit.
		if h := collectingHeader(lines[:firstE]); h != "" {
			sep := "\n"
			if !strings.Contains(lines[from-1], "ERROR collecting ") {
				sep = gap
			}
			exc := strings.Join(lines[firstE:lastE+1], "\n")
			switch {
			case len(h)+len(sep)+len(tail) <= room:
				tail = h + sep + tail
			case len(h)+len(gap)+len(exc) <= room:
				tail = h + gap + exc
			}
		}
		tail = cutRunes(tail, room)
	} else {
		from := len(lines)
		size := 0
		for from > 1 && size+len(lines[from-1])+1 <= room {
			from--
			size += len(lines[from]) + 1
		}
		if from == len(lines) { // even the last line does not fit: its end
			last := lines[len(lines)-1]
			i := len(last) - max(room, 0)
			for i > 0 && i < len(last) && last[i]&0xC0 == 0x80 {
				i++
			}
			tail = last[max(i, 0):]
		} else {
			tail = strings.Join(lines[from:], "\n")
		}
	}
	if room <= 0 || tail == "" {
		return cutRunes(text, n)
	}
	return head + gap + tail
}

// collectingHeader returns pytest's "ERROR collecting PATH" from the last section header among
// lines that says which test file failed to import ("" when there is none).
func collectingHeader(lines []string) string {
	for i := len(lines) - 1; i > 0; i-- {
		if _, rest, ok := strings.Cut(lines[i], "ERROR collecting "); ok && strings.HasPrefix(lines[i], "_") {
			return "ERROR collecting " + strings.TrimRight(rest, "_ ")
		}
	}
	return ""
}

// locationLine reports whether l is a traceback location in pytest's short form
// ("path.py:12: in name").
func locationLine(l string) bool {
	i := strings.Index(l, ": in ")
	return i > 0 && strings.Contains(l[:i], ":")
}

// cutRunes cuts s to at most n bytes on a rune boundary, marking a cut with "…".
func cutRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const mark = "…"
	n -= len(mark)
	if n <= 0 {
		return ""
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + mark
}
