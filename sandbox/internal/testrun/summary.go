package testrun

import (
	"io"
	"sort"
	"strings"

	"github.com/faultline-dev/faultline/task"
)

// SummaryLine is one line of pytest's `-rA` short test summary ("PASSED id", "FAILED id -
// message", ...), the format SWE-bench parses.
type SummaryLine struct {
	ID      string
	Outcome task.Outcome
	Message string
}

var summaryWords = map[string]task.Outcome{
	"PASSED":  task.Pass,
	"FAILED":  task.Fail,
	"ERROR":   task.Error,
	"SKIPPED": task.Skip,
	"XFAIL":   task.XFail,
	"XPASS":   task.XPass,
}

// ParseSummary reads pytest output and returns the short-summary lines it recognises, in
// order. Only lines of the form `WORD nodeid[ - message]` whose node id looks like one
// (`file.py::...`, or a bare `file.py` for module-level errors) are kept, so the rest of
// the output (tracebacks that happen to start with FAILED) is ignored. SKIPPED lines
// (`SKIPPED [1] file.py:12: reason`) name a location, not a test, and are skipped. ERROR
// lines for a file without `::` are collection errors: they come back with an ID that has no
// "::". Lines longer than MaxStreamLine are ignored.
func ParseSummary(r io.Reader) []SummaryLine {
	var out []SummaryLine
	eachLine(r, MaxStreamLine, func(line []byte, ok bool) {
		if l, isSum := parseSummaryLine(string(line)); ok && isSum {
			out = append(out, l)
		}
	})
	return out
}

func parseSummaryLine(line string) (SummaryLine, bool) {
	line = strings.TrimRight(line, "\r")
	word, rest, ok := strings.Cut(line, " ")
	if !ok {
		return SummaryLine{}, false
	}
	o, known := summaryWords[word]
	if !known || o == task.Skip {
		return SummaryLine{}, false
	}
	id, msg := rest, ""
	// The id ends at " - " (FAILED/ERROR/XFAIL reasons) or, for XPASS, at the first space
	// outside brackets (pytest prints "XPASS id reason").
	if i := idEnd(rest); i >= 0 {
		id = rest[:i]
		msg = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(rest[i:]), "- "))
	}
	file, _, _ := strings.Cut(id, "::")
	if !strings.HasSuffix(file, ".py") || strings.ContainsAny(file, " \t") {
		return SummaryLine{}, false
	}
	return SummaryLine{ID: id, Outcome: o, Message: msg}, true
}

// idEnd returns the index of the first space that is not inside [...] (parameter ids may
// contain spaces), or -1.
func idEnd(s string) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[':
			depth++
		case ']':
			if depth > 0 {
				depth--
			}
		case ' ':
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// summaryResults turns summary lines into sorted test results (the last line for an id wins)
// (an ERROR line outranks the others for its id) and the collection errors (ERROR lines naming a file).
func summaryResults(lines []SummaryLine, messageLen int) (tests []task.TestResult, collErrs []string) {
	byID := map[string]SummaryLine{}
	for _, l := range lines {
		if !strings.Contains(l.ID, "::") {
			if l.Outcome == task.Error {
				collErrs = append(collErrs, Truncate(l.ID+": "+l.Message, messageLen))
			}
			continue
		}
		if old, ok := byID[l.ID]; ok && old.Outcome == task.Error {
			continue // a teardown error outranks the PASSED line of the same test
		}
		byID[l.ID] = l
	}
	for id, l := range byID {
		tests = append(tests, task.TestResult{ID: id, Outcome: l.Outcome, Message: Truncate(l.Message, messageLen)})
	}
	sort.Slice(tests, func(i, j int) bool { return tests[i].ID < tests[j].ID })
	sort.Strings(collErrs)
	return tests, collErrs
}
