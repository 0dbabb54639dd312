package testrun

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
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
	// Truncated is set when the file held more than ParseJUnit keeps: text or attribute
	// values longer than MaxXMLText (cut), more than MaxStreamTests testcases or
	// MaxStreamText bytes of ids and messages (left out).
	Truncated bool

	// byKey holds each testcase's outcome and message by pytest's own key for it,
	// junitKey(nodeid): exact, where Tests' ids are rebuilt (and a test inherited from a
	// class in another file gets the other file's path).
	byKey map[string]task.TestResult
}

// junitKey is the "classname::name" pytest's JUnit writer derives from a node id (its
// mangle_test_address: the file part dotted without .py, the parameters kept).
func junitKey(nodeid string) string {
	path, params, bracket := strings.Cut(nodeid, "[")
	names := strings.Split(path, "::")
	names[0] = strings.TrimSuffix(strings.ReplaceAll(names[0], "/", "."), ".py")
	if bracket {
		names[len(names)-1] += "[" + params
	}
	return strings.Join(names[:len(names)-1], ".") + "::" + names[len(names)-1]
}

// Bounds of ParseJUnit's reading, whatever the file's size.
const (
	// MaxXMLText is the longest run of character data, attribute value, comment or CDATA
	// section passed to the XML decoder; the rest of it is skipped.
	MaxXMLText = 64 << 10
	// MaxXMLTag is the longest tag (name and attributes, values cut to MaxXMLText each)
	// accepted; a longer one is an error.
	MaxXMLTag = 1 << 20
)

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
//
// The file is untrusted: it is read as a stream, each text, attribute value, comment and
// CDATA section is cut to MaxXMLText bytes before the XML decoder sees it, tags longer than
// MaxXMLTag are an error, only the first <failure>, <error> and <skipped> of a testcase are
// kept, and at most MaxStreamTests tests and MaxStreamText bytes of ids and messages are
// kept (JUnitResult.Truncated says so). Memory stays within a few MiB plus what is kept,
// however large the file.
func ParseJUnit(r io.Reader, messageLen int) (*JUnitResult, error) {
	if messageLen <= 0 {
		messageLen = DefaultMessageLen
	}
	cr := &xmlCapReader{r: bufio.NewReaderSize(r, 64<<10), max: MaxXMLText}
	d := xml.NewDecoder(cr)
	d.Strict = false
	res := &JUnitResult{byKey: map[string]task.TestResult{}}
	byID := map[string]int{}
	sawSuite := false
	var kept int64
	var cur *junitCase
	var detail *junitDetail
	depth, caseDepth, detailDepth := 0, -1, -1
	finish := func() {
		tc := cur
		cur = nil
		tr, collErr, ok := tc.result(messageLen)
		if collErr != "" {
			if kept += int64(len(collErr)); kept > MaxStreamText {
				res.Truncated = true
				return
			}
			res.CollectionErrors = append(res.CollectionErrors, collErr)
			return
		}
		if !ok {
			return
		}
		key := tc.Classname + "::" + tc.Name
		if old, dup := res.byKey[key]; !dup || tr.Outcome == task.Error || old.Outcome == task.Pass {
			res.byKey[key] = tr
		}
		if i, dup := byID[tr.ID]; dup {
			// A teardown error is a second record for a test: error wins.
			if tr.Outcome == task.Error || res.Tests[i].Outcome == task.Pass {
				res.Tests[i] = tr
			}
			return
		}
		if kept += int64(len(tr.ID) + len(tr.Message)); kept > MaxStreamText || len(res.Tests) >= MaxStreamTests {
			res.Truncated = true
			return
		}
		byID[tr.ID] = len(res.Tests)
		res.Tests = append(res.Tests, tr)
	}
	for {
		tok, err := d.RawToken()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return res, fmt.Errorf("sandbox: junit xml: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			switch {
			case t.Name.Local == "testsuite" || t.Name.Local == "testsuites":
				sawSuite = true
			case t.Name.Local == "testcase" && cur == nil:
				cur, caseDepth = &junitCase{}, depth
				for _, a := range t.Attr {
					switch a.Name.Local {
					case "classname":
						cur.Classname = a.Value
					case "name":
						cur.Name = a.Value
					case "file":
						cur.File = a.Value
					case "time":
						cur.Time, _ = strconv.ParseFloat(a.Value, 64)
					}
				}
			case cur != nil && depth == caseDepth+1 && detail == nil:
				var list *[]junitDetail
				switch t.Name.Local {
				case "failure":
					list = &cur.Failure
				case "error":
					list = &cur.Error
				case "skipped":
					list = &cur.Skipped
				}
				if list != nil && len(*list) == 0 {
					dt := junitDetail{}
					for _, a := range t.Attr {
						switch a.Name.Local {
						case "message":
							dt.Message = Truncate(a.Value, messageLen)
						case "type":
							dt.Type = Truncate(a.Value, 200)
						}
					}
					*list = append(*list, dt)
					detail, detailDepth = &(*list)[0], depth
				}
			}
		case xml.CharData:
			if detail != nil && len(detail.Text) <= messageLen {
				detail.Text += string(t[:min(len(t), messageLen+1-len(detail.Text))])
			}
		case xml.EndElement:
			if detail != nil && depth == detailDepth {
				detail = nil
			}
			if cur != nil && depth == caseDepth {
				finish()
			}
			depth--
		}
	}
	if cur != nil {
		return res, fmt.Errorf("sandbox: junit xml: unexpected end of file inside a testcase")
	}
	if depth != 0 {
		return res, fmt.Errorf("sandbox: junit xml: unexpected end of file")
	}
	if !sawSuite {
		return res, fmt.Errorf("sandbox: junit xml: no testsuite element")
	}
	res.Truncated = res.Truncated || cr.cut
	sort.Slice(res.Tests, func(i, j int) bool { return res.Tests[i].ID < res.Tests[j].ID })
	sort.Strings(res.CollectionErrors)
	return res, nil
}

// xmlCapReader passes an XML stream through, cutting every run of character data,
// attribute value, comment, CDATA section or other markup declaration to max bytes (never
// inside an entity reference or a UTF-8 sequence), and failing on a tag longer than
// MaxXMLTag. It keeps a few bytes of state, whatever the input.
type xmlCapReader struct {
	r   *bufio.Reader
	max int
	cut bool
	err error
	out []byte // bytes decided, not yet returned

	state    int  // xmlText, xmlTag, xmlValue, xmlComment, xmlCDATA, xmlDecl
	deciding bool // just after '<': the markup's kind is not known yet
	open     []byte
	quote    byte // the quote of the current attribute value
	run      int  // bytes of the current text, value, comment or declaration passed
	entity   int  // > 0: inside an entity reference ("&...;"), its length so far
	lastKept bool // the previous byte of the run was passed (its UTF-8 continuation may follow)
	tagLen   int
	ends     int // comment / CDATA: trailing '-' or ']' read in a row
	passed   int // trailing '-' or ']' at the end of what was passed (at most 2)
}

const (
	xmlText = iota
	xmlTag
	xmlValue
	xmlComment
	xmlCDATA
	xmlDecl
)

func (x *xmlCapReader) Read(p []byte) (int, error) {
	for len(x.out) < len(p) && x.err == nil {
		if x.state == xmlText && x.run >= x.max && x.entity == 0 {
			// Skipping the rest of a long text: in bulk, up to the next tag.
			if _, err := x.r.Peek(1); err != nil {
				x.err = err
				break
			}
			buf, _ := x.r.Peek(x.r.Buffered())
			n := bytes.IndexByte(buf, '<')
			if n < 0 {
				n = len(buf)
			}
			if n > 0 {
				x.cut, x.lastKept = true, false
				x.r.Discard(n)
				continue
			}
		}
		c, err := x.r.ReadByte()
		if err != nil {
			x.err = err
			break
		}
		x.step(c)
	}
	n := copy(p, x.out)
	x.out = x.out[:copy(x.out, x.out[n:])]
	if n > 0 {
		return n, nil
	}
	return 0, x.err
}

// text passes c as part of a capped run (text, attribute value, declaration).
func (x *xmlCapReader) text(c byte) {
	if x.run < x.max || x.entity > 0 || (c&0xC0 == 0x80 && x.lastKept) {
		x.run++
		x.lastKept = true
		x.out = append(x.out, c)
		switch {
		case c == '&':
			x.entity = 1
		case x.entity > 0 && (c == ';' || x.entity > 32):
			x.entity = 0
		case x.entity > 0:
			x.entity++
		}
		return
	}
	x.cut, x.lastKept = true, false
}

func (x *xmlCapReader) step(c byte) {
	switch x.state {
	case xmlText:
		if c == '<' {
			x.state, x.deciding, x.open, x.tagLen = xmlTag, true, x.open[:0], 1
			x.out = append(x.out, c)
			return
		}
		x.text(c)
	case xmlTag:
		x.tagLen++
		if x.tagLen > MaxXMLTag {
			x.err = fmt.Errorf("sandbox: junit xml: a tag longer than %d bytes", MaxXMLTag)
			return
		}
		x.out = append(x.out, c)
		if x.deciding {
			x.open = append(x.open, c)
			o := string(x.open)
			switch {
			case o == "!--":
				x.state, x.deciding, x.run, x.ends, x.passed = xmlComment, false, 0, 0, 0
				return
			case o == "![CDATA[":
				x.state, x.deciding, x.run, x.ends, x.passed = xmlCDATA, false, 0, 0, 0
				return
			case strings.HasPrefix("!--", o) || strings.HasPrefix("![CDATA[", o):
				return
			case o[0] == '!' || o[0] == '?':
				x.state, x.deciding, x.run, x.entity = xmlDecl, false, len(o), 0
				return
			}
			x.deciding = false
		}
		switch c {
		case '"', '\'':
			x.state, x.quote, x.run, x.entity = xmlValue, c, 0, 0
		case '>':
			x.state, x.run, x.entity = xmlText, 0, 0
		}
	case xmlValue:
		switch c {
		case x.quote:
			x.state = xmlTag
			x.out = append(x.out, c)
		case '<', '>': // malformed; the decoder reports it
			x.state = xmlTag
			x.out = append(x.out, c)
		default:
			x.text(c)
		}
	case xmlComment, xmlCDATA:
		end := byte('-')
		if x.state == xmlCDATA {
			end = ']'
		}
		switch {
		case c == '>' && x.ends >= 2:
			for ; x.passed < 2; x.passed++ {
				x.out = append(x.out, end)
			}
			x.out = append(x.out, c)
			x.state, x.run = xmlText, 0
			return
		case c == end:
			x.ends++
		default:
			x.ends = 0
		}
		if x.run < x.max {
			x.run++
			x.out = append(x.out, c)
			if c == end {
				x.passed = min(x.passed+1, 2)
			} else {
				x.passed = 0
			}
			return
		}
		// Dropped: what was passed still ends as it did (passed counts the end characters
		// at the end of what was passed), and the terminator adds what it lacks.
		x.cut = true
	case xmlDecl:
		if c == '>' {
			x.state, x.run = xmlText, 0
			x.out = append(x.out, c)
			return
		}
		x.text(c)
	}
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
	if tc.Classname == "" && len(tc.Error) == 0 {
		// A module skipped while collecting (pytest.importorskip): neither a test nor an
		// error.
		return task.TestResult{}, "", false
	}
	if tc.Classname == "" || (len(tc.Error) > 0 && strings.Contains(tc.Error[0].Message, "collection failure")) {
		msg := ""
		if len(tc.Error) > 0 {
			msg = tc.Error[0].text()
		}
		return task.TestResult{}, Truncate(tc.Name+": "+msg, messageLen), false
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
	tr.Message = Truncate(tr.Message, messageLen)
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
		if len(parts) > len(mod) {
			// The test function is defined in file but collected from another module (a
			// class imported or inherited there): the classname names that module; take as
			// many components as file has.
			f := strings.Join(parts[:len(mod)], "/") + ".py"
			return strings.Join(append([]string{f}, append(parts[len(mod):], name)...), "::")
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
