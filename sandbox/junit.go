package sandbox

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/faultline-dev/faultline/task"
)

// JUnitResult is what a pytest JUnit XML report says.
type JUnitResult struct {
	// Tests holds one result per pytest node id, sorted. Collection errors are not tests:
	// they are in CollectionErrors.
	Tests []task.TestResult
	// CollectionErrors holds "module: message" for each file that failed to collect
	// (a testcase with an empty or module-only name whose error says "collection failure").
	CollectionErrors []string
}

// ParseJUnit reads a pytest JUnit XML report (written with `-o junit_family=xunit1`, so each
// testcase carries its file) and converts testcases to pytest node ids:
// `file::Class::name`. Without a file attribute (xunit2) the classname's dotted module path is
// turned into a path (`a.b.test_x.TestC` → `a/b/test_x.py::TestC`), guessing that the first
// component named test, test_* or *_test is the module.
//
// Outcomes: no child element → pass; <failure> → fail; <error> → error (also a setup or
// teardown error recorded on a passing test); <skipped type="pytest.xfail"> → xfail; other
// <skipped> → skip. Non-strict XPASS is reported by pytest as a plain pass (use the -rA
// summary to tell). Messages are truncated to messageLen bytes (<= 0: DefaultMessageLen).
func ParseJUnit(r io.Reader, messageLen int) (*JUnitResult, error) {
	if messageLen <= 0 {
		messageLen = DefaultMessageLen
	}
	d := xml.NewDecoder(r)
	d.Strict = false
	res := &JUnitResult{}
	byID := map[string]int{}
	sawSuite := false
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return res, fmt.Errorf("sandbox: junit xml: %w", err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		switch se.Name.Local {
		case "testsuite", "testsuites":
			sawSuite = true
		case "testcase":
			var tc junitCase
			if err := d.DecodeElement(&tc, &se); err != nil {
				return res, fmt.Errorf("sandbox: junit xml: %w", err)
			}
			tr, collErr, ok := tc.result(messageLen)
			if collErr != "" {
				res.CollectionErrors = append(res.CollectionErrors, collErr)
				continue
			}
			if !ok {
				continue
			}
			if i, dup := byID[tr.ID]; dup {
				// A teardown error is a second record for a test: error wins.
				if tr.Outcome == task.Error || res.Tests[i].Outcome == task.Pass {
					res.Tests[i] = tr
				}
				continue
			}
			byID[tr.ID] = len(res.Tests)
			res.Tests = append(res.Tests, tr)
		}
	}
	if !sawSuite {
		return res, fmt.Errorf("sandbox: junit xml: no testsuite element")
	}
	sort.Slice(res.Tests, func(i, j int) bool { return res.Tests[i].ID < res.Tests[j].ID })
	sort.Strings(res.CollectionErrors)
	return res, nil
}

type junitDetail struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

type junitCase struct {
	Classname string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	File      string        `xml:"file,attr"`
	Time      float64       `xml:"time,attr"`
	Failure   []junitDetail `xml:"failure"`
	Error     []junitDetail `xml:"error"`
	Skipped   []junitDetail `xml:"skipped"`
}

func (d junitDetail) text() string {
	s := strings.TrimSpace(d.Text)
	if s == "" {
		return d.Message
	}
	if d.Message != "" && !strings.Contains(s, d.Message) {
		return d.Message + "\n" + s
	}
	return s
}

func (tc junitCase) result(messageLen int) (task.TestResult, string, bool) {
	if tc.Name == "" && tc.Classname == "" {
		return task.TestResult{}, "", false
	}
	if tc.Classname == "" || (len(tc.Error) > 0 && strings.Contains(tc.Error[0].Message, "collection failure")) {
		msg := ""
		if len(tc.Error) > 0 {
			msg = tc.Error[0].text()
		}
		return task.TestResult{}, truncate(tc.Name+": "+msg, messageLen), false
	}
	tr := task.TestResult{
		ID:       junitNodeID(tc.File, tc.Classname, tc.Name),
		Outcome:  task.Pass,
		Duration: time.Duration(tc.Time * float64(time.Second)),
	}
	switch {
	case len(tc.Error) > 0:
		tr.Outcome, tr.Message = task.Error, tc.Error[0].text()
	case len(tc.Failure) > 0:
		tr.Outcome, tr.Message = task.Fail, tc.Failure[0].text()
	case len(tc.Skipped) > 0:
		tr.Outcome, tr.Message = task.Skip, tc.Skipped[0].text()
		if tc.Skipped[0].Type == "pytest.xfail" {
			tr.Outcome = task.XFail
		}
	}
	tr.Message = truncate(tr.Message, messageLen)
	return tr, "", true
}

// junitNodeID rebuilds a pytest node id from JUnit attributes.
func junitNodeID(file, classname, name string) string {
	parts := strings.Split(classname, ".")
	if file != "" {
		mod := strings.Split(strings.TrimSuffix(file, ".py"), "/")
		// classname is the module path (dotted) followed by the classes.
		if len(parts) >= len(mod) && strings.Join(parts[:len(mod)], "/") == strings.Join(mod, "/") {
			return strings.Join(append([]string{file}, append(parts[len(mod):], name)...), "::")
		}
		if len(parts) >= len(mod) {
			return strings.Join(append([]string{file}, append(parts[len(mod):], name)...), "::")
		}
		return file + "::" + name
	}
	m := len(parts)
	for i, p := range parts {
		if strings.HasPrefix(p, "test_") || p == "test" || strings.HasSuffix(p, "_test") {
			m = i + 1
			break
		}
	}
	f := strings.Join(parts[:m], "/") + ".py"
	return strings.Join(append([]string{f}, append(parts[m:], name)...), "::")
}
