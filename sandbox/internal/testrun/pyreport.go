package testrun

import (
	_ "embed"
	"encoding/json"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/faultline-dev/faultline/task"
)

// pytestBoot is the program a pytest run executes with `python3 -c`: pytest.main with
// faultline's reporter plugin (see pyreport.py).
//
//go:embed pyreport.py
var pytestBoot string

// Names of the files a pytest run uses in its report directory (see PytestAttemptArgs).
const (
	PytestJUnitFile  = "junit.xml"
	PytestEventsFile = "faultline-events.jsonl"
	PytestConfigFile = "faultline-pytest.json"
)

// pytestExitMarker starts the line the bootstrap prints after pytest.main returns.
const pytestExitMarker = "faultline-pytest-exit: "

// pytestEvents is what the reporter plugin's event file says about a run.
type pytestEvents struct {
	items      []string // collected (after deselection), in run order
	itemsDone  bool     // collection finished
	collectErr map[string]string
	collecting string // the file being collected when the events stop, if any
	started    map[string]bool
	finished   map[string]bool
	order      []string // ids in the order they started
	startAt    map[string]time.Time
	phases     map[string]*pyPhases
	ended      bool
	status     int
	malformed  int
	dropped    bool
	textCut    bool
	conflicts  []string
}

type pyPhases struct {
	setup, call, teardown string // outcome of each phase: passed, failed, skipped
	xfail                 bool
	msg                   string
	msgWhen               string
}

type pyEvent struct {
	E       string  `json:"e"`
	ID      string  `json:"id"`
	When    string  `json:"when"`
	Outcome string  `json:"outcome"`
	XFail   bool    `json:"xfail"`
	Msg     string  `json:"msg"`
	Status  *int    `json:"status"`
	N       int     `json:"n"`
	T       float64 `json:"t"`
}

// parsePytestEvents reads the reporter's event file with the package's stream bounds.
func parsePytestEvents(r io.Reader, messageLen int) *pytestEvents {
	ev := &pytestEvents{collectErr: map[string]string{}, started: map[string]bool{}, finished: map[string]bool{}, phases: map[string]*pyPhases{}, startAt: map[string]time.Time{}}
	var kept int64
	collectOpen := map[string]bool{}
	lastCollect := ""
	eachLine(r, MaxStreamLine, func(line []byte, ok bool) {
		if !ok {
			ev.malformed++
			return
		}
		if len(strings.TrimSpace(string(line))) == 0 {
			return
		}
		var e pyEvent
		if err := json.Unmarshal(line, &e); err != nil {
			ev.malformed++
			return
		}
		if e.E == "item" || e.E == "start" {
			if kept += int64(len(e.ID)); kept > MaxStreamText || len(ev.order) >= MaxStreamTests || len(ev.items) >= MaxStreamTests {
				ev.dropped = true
				return
			}
		}
		if ev.ended && e.E != "end" {
			ev.conflicts = append(ev.conflicts, "pytest events after the session ended")
		}
		switch e.E {
		case "collect":
			collectOpen[e.ID] = true
			lastCollect = e.ID
		case "collected":
			delete(collectOpen, e.ID)
		case "collecterror":
			delete(collectOpen, e.ID)
			kept += int64(min(len(e.Msg), messageLen))
			ev.collectErr[e.ID] = Truncate(e.Msg, messageLen)
		case "item":
			ev.items = append(ev.items, e.ID)
		case "items":
			ev.itemsDone = true
		case "start":
			if ev.started[e.ID] {
				ev.conflicts = append(ev.conflicts, "pytest events: "+Truncate(e.ID, 200)+" started twice")
			}
			ev.started[e.ID] = true
			ev.order = append(ev.order, e.ID)
			if e.T > 0 {
				ev.startAt[e.ID] = time.Unix(0, int64(e.T*1e9))
			}
		case "report":
			ph := ev.phases[e.ID]
			if ph == nil {
				ph = &pyPhases{}
				ev.phases[e.ID] = ph
			}
			switch e.When {
			case "setup":
				ph.setup = e.Outcome
			case "call":
				ph.call = e.Outcome
			case "teardown":
				ph.teardown = e.Outcome
			}
			ph.xfail = ph.xfail || e.XFail
			if e.Msg != "" && (ph.msg == "" || e.Outcome == "failed" && ph.msgWhen != "call") {
				if kept+int64(min(len(e.Msg), messageLen)) > MaxStreamText {
					ev.textCut = true
				} else {
					kept += int64(min(len(e.Msg), messageLen))
					ph.msg, ph.msgWhen = Truncate(e.Msg, messageLen), e.When
				}
			}
		case "finish":
			ev.finished[e.ID] = true
		case "end":
			if ev.ended {
				ev.conflicts = append(ev.conflicts, "pytest events: the session ended twice")
			}
			ev.ended = true
			if e.Status != nil {
				ev.status = *e.Status
			}
		default:
			ev.malformed++
		}
	})
	if !ev.itemsDone && collectOpen[lastCollect] {
		ev.collecting = lastCollect
	}
	return ev
}

// eachLine calls fn for each line of r, as a LineWriter does.
func eachLine(r io.Reader, max int, fn func(line []byte, ok bool)) {
	w := NewLineWriter(max, fn)
	io.Copy(w, r)
	w.Close()
}

// verdict is the outcome the phases of a finished test give, pytest's rules: a failed setup
// or teardown is an error (outranking the call), a failed call a failure, a skip with an
// xfail reason an expected failure, a pass with one an unexpected pass.
func (ph *pyPhases) verdict() task.Outcome {
	switch {
	case ph.setup == "failed" || ph.teardown == "failed":
		return task.Error
	case ph.setup == "skipped" || ph.call == "skipped":
		if ph.xfail {
			return task.XFail
		}
		return task.Skip
	case ph.call == "failed":
		return task.Fail
	case ph.call == "passed":
		if ph.xfail {
			return task.XPass
		}
		return task.Pass
	}
	return ""
}

// pytestStdout scans a pytest run's stdout as it streams: the -rA lines of the short test
// summary (the region after pytest's last "short test summary info" header), the
// bootstrap's exit markers, and summary-like lines printed after pytest's final line (which
// pytest never prints: something forged them). Lines longer than MaxStreamLine are ignored.
type pytestStdout struct {
	all      []SummaryLine // every -rA-looking line, wherever it was
	region   []SummaryLine // those after the last summary header
	headers  int
	markers  []int
	afterEnd bool // pytest's final "=== ... in 0.12s ===" line was seen
	late     []string
	lines    *LineWriter
	kept     int64 // bytes of ids and messages kept
	dropped  bool  // more -rA lines than kept
}

func (s *pytestStdout) Write(p []byte) (int, error) {
	if s.lines == nil {
		s.lines = NewLineWriter(MaxStreamLine, func(b []byte, ok bool) {
			if ok {
				s.line(string(b))
			}
		})
	}
	return s.lines.Write(p)
}

// Close handles a last line without a newline.
func (s *pytestStdout) Close() error {
	if s.lines != nil {
		s.lines.Close()
	}
	return nil
}

func (s *pytestStdout) line(l string) {
	if rest, ok := strings.CutPrefix(l, pytestExitMarker); ok {
		if n, err := strconv.Atoi(strings.TrimSpace(rest)); err == nil && len(s.markers) < 16 {
			s.markers = append(s.markers, n)
		}
		return
	}
	header := strings.HasPrefix(l, "=") && strings.Contains(l, " short test summary info ")
	sl, isSum := parseSummaryLine(l)
	if s.afterEnd && (isSum || header || isPytestFinalLine(l)) {
		if len(s.late) < 16 {
			s.late = append(s.late, Truncate(l, 200))
		}
		return
	}
	switch {
	case header:
		s.headers++
		s.region = s.region[:0]
	case isPytestFinalLine(l):
		s.afterEnd = true
	case isSum:
		if s.kept += int64(len(sl.ID)); s.kept > MaxStreamText || len(s.all) >= MaxStreamTests {
			s.dropped = true
			return
		}
		sl.Message = Truncate(sl.Message, DefaultMessageLen)
		s.kept += int64(len(sl.Message))
		s.all = append(s.all, sl)
		if s.headers > 0 {
			s.region = append(s.region, sl)
		}
	}
}

// isPytestFinalLine recognises pytest's last line, "==== 1 failed, 2 passed in 0.12s ====".
func isPytestFinalLine(l string) bool {
	l = strings.TrimSpace(l)
	if !strings.HasPrefix(l, "=") || !strings.HasSuffix(l, "=") {
		return false
	}
	l = strings.TrimSpace(strings.Trim(l, "="))
	i := strings.LastIndex(l, " in ")
	if i < 0 {
		return false
	}
	t := l[i+4:]
	if j := strings.IndexByte(t, ' '); j >= 0 {
		t = t[:j]
	}
	_, err := strconv.ParseFloat(strings.TrimSuffix(t, "s"), 64)
	return err == nil && strings.HasSuffix(t, "s")
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
