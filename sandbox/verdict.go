package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/faultline-dev/faultline/task"
)

func goReport(rep *task.Report, gr *GoResult, sel task.Selection, stderr string, pr procResult, lim task.Limits) {
	rep.Tests = filterSelected(gr.Tests, sel)
	switch {
	case pr.timedOut:
		rep.State = task.RunTimeout
		rep.Detail = fmt.Sprintf("run exceeded its time limit of %s", lim.Timeout)
	case len(gr.BuildFailed) > 0:
		rep.State = task.RunBuildFailed
		rep.Detail = truncate(strings.TrimSpace(gr.BuildOutput+"\n"+stderr), lim.MessageLen*4)
	case pr.exitCode != 0 && len(gr.Tests) == 0 && len(gr.FailedPackages) == 0:
		// go itself failed before running anything (bad go.mod, no such package).
		rep.State = task.RunBuildFailed
		rep.Detail = truncate(strings.TrimSpace(gr.BuildOutput+"\n"+stderr), lim.MessageLen*4)
	case len(rep.Tests) == 0 && len(gr.FailedPackages) == 0:
		rep.State = task.RunNoTests
	case len(rep.Tests) == 0:
		rep.State = task.RunCrashed
		rep.Detail = truncate(packageOutput(gr), lim.MessageLen*4)
	default:
		rep.State = task.RunOK
		if len(gr.FailedPackages) > 0 {
			rep.Detail = truncate(packageOutput(gr), lim.MessageLen*4)
		}
	}
}

func pytestReport(rep *task.Report, junit io.Reader, sum []SummaryLine, stdout, stderr string, pr procResult, lim task.Limits) {
	var tests []task.TestResult
	var collErrs []string
	if junit != nil {
		if jr, err := ParseJUnit(junit, lim.MessageLen); err == nil {
			tests, collErrs = jr.Tests, jr.CollectionErrors
		}
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
	case pr.timedOut:
		rep.State = task.RunTimeout
		rep.Detail = fmt.Sprintf("run exceeded its time limit of %s", lim.Timeout)
	case pr.exitCode == 5:
		rep.State = task.RunNoTests
	case len(collErrs) > 0:
		rep.State = task.RunCollectionError
		rep.Detail = truncate(strings.Join(collErrs, "\n"), lim.MessageLen*4)
	case pr.exitCode == 1 && junit == nil && len(tests) == 0:
		// pytest did not get as far as writing a report (e.g. "No module named pytest").
		rep.State = task.RunCrashed
		rep.Detail = truncate(strings.TrimSpace(stderr+"\n"+lastLines(stdout, 20)), lim.MessageLen*4)
	case pr.exitCode == 0 || pr.exitCode == 1:
		rep.State = task.RunOK
	case pr.exitCode == 4:
		rep.State = task.RunSetupFailed
		rep.Detail = truncate(strings.TrimSpace(stderr+"\n"+lastLines(stdout, 20)), lim.MessageLen*4)
	default:
		rep.State = task.RunCrashed
		rep.Detail = truncate(strings.TrimSpace(stderr+"\n"+lastLines(stdout, 20)), lim.MessageLen*4)
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

func parseGoList(out []byte, stderr string, exit int) ([]string, error) {
	var ids []string
	var build strings.Builder
	failed := false
	for _, line := range bytes.Split(out, []byte("\n")) {
		var ev GoEvent
		if len(line) == 0 || json.Unmarshal(line, &ev) != nil {
			continue
		}
		switch {
		case ev.Action == "build-output":
			build.WriteString(ev.Output)
		case ev.Action == "fail" && ev.Test == "":
			failed = true
		case ev.Action == "output" && ev.Test == "":
			name := strings.TrimSpace(ev.Output)
			if task.IsGoTestFunc(name) && !strings.HasPrefix(name, "Benchmark") {
				ids = append(ids, ev.Package+"."+name)
			}
		}
	}
	if failed || exit != 0 {
		return nil, fmt.Errorf("sandbox: go test -list: %s: %w", truncate(strings.TrimSpace(build.String()+"\n"+stderr), DefaultMessageLen), ErrListFailed)
	}
	sort.Strings(ids)
	return ids, nil
}

func parsePytestList(out, stderr string, exit, messageLen int) ([]string, error) {
	if exit == 5 {
		return nil, nil
	}
	if exit != 0 {
		return nil, fmt.Errorf("sandbox: pytest --collect-only exited %d: %s: %w", exit, truncate(strings.TrimSpace(lastLines(out, 30)+"\n"+stderr), messageLen), ErrListFailed)
	}
	var ids []string
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimRight(line, "\r")
		if file, _, ok := strings.Cut(line, "::"); ok && strings.HasSuffix(file, ".py") && !strings.Contains(file, " ") {
			ids = append(ids, line)
		}
	}
	sort.Strings(ids)
	return ids, nil
}

func packageOutput(gr *GoResult) string {
	var b strings.Builder
	for _, p := range gr.FailedPackages {
		b.WriteString(gr.PackageOutput[p])
	}
	return strings.TrimSpace(b.String())
}

// goOutputText is Report.Output for a Go run whose go command wrote nothing to
// stderr: the package-level output of failed packages.
func goOutputText(p *GoParser) string {
	var b strings.Builder
	names := make([]string, 0, len(p.pkgs))
	for n := range p.pkgs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		b.WriteString(p.pkgs[n].out.String())
	}
	return b.String()
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
func commandReport(rep *task.Report, stdout, stderr string, pr procResult, lim task.Limits) {
	t := task.TestResult{ID: task.CommandTestID, Duration: pr.wall}
	rep.State = task.RunOK
	switch {
	case pr.timedOut:
		rep.State = task.RunTimeout
		rep.Detail = fmt.Sprintf("run exceeded its time limit of %s", lim.Timeout)
		t.Outcome, t.Message = task.Timeout, rep.Detail
	case pr.exitCode == 0:
		t.Outcome = task.Pass
	default:
		t.Outcome = task.Fail
		how := fmt.Sprintf("exit status %d", pr.exitCode)
		if pr.exitCode < 0 {
			how = "killed by a signal"
		}
		t.Message = truncate(strings.TrimSpace(how+"\n"+lastLines(joinOutput(stdout, stderr), 20)), lim.MessageLen)
	}
	rep.Tests = []task.TestResult{t}
	rep.Output = joinOutput(stdout, stderr)
}
