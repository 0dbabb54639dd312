package testrun

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/faultline-dev/faultline/task"
)

// This file turns what one attempt's command left behind (exit status, streams, files) into
// a report, says which parts of the run ended early and need a re-run (see rerun.go), and
// cross-checks the independent channels of evidence.

// assessment is one attempt's report and what the re-run logic needs to know about it.
type assessment struct {
	rep *task.Report
	// final: no re-run can help (a build failure, a setup failure, no tests, the run's own
	// time limit, a command kind without tests of its own).
	final bool
	// conflicts are disagreements between channels of evidence: the run is untrusted.
	conflicts []string
	units     []unitState
	// lost maps a file whose tests cannot run to why (pytest: a collection error, an
	// interpreter that died collecting it).
	lost map[string]string
}

// unitState is one test binary (Go package) or interpreter (pytest session) of an attempt
// that ended before every test it would have run had a verdict of its own.
type unitState struct {
	unit string
	died string // how it ended: "timeout", "crash", "incomplete", "collection"
	why  string // the crash text
	// culprit was running alone when the unit died: Fail, unless a run alone says otherwise.
	culprit string
	// suspects were running together when the unit died: each is re-run alone.
	suspects []string
	// incomplete tests have a verdict, but their subtests may not all have run (Go).
	incomplete []string
	// known are the ids the unit would run (pytest's collection), nil when unknown.
	known []string
	// ignore lists files not to collect next time (pytest died collecting them).
	ignore []string
}

func assess(kind task.TestKind, sel task.Selection, lim task.Limits, res CommandResult) *assessment {
	rep := &task.Report{ExitCode: res.ExitCode, Wall: res.Wall, Notes: append([]string(nil), res.Notes...)}
	if res.OutputCapped {
		rep.Notes = append(rep.Notes, fmt.Sprintf("output capped at %d bytes per stream", lim.OutputBytes))
	}
	if res.StartErr != nil {
		rep.State, rep.Detail = task.RunSetupFailed, Truncate(res.StartErr.Error(), lim.MessageLen)
		return &assessment{rep: rep, final: true}
	}
	pr := ProcResult{ExitCode: res.ExitCode, TimedOut: res.TimedOut, Wall: res.Wall}
	switch kind {
	case task.Command:
		commandReport(rep, res.Stdout, res.Stderr, pr, lim)
		return &assessment{rep: rep, final: true}
	case task.GoTest:
		return assessGo(rep, sel, lim, res)
	default:
		return assessPytest(rep, sel, lim, res)
	}
}

// assessGo reads a `go test -json` attempt. Channels: the event stream (test and package
// end events) and the go command's exit status.
func assessGo(rep *task.Report, sel task.Selection, lim task.Limits, res CommandResult) *assessment {
	gr := res.Go
	if gr == nil {
		gr = NewGoParser(lim.MessageLen).Result()
	}
	pr := ProcResult{ExitCode: res.ExitCode, TimedOut: res.TimedOut}
	goReport(rep, gr, sel, res.Stderr, pr, lim)
	rep.Output = res.Stderr
	if rep.Output == "" {
		rep.Output = gr.Output
	}
	rep.Output = Truncate(rep.Output, int(lim.OutputBytes))
	a := &assessment{rep: rep}
	switch rep.State {
	case task.RunBuildFailed, task.RunNoTests, task.RunSetupFailed:
		a.final = true
	}
	// At the run's own time limit the state stays RunTimeout, but the packages that had
	// started are re-run like those that hit their -timeout: which of their tests a killed
	// run had reached depends on the machine.
	a.conflicts = append(a.conflicts, gr.Conflicts...)
	if gr.Dropped {
		a.conflicts = append(a.conflicts, fmt.Sprintf("the go test -json stream named more than %d tests or %d bytes of text", MaxStreamTests, MaxStreamText))
	}
	if gr.TextCut {
		rep.Notes = append(rep.Notes, fmt.Sprintf("test messages cut: the stream held more than %d bytes of text", MaxStreamText))
	}
	if gr.Malformed > 0 && len(gr.Tests) > 0 && len(gr.BuildFailed) == 0 {
		// go writes nothing but JSON on stdout once tests run (test2json splits long
		// lines): these lines came from elsewhere.
		a.conflicts = append(a.conflicts, fmt.Sprintf("%d lines of the go test -json stream are not events of the go command", gr.Malformed))
	}
	if !res.TimedOut && res.ExitCode >= 0 {
		failed, allPassed := "", len(gr.Packages) > 0
		died := map[string]bool{}
		for _, p := range gr.Packages {
			if p.Died != "" {
				// A binary that exits 0 in the middle of a test makes go report the
				// package as passed whatever failed before: the early end explains it.
				died[p.Path] = true
			}
			if p.Ended && !p.Passed && failed == "" {
				failed = "package " + p.Path
			}
			if !p.Ended || !p.Passed || p.Died != "" {
				allPassed = false
			}
		}
		for _, t := range gr.Tests {
			pkg, _, _ := task.SplitGoTestID(t.ID)
			if t.Outcome == task.Fail && failed == "" && t.ID != culpritOf(gr, t.ID) && !died[pkg] {
				failed = t.ID
			}
			if t.Outcome != task.Pass && t.Outcome != task.Skip {
				allPassed = false
			}
		}
		switch {
		case res.ExitCode == 0 && failed != "":
			a.conflicts = append(a.conflicts, "go exited with status 0 although "+failed+" failed")
		case res.ExitCode != 0 && allPassed && len(gr.BuildFailed) == 0:
			a.conflicts = append(a.conflicts, fmt.Sprintf("go exited with status %d although every package and test passed", res.ExitCode))
		}
	}
	if res.PackageStatus != nil && !res.TimedOut {
		for _, p := range gr.Packages {
			if len(p.CutOff) == 0 && p.Culprit == "" && !p.Ended && p.Died == "" {
				continue
			}
			st, ok := res.PackageStatus[p.Path]
			switch {
			case !ok && slices.Contains(gr.BuildFailed, p.Path):
			case !ok:
				a.conflicts = append(a.conflicts, "no exit status for the test binary of "+p.Path)
			case st == -1000:
				a.conflicts = append(a.conflicts, "two exit statuses for the test binary of "+p.Path)
			case (st == 0) != (p.Ended && p.Passed):
				a.conflicts = append(a.conflicts, fmt.Sprintf("the test binary of %s exited with status %d but its stream says it %s", p.Path, st, map[bool]string{true: "passed", false: "failed"}[p.Ended && p.Passed]))
			}
		}
	}
	if a.final {
		return a
	}
	for _, p := range gr.Packages {
		if p.Died == "" {
			continue
		}
		u := unitState{unit: p.Path, died: p.Died, why: p.Crash, culprit: p.Culprit}
		started := false
		for _, t := range gr.Tests {
			if strings.HasPrefix(t.ID, p.Path+".") {
				started = true
				break
			}
		}
		if !started {
			// The binary died before any test (init, TestMain): a re-run does the same.
			continue
		}
		for _, id := range p.CutOff {
			if r, _ := resultIn(gr.Tests, id); strings.Contains(r.Message, "while it was running with") {
				u.suspects = append(u.suspects, id)
			}
		}
		// Tests with a verdict that are ancestors of the test started last or of a test
		// cut off: their remaining subtests never ran.
		open := append([]string{p.Last}, p.CutOff...)
		if p.Culprit != "" {
			open = append(open, p.Culprit)
		}
		for _, t := range gr.Tests {
			if p.Culprit != "" && strings.HasPrefix(t.ID, p.Culprit+"/") {
				// The culprit died in one of its subtests: the others may not have run.
				u.incomplete = appendOnce(u.incomplete, p.Culprit)
			}
			if !strings.HasPrefix(t.ID, p.Path+".") || !t.Outcome.Decided() || t.ID == p.Culprit {
				continue
			}
			for _, o := range open {
				if strings.HasPrefix(o, t.ID+"/") {
					u.incomplete = append(u.incomplete, t.ID)
					break
				}
			}
		}
		a.units = append(a.units, u)
	}
	return a
}

func resultIn(tests []task.TestResult, id string) (task.TestResult, bool) {
	i := sort.Search(len(tests), func(i int) bool { return tests[i].ID >= id })
	if i < len(tests) && tests[i].ID == id {
		return tests[i], true
	}
	return task.TestResult{}, false
}

func appendOnce(s []string, v string) []string {
	if slices.Contains(s, v) {
		return s
	}
	return append(s, v)
}

// culpritOf returns id when it is the inferred culprit of its package (its Fail is ours,
// not the stream's), "" otherwise.
func culpritOf(gr *GoResult, id string) string {
	for _, p := range gr.Packages {
		if p.Culprit == id {
			return id
		}
	}
	return ""
}

// goReport fills rep from a go test stream. rep.Tests holds every test the stream names (a
// -run pattern may run more than the selection; Resolve needs them all); the state counts
// the selected ones.
func goReport(rep *task.Report, gr *GoResult, sel task.Selection, stderr string, pr ProcResult, lim task.Limits) {
	rep.Tests = gr.Tests
	selected := len(filterSelected(gr.Tests, sel))
	switch {
	case pr.TimedOut:
		rep.State = task.RunTimeout
		rep.Detail = fmt.Sprintf("run exceeded its time limit of %s", lim.Timeout)
	case len(gr.BuildFailed) > 0:
		rep.State = task.RunBuildFailed
		rep.Detail = Truncate(strings.TrimSpace(gr.BuildOutput+"\n"+stderr), lim.MessageLen*4)
	case pr.ExitCode != 0 && len(gr.Tests) == 0 && len(gr.FailedPackages) == 0:
		// go itself failed before running anything (bad go.mod, no such package).
		rep.State = task.RunBuildFailed
		rep.Detail = Truncate(strings.TrimSpace(gr.BuildOutput+"\n"+stderr), lim.MessageLen*4)
	case selected == 0 && len(gr.FailedPackages) == 0:
		rep.State = task.RunNoTests
	case selected == 0:
		rep.State = task.RunCrashed
		rep.Detail = Truncate(packageOutput(gr), lim.MessageLen*4)
	default:
		rep.State = task.RunOK
		if len(gr.FailedPackages) > 0 {
			rep.Detail = Truncate(packageOutput(gr), lim.MessageLen*4)
		}
	}
}

func packageOutput(gr *GoResult) string {
	var b strings.Builder
	for _, p := range gr.FailedPackages {
		b.WriteString(gr.PackageOutput[p])
	}
	return strings.TrimSpace(b.String())
}

// assessPytest reads a pytest attempt. Channels: the reporter plugin's events (live, one
// per phase), the JUnit file (written at the end of the session), the -rA lines and the
// bootstrap's exit marker on stdout (live), and the process's exit status.
func assessPytest(rep *task.Report, sel task.Selection, lim task.Limits, res CommandResult) *assessment {
	a := &assessment{rep: rep}
	rep.Output = joinOutput(res.Stdout, res.Stderr)
	ev := res.events
	py := res.py
	if py == nil {
		py = &pytestStdout{all: res.Summary}
	}
	sumLines := py.all
	if py.headers > 0 {
		sumLines = py.region
	}
	var jr *JUnitResult
	if res.junitSeen && res.junitErr == nil {
		jr = res.junit
	}
	if ev == nil {
		// No reporter events: a run by an older runner, or the bootstrap never started
		// pytest. The JUnit file and the summary are all there is.
		pytestReport(rep, jr, sumLines, res.Stdout, res.Stderr, ProcResult{ExitCode: res.ExitCode, TimedOut: res.TimedOut}, lim)
		a.final = true
		if len(py.markers) > 0 {
			a.conflicts = append(a.conflicts, "pytest ran (its exit marker is on stdout) but the reporter's event file is missing")
		}
		return a
	}
	if py.dropped {
		a.conflicts = append(a.conflicts, fmt.Sprintf("stdout holds more than %d -rA lines or %d bytes of them", MaxStreamTests, MaxStreamText))
	}
	if ev.dropped {
		a.conflicts = append(a.conflicts, fmt.Sprintf("the reporter's events named more than %d tests or %d bytes of text", MaxStreamTests, MaxStreamText))
	}
	a.conflicts = append(a.conflicts, ev.conflicts...)
	if ev.textCut {
		rep.Notes = append(rep.Notes, fmt.Sprintf("test messages cut: the reporter's events held more than %d bytes of text", MaxStreamText))
	}
	if ev.malformed > 0 {
		a.conflicts = append(a.conflicts, fmt.Sprintf("%d lines of the reporter's event file are not its events", ev.malformed))
	}

	// Own verdicts: tests that finished with a verdict from their phases.
	junitOf := func(id string) (task.TestResult, bool) {
		if jr == nil {
			return task.TestResult{}, false
		}
		t, ok := jr.byKey[junitKey(id)]
		return t, ok
	}
	own := map[string]task.TestResult{}
	for id, ph := range ev.phases {
		if !ev.finished[id] {
			continue
		}
		o := ph.verdict()
		if o == "" {
			continue
		}
		msg := ""
		if o != task.Pass {
			msg = ph.msg
			if j, ok := junitOf(id); ok && j.Message != "" {
				msg = j.Message
			}
		}
		j, _ := junitOf(id)
		own[id] = task.TestResult{ID: id, Outcome: o, Message: Truncate(msg, lim.MessageLen), Duration: j.Duration}
	}
	var inFlight []string
	for _, id := range ev.order {
		if _, ok := own[id]; !ok && !ev.finished[id] {
			inFlight = append(inFlight, id)
		}
	}
	sessionDone := ev.ended && len(inFlight) == 0

	u := unitState{known: append([]string(nil), ev.items...)}
	a.lost = map[string]string{}
	for f, msg := range ev.collectErr {
		a.lost[f] = msg
	}
	tests := make([]task.TestResult, 0, len(own)+len(inFlight))
	for _, t := range own {
		tests = append(tests, t)
	}
	how := fmt.Sprintf("the interpreter exited with status %d", res.ExitCode)
	if res.ExitCode < 0 {
		how = "the interpreter was killed by a signal"
	}
	if ev.ended {
		how = fmt.Sprintf("pytest ended the session (status %d)", ev.status)
	}
	tail := strings.TrimSpace(lastLines(res.Stderr, 20))
	switch {
	case res.TimedOut:
		for _, id := range inFlight {
			t := task.TestResult{ID: id, Outcome: task.NotRun, Message: "cut off: the time limit struck while it was running"}
			if at, ok := ev.startAt[id]; ok && res.killedAt.Sub(at) >= lim.Timeout/2 {
				t.Outcome = task.Timeout
				t.Message = "still running when the time limit struck, after at least half of the run's time"
			}
			tests = append(tests, t)
		}
	case len(inFlight) == 1:
		id := inFlight[0]
		u.culprit = id
		u.died = "crash"
		msg := strings.TrimSpace(how + " while this test was running\n" + tail)
		tests = append(tests, task.TestResult{ID: id, Outcome: task.Fail, Message: Truncate(msg, lim.MessageLen)})
	default:
		for _, id := range inFlight {
			u.suspects = append(u.suspects, id)
			tests = append(tests, task.TestResult{ID: id, Outcome: task.NotRun, Message: how + " while it was running with other tests"})
		}
		if len(inFlight) > 0 {
			u.died = "crash"
		}
	}
	// Collected tests that never started.
	decided := map[string]bool{}
	for _, t := range tests {
		decided[t.ID] = true
	}
	unreached := 0
	for _, id := range ev.items {
		if !decided[id] {
			unreached++
			decided[id] = true
			tests = append(tests, task.TestResult{ID: id, Outcome: task.NotRun, Message: "not reached: " + how + " before it ran"})
		}
	}
	if unreached > 0 && u.died == "" {
		u.died = "incomplete"
	}
	if ev.collecting != "" {
		u.died = "crash"
		u.ignore = []string{ev.collecting}
		a.lost[ev.collecting] = how + " while collecting this file\n" + tail
	}
	if !ev.itemsDone && ev.collecting == "" && !ev.ended {
		u.died = "crash" // died between collecting and running: nothing known
	}
	rep.Tests = tests

	var collErrs []string
	for _, f := range sortedKeys(ev.collectErr) {
		collErrs = append(collErrs, f+": "+ev.collectErr[f])
	}
	// pytest.main returned before its session began — a conftest that fails to import, a bad
	// option or ini setting (status 4), an internal error (3), an interruption (2): the
	// reporter saw nothing, and the exit marker and the process agree on the status.
	beforeSession := !ev.ended && len(ev.order) == 0 && len(ev.items) == 0 && !ev.itemsDone && ev.collecting == "" &&
		len(ev.collectErr) == 0 && len(py.markers) == 1 && res.ExitCode == py.markers[0] && !res.TimedOut
	switch {
	case res.TimedOut:
		// Not final: the tests the kill cut off or never reached are re-run.
		rep.State = task.RunTimeout
		rep.Detail = fmt.Sprintf("run exceeded its time limit of %s", lim.Timeout)
		if u.died == "" && len(inFlight) > 0 {
			u.died = "timeout"
		}
	case beforeSession:
		var kept []string
		for _, l := range strings.Split(lastLines(res.Stdout, 20), "\n") {
			if !strings.HasPrefix(l, pytestExitMarker) {
				kept = append(kept, l)
			}
		}
		detail := Truncate(strings.TrimSpace(res.Stderr+"\n"+strings.Join(kept, "\n")), lim.MessageLen*4)
		switch {
		case py.markers[0] == 5:
			rep.State = task.RunNoTests
		case py.markers[0] == 4 && strings.Contains(rep.Output, "while loading conftest"):
			rep.State, rep.Detail = task.RunCollectionError, detail
		case py.markers[0] == 4:
			rep.State, rep.Detail = task.RunSetupFailed, detail
		default:
			rep.State, rep.Detail = task.RunCrashed, detail
		}
		a.final = true
		return a
	case ev.ended && ev.status == 5 && len(tests) == 0:
		rep.State = task.RunNoTests
		a.final = true
	case ev.ended && ev.status == 4:
		rep.State = task.RunSetupFailed
		rep.Detail = Truncate(strings.TrimSpace(res.Stderr+"\n"+lastLines(res.Stdout, 20)), lim.MessageLen*4)
		a.final = true
	case ev.ended && ev.status == 3:
		rep.State = task.RunCrashed
		rep.Detail = Truncate(strings.TrimSpace(res.Stderr+"\n"+lastLines(res.Stdout, 20)), lim.MessageLen*4)
		a.final = true
	case len(collErrs) > 0:
		rep.State = task.RunCollectionError
		rep.Detail = Truncate(strings.Join(collErrs, "\n"), lim.MessageLen*4)
	case len(ev.order) == 0 && len(ev.items) == 0 && !ev.ended:
		rep.State = task.RunCrashed
		rep.Detail = Truncate(strings.TrimSpace(how+" before collecting any test\n"+res.Stderr+"\n"+lastLines(res.Stdout, 20)), lim.MessageLen*4)
	default:
		rep.State = task.RunOK
		if !sessionDone {
			rep.Detail = Truncate(strings.TrimSpace(how+" before the session ended\n"+tail), lim.MessageLen*4)
		}
	}
	if u.died != "" && !a.final {
		a.units = append(a.units, u)
	}

	// Cross-check the channels.
	if !ev.ended {
		if len(py.markers) > 0 {
			a.conflicts = append(a.conflicts, "pytest's exit marker is on stdout but the reporter saw no end of the session")
		}
		if res.junitSeen && !res.TimedOut {
			a.conflicts = append(a.conflicts, "a JUnit file exists although the session never ended")
		}
		return a
	}
	if res.TimedOut {
		return a
	}
	switch {
	case len(py.markers) == 0:
		a.conflicts = append(a.conflicts, fmt.Sprintf("pytest ended the session (status %d) but its exit marker is missing from stdout", ev.status))
	case len(py.markers) > 1:
		a.conflicts = append(a.conflicts, fmt.Sprintf("stdout carries %d exit markers", len(py.markers)))
	case py.markers[0] != ev.status:
		a.conflicts = append(a.conflicts, fmt.Sprintf("stdout's exit marker says %d, the reporter's session end %d", py.markers[0], ev.status))
	}
	if len(py.markers) == 1 && res.ExitCode != py.markers[0] {
		a.conflicts = append(a.conflicts, fmt.Sprintf("the process exited with status %d but pytest returned %d", res.ExitCode, py.markers[0]))
	}
	for _, l := range py.late {
		a.conflicts = append(a.conflicts, "stdout continues after pytest's final line: "+l)
	}
	anyFailed := len(collErrs) > 0
	for _, t := range own {
		if t.Outcome.Failed() {
			anyFailed = true
		}
	}
	switch {
	case ev.status == 0 && anyFailed:
		a.conflicts = append(a.conflicts, "pytest ended with status 0 although tests failed")
	case ev.status == 1 && !anyFailed && len(inFlight) == 0:
		a.conflicts = append(a.conflicts, "pytest ended with status 1 although no test failed")
	}
	// The JUnit file, written after the last test, must say what the events said.
	switch {
	case !res.junitSeen:
		a.conflicts = append(a.conflicts, "the JUnit file is missing although the session ended")
	case res.junitErr != nil:
		a.conflicts = append(a.conflicts, "the JUnit file does not parse: "+Truncate(res.junitErr.Error(), 200))
	default:
		// Compare under JUnit's own keys (see junitKey).
		ownKeyed := map[string]task.TestResult{}
		for id, t := range own {
			t.ID = junitKey(id)
			ownKeyed[t.ID] = t
		}
		var jtests []task.TestResult
		for _, k := range sortedKeys(jr.byKey) {
			t := jr.byKey[k]
			t.ID = k
			jtests = append(jtests, t)
		}
		a.conflicts = append(a.conflicts, compareVerdicts("JUnit", ownKeyed, jtests, junitCategory)...)
		if jr.Truncated {
			rep.Notes = append(rep.Notes, "JUnit file larger than the parser keeps: texts cut")
		}
		// JUnit names a file that did not collect by its dotted module.
		var jfiles, efiles []string
		for _, ce := range jr.CollectionErrors {
			f, _, _ := strings.Cut(ce, ": ")
			jfiles = append(jfiles, f)
		}
		for _, f := range sortedKeys(ev.collectErr) {
			efiles = append(efiles, strings.ReplaceAll(strings.TrimSuffix(f, ".py"), "/", "."))
		}
		if !sameFiles(jfiles, efiles) {
			a.conflicts = append(a.conflicts, fmt.Sprintf("collection errors: the JUnit file names %v, the reporter %v", jfiles, efiles))
		}
	}
	// The -rA summary names every test that did not skip.
	st, _ := summaryResults(resplitSummary(sumLines, sortedKeys(own)), lim.MessageLen)
	a.conflicts = append(a.conflicts, compareVerdicts("the -rA summary", own, st, summaryCategory)...)
	return a
}

// junitCategory is what JUnit can say about an outcome: pytest writes XPASS as a pass.
func junitCategory(o task.Outcome) task.Outcome {
	if o == task.XPass {
		return task.Pass
	}
	return o
}

// summaryCategory: -rA prints no line per skipped test.
func summaryCategory(o task.Outcome) task.Outcome {
	if o == task.Skip {
		return ""
	}
	return o
}

// compareVerdicts lists the disagreements between the reporter's verdicts and another
// channel's (category maps an outcome to what the channel can say; "" means it says nothing).
func compareVerdicts(channel string, own map[string]task.TestResult, other []task.TestResult, category func(task.Outcome) task.Outcome) []string {
	var out []string
	seen := map[string]bool{}
	add := func(s string) {
		if len(out) < 20 {
			out = append(out, s)
		}
	}
	for _, t := range other {
		seen[t.ID] = true
		o, ok := own[t.ID]
		switch {
		case !ok:
			add(fmt.Sprintf("%s reports %s for %s, which the reporter did not see finish", channel, t.Outcome, Truncate(t.ID, 200)))
		case category(o.Outcome) != category(t.Outcome):
			add(fmt.Sprintf("%s reports %s for %s, the reporter %s", channel, t.Outcome, Truncate(t.ID, 200), o.Outcome))
		}
	}
	for _, id := range sortedKeys(own) {
		if !seen[id] && category(own[id].Outcome) != "" {
			add(fmt.Sprintf("%s has no verdict for %s (the reporter: %s)", channel, Truncate(id, 200), own[id].Outcome))
		}
	}
	sort.Strings(out)
	return out
}

func sameFiles(a, b []string) bool {
	a, b = append([]string(nil), a...), append([]string(nil), b...)
	sort.Strings(a)
	sort.Strings(b)
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// pytestReport builds a pytest report from the JUnit file and the -rA lines alone (no
// reporter events).
func pytestReport(rep *task.Report, jr *JUnitResult, sum []SummaryLine, stdout, stderr string, pr ProcResult, lim task.Limits) {
	var tests []task.TestResult
	var collErrs []string
	if jr != nil {
		tests, collErrs = append([]task.TestResult(nil), jr.Tests...), jr.CollectionErrors
		ids := make([]string, len(tests))
		for i, t := range tests {
			ids[i] = t.ID
		}
		sort.Strings(ids)
		sum = resplitSummary(sum, ids)
	}
	st, sce := summaryResults(sum, lim.MessageLen)
	if tests == nil {
		tests = st
	} else {
		// The summary tells XPASS (a plain pass in JUnit) apart.
		for _, s := range st {
			i := sort.Search(len(tests), func(i int) bool { return tests[i].ID >= s.ID })
			if i < len(tests) && tests[i].ID == s.ID && s.Outcome == task.XPass && tests[i].Outcome == task.Pass {
				tests[i].Outcome = task.XPass
			}
		}
	}
	if len(collErrs) == 0 {
		collErrs = sce
	}
	rep.Tests = tests
	switch {
	case pr.TimedOut:
		rep.State = task.RunTimeout
		rep.Detail = fmt.Sprintf("run exceeded its time limit of %s", lim.Timeout)
	case pr.ExitCode == 5:
		rep.State = task.RunNoTests
	case len(collErrs) > 0:
		rep.State = task.RunCollectionError
		rep.Detail = Truncate(strings.Join(collErrs, "\n"), lim.MessageLen*4)
	case pr.ExitCode == 1 && jr == nil && len(tests) == 0:
		// pytest did not get as far as writing a report (e.g. "No module named pytest").
		rep.State = task.RunCrashed
		rep.Detail = Truncate(strings.TrimSpace(stderr+"\n"+lastLines(stdout, 20)), lim.MessageLen*4)
	case (pr.ExitCode == 0 || pr.ExitCode == 1) && jr != nil:
		rep.State = task.RunOK
	case pr.ExitCode == 4:
		rep.State = task.RunSetupFailed
		rep.Detail = Truncate(strings.TrimSpace(stderr+"\n"+lastLines(stdout, 20)), lim.MessageLen*4)
	default:
		rep.State = task.RunCrashed
		rep.Detail = Truncate(strings.TrimSpace(stderr+"\n"+lastLines(stdout, 20)), lim.MessageLen*4)
	}
}

// untrusted marks rep as RunUntrusted with the disagreements in its detail.
func untrusted(rep *task.Report, conflicts []string, lim task.Limits) {
	cs := append([]string(nil), conflicts...)
	sort.Strings(cs)
	cs = dedupe(cs)
	rep.State = task.RunUntrusted
	rep.Detail = Truncate("the channels of evidence disagree (the tested code may have forged its verdicts):\n"+strings.Join(cs, "\n"), lim.MessageLen*4)
}

func dedupe(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// deriveParents applies the testing package's rule to Go subtests whose parent has no
// verdict of its own, or one from a re-run that skipped some of its subtests: a parent with
// a failing subtest fails.
func deriveParents(rep *task.Report) {
	idx := map[string]int{}
	for i, t := range rep.Tests {
		idx[t.ID] = i
	}
	for _, t := range rep.Tests {
		if !t.Outcome.Failed() {
			continue
		}
		id := t.ID
		for {
			i := strings.LastIndexByte(id, '/')
			if i < 0 {
				break
			}
			id = id[:i]
			j, ok := idx[id]
			if !ok {
				continue
			}
			p := &rep.Tests[j]
			if p.Outcome == task.NotRun || p.Outcome.Passed() || p.Outcome == task.Skip {
				p.Outcome = task.Fail
				p.Message = Truncate("subtest "+t.ID+" failed", DefaultMessageLen)
			}
		}
	}
}

// filterSelected keeps the results of the selected ids, their ancestors and descendants (a
// -run pattern may select more subtests than asked). With no ids selected, all are kept.
func filterSelected(tests []task.TestResult, sel task.Selection) []task.TestResult {
	if len(sel.IDs) == 0 || len(sel.Files) > 0 {
		return tests
	}
	ids := append([]string(nil), sel.IDs...)
	sort.Strings(ids)
	var out []task.TestResult
	for _, t := range tests {
		for _, id := range ids {
			if t.ID == id || strings.HasPrefix(t.ID, id+"/") || strings.HasPrefix(id, t.ID+"/") {
				out = append(out, t)
				break
			}
		}
	}
	return out
}

// LineWriter splits what is written to it into lines (without the newline and a trailing
// carriage return) and calls fn with each; a line longer than max bytes is passed as
// (nil, false) and its bytes are never kept, so memory stays within max however long a line
// is. Close passes a last line without a newline. It is the one line splitter for every
// untrusted stream the package reads.
type LineWriter struct {
	max     int
	fn      func(line []byte, ok bool)
	partial []byte
	tooLong bool
}

// NewLineWriter returns a LineWriter keeping lines of at most max bytes (<= 0:
// MaxStreamLine).
func NewLineWriter(max int, fn func(line []byte, ok bool)) *LineWriter {
	if max <= 0 {
		max = MaxStreamLine
	}
	return &LineWriter{max: max, fn: fn}
}

// Write feeds bytes; it never fails.
func (w *LineWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i]
		}
		if !w.tooLong {
			if len(w.partial)+len(chunk) > w.max {
				w.tooLong, w.partial = true, w.partial[:0]
			} else {
				w.partial = append(w.partial, chunk...)
			}
		}
		if i < 0 {
			break
		}
		w.emit()
		p = p[i+1:]
	}
	return n, nil
}

func (w *LineWriter) emit() {
	if w.tooLong {
		w.fn(nil, false)
	} else {
		w.fn(bytes.TrimRight(w.partial, "\r"), true)
	}
	w.partial, w.tooLong = w.partial[:0], false
}

// Close passes a last line that has no newline.
func (w *LineWriter) Close() error {
	if len(w.partial) > 0 || w.tooLong {
		w.emit()
	}
	w.partial = nil
	return nil
}

// listParser reads the output of a discovery command (`go test -json -list .`, `pytest
// --collect-only -q`) as it streams, within the package's bounds.
type listParser struct {
	kind    task.TestKind
	ids     []string
	kept    int64
	build   strings.Builder
	failed  bool
	tooMany bool
	tail    *Capture
	lines   *LineWriter
	err     error // set by ListedResult
}

func newListParser(kind task.TestKind) *listParser {
	l := &listParser{kind: kind, tail: NewCapture(16<<10, nil)}
	l.lines = NewLineWriter(MaxStreamLine, func(b []byte, ok bool) {
		if ok {
			l.line(b)
		}
	})
	return l
}

func (l *listParser) Write(p []byte) (int, error) {
	l.tail.Write(p)
	return l.lines.Write(p)
}

func (l *listParser) Close() error { return l.lines.Close() }

func (l *listParser) add(id string) {
	if l.kept += int64(len(id)); l.kept > MaxStreamText || len(l.ids) >= MaxStreamTests {
		l.tooMany = true
		return
	}
	l.ids = append(l.ids, id)
}

func (l *listParser) line(b []byte) {
	if l.kind == task.GoTest {
		var ev GoEvent
		if len(b) == 0 || json.Unmarshal(b, &ev) != nil {
			return
		}
		switch {
		case ev.Action == "build-output":
			appendCapped(&l.build, ev.Output, DefaultMessageLen*4)
		case ev.Action == "fail" && ev.Test == "":
			l.failed = true
		case ev.Action == "output" && ev.Test == "":
			name := strings.TrimSpace(ev.Output)
			if task.IsGoTestFunc(name) && !strings.HasPrefix(name, "Benchmark") {
				l.add(ev.Package + "." + name)
			}
		}
		return
	}
	line := string(b)
	if file, _, ok := strings.Cut(line, "::"); ok && strings.HasSuffix(file, ".py") && !strings.Contains(file, " ") {
		l.add(line)
	}
}

func (l *listParser) result(stderr string, exit, messageLen int) ([]string, error) {
	if l.err != nil {
		return nil, l.err
	}
	if l.tooMany {
		return nil, fmt.Errorf("sandbox: the test listing names more than %d tests or %d bytes: %w", MaxStreamTests, MaxStreamText, ErrListFailed)
	}
	if l.kind == task.GoTest {
		if l.failed || exit != 0 {
			return nil, fmt.Errorf("sandbox: go test -list: %s: %w", Truncate(strings.TrimSpace(l.build.String()+"\n"+stderr), DefaultMessageLen), ErrListFailed)
		}
	} else {
		if exit == 5 {
			return nil, nil
		}
		if exit != 0 {
			return nil, fmt.Errorf("sandbox: pytest --collect-only exited %d: %s: %w", exit, Truncate(strings.TrimSpace(lastLines(dropWarningsSummary(l.tail.String()), 30)+"\n"+stderr), messageLen), ErrListFailed)
		}
	}
	ids := append([]string(nil), l.ids...)
	sort.Strings(ids)
	return ids, nil
}

func parseGoList(out []byte, stderr string, exit int) ([]string, error) {
	l := newListParser(task.GoTest)
	l.Write(out)
	l.Close()
	return l.result(stderr, exit, DefaultMessageLen)
}

func parsePytestList(out, stderr string, exit, messageLen int) ([]string, error) {
	l := newListParser(task.Pytest)
	l.Write([]byte(out))
	l.Close()
	return l.result(stderr, exit, messageLen)
}

// dropWarningsSummary removes pytest's "warnings summary" section from its report: it
// comes after the ERRORS section and can be long enough to push the collection error (the
// ImportError and its cause) out of the lines an error message keeps.
func dropWarningsSummary(s string) string {
	lines := strings.Split(s, "\n")
	out := lines[:0:0]
	in := false
	for _, l := range lines {
		rule := strings.HasPrefix(l, "=") && strings.HasSuffix(strings.TrimRight(l, "\r"), "=")
		switch {
		case rule && strings.Contains(l, " warnings summary "):
			in = true
			continue
		case in && rule:
			in = false
		case in && strings.HasPrefix(l, "-- Docs: "):
			in = false
			continue
		}
		if !in {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func joinOutput(stdout, stderr string) string {
	if stderr == "" {
		return stdout
	}
	if stdout == "" {
		return stderr
	}
	return stdout + "\n[stderr]\n" + stderr
}

// commandReport fills the report of a Command run: one test, CommandTestID, whose outcome is
// the program's exit status (see task.Command).
func commandReport(rep *task.Report, stdout, stderr string, pr ProcResult, lim task.Limits) {
	t := task.TestResult{ID: task.CommandTestID, Duration: pr.Wall}
	rep.State = task.RunOK
	switch {
	case pr.TimedOut:
		rep.State = task.RunTimeout
		rep.Detail = fmt.Sprintf("run exceeded its time limit of %s", lim.Timeout)
		t.Outcome, t.Message = task.Timeout, rep.Detail
	case pr.ExitCode == 0:
		t.Outcome = task.Pass
	default:
		t.Outcome = task.Fail
		how := fmt.Sprintf("exit status %d", pr.ExitCode)
		if pr.ExitCode < 0 {
			how = "killed by a signal"
		}
		t.Message = Truncate(strings.TrimSpace(how+"\n"+lastLines(joinOutput(stdout, stderr), 20)), lim.MessageLen)
	}
	rep.Tests = []task.TestResult{t}
	rep.Output = joinOutput(stdout, stderr)
}
