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
	if i := idEnd(o, rest); i >= 0 {
		id = rest[:i]
		msg = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(rest[i:]), "- "))
	}
	file, _, _ := strings.Cut(id, "::")
	if !strings.HasSuffix(file, ".py") || strings.ContainsAny(file, " \t") {
		return SummaryLine{}, false
	}
	return SummaryLine{ID: id, Outcome: o, Message: msg}, true
}

// idEnd returns where the node id ends in rest, the text after the summary word, or -1 when
// the id is all of it. pytest prints a passed test's id alone; after the others' ids comes
// " - " and the message (XPASS: a space and the reason). A node id without parameters holds no
// space, so it ends at the first one. A parametrized id ends with "]", but its parameter
// text is free: brackets need not balance ("test_parse[(]) ; x]") and spaces are common, so
// it ends at the first "]" after its "[" that is followed by the end or by the separator.
// A parameter text that itself holds "] - " stays ambiguous; resplitSummary settles it with
// the ids the reporter saw.
func idEnd(o task.Outcome, rest string) int {
	if o == task.Pass {
		return -1
	}
	sp := strings.IndexByte(rest, ' ')
	open := strings.IndexByte(rest, '[')
	if open < 0 || (sp >= 0 && sp < open) {
		return sp
	}
	sep := " - "
	if o == task.XPass {
		sep = " "
	}
	for i := open; i < len(rest); i++ {
		if rest[i] == ']' && (i+1 == len(rest) || strings.HasPrefix(rest[i+1:], sep)) {
			return i + 1
		}
	}
	return -1
}

// resplitSummary returns the summary lines with each id that is not among known (the sorted
// ids the reporter saw) but is the start of one that is, read again as that id: the longest
// known id that the line, put back together, starts with and that ends where the line does
// or at a space. Other lines are returned as they were.
func resplitSummary(lines []SummaryLine, known []string) []SummaryLine {
	out := make([]SummaryLine, len(lines))
	for n, l := range lines {
		out[n] = l
		i := sort.SearchStrings(known, l.ID)
		if !strings.Contains(l.ID, "::") || (i < len(known) && known[i] == l.ID) {
			continue
		}
		whole := l.ID
		sep := " - "
		if l.Outcome == task.XPass {
			sep = " "
		}
		if l.Message != "" {
			whole += sep + l.Message
		}
		for j := i; j < len(known) && strings.HasPrefix(known[j], l.ID); j++ {
			k := known[j]
			if !strings.HasPrefix(whole, k) || (len(whole) > len(k) && whole[len(k)] != ' ') {
				continue
			}
			if len(k) > len(out[n].ID) {
				out[n].ID = k
				out[n].Message = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(whole[len(k):]), strings.TrimSpace(sep)))
			}
		}
	}
	return out
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
